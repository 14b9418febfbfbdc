/**
 * Withdrawing a participant (issue 35, item 4): `POST /api/v1/participants/<id>/withdraw/`
 * and the study's audit `GET /api/v1/studies/<id>/withdrawals/` (owner only).
 */
import { API_BASE } from '../../api';
import type { components } from '../../api/schema';

export type WithdrawalMode = components['schemas']['ParticipantWithdrawalEnum'];
export type WithdrawalList = components['schemas']['WithdrawalList'];
export type WithdrawalEntry = components['schemas']['WithdrawalEntry'];
export type WithdrawResponse = components['schemas']['WithdrawResponse'];

export const withdrawPath = (participant: number): string => `${API_BASE}/participants/${participant}/withdraw/`;
export const withdrawalsPath = (study: number): string => `${API_BASE}/studies/${study}/withdrawals/`;

/** What a withdrawal will do, in the words of the confirm dialog. */
export function consequence(mode: WithdrawalMode, code: string): string {
  return mode === 'erase'
    ? `All of ${code}'s sessions, ratings and questionnaire answers will be deleted for good. Only the pseudonym ${code} stays, with an audit entry (who, when, how many rows) — never the data. This cannot be undone.`
    : `${code}'s sessions, ratings and answers are kept, but the analysis and every export (tidy CSV, JSON, sureal) leave them out. You can still erase ${code} later.`;
}

/** "1 participant excluded" / "3 participants erased". */
export function counted(n: number, what: string): string {
  return `${n} participant${n === 1 ? '' : 's'} ${what}`;
}
