/**
 * The per-participant view: each rater's ratings per scenario and item (training left out,
 * {@link valuesByScenario}), their reliability status
 * (`reliable` / `unreliable` / `not_assessable`, with the reason) and, where the subject
 * model was fitted, their bias and inconsistency (ITU-T P.910 annex; `doc.subject_model`).
 */
import type { AnalysisDoc, IntraRater, RaterStatus } from './analysisTypes';
import { valuesByScenario } from './participantRatings';
import type { ItemRating, ScenarioValues } from './participantRatings';

export interface ParticipantRow {
  rater: string;
  games: string[];
  sessions: number;
  status: RaterStatus;
  reason: string;
  rho: number | null;
  bias: number | null;
  inconsistency: number | null;
  /** Scenario → item → the rater's values as written (one per session; no training). */
  ratings: ScenarioValues;
  /** Values shown (training left out). */
  n: number;
}

/**
 * The status of a rater: the document's own when present; documents stored before
 * `not_assessable` existed are read as: ρ undefined → not assessable, else `reliable`.
 */
export function raterStatus(r: IntraRater, cutoff: number): { status: RaterStatus; reason: string } {
  if (r.status) return { status: r.status, reason: r.reason ?? '' };
  if (r.rho === null) return { status: 'not_assessable', reason: 'Spearman ρ undefined: no scenario group where both the ratings and the levels vary' };
  const abs = Math.abs(r.rho);
  return { status: r.reliable ? 'reliable' : 'unreliable', reason: `|ρ| = ${abs.toFixed(3)} ${r.reliable ? '>' : '≤'} ${cutoff}` };
}

export const STATUS_TEXT: Record<RaterStatus, string> = { reliable: 'reliable', unreliable: 'unreliable', not_assessable: 'not assessable' };

export function participantRows(doc: AnalysisDoc, ratings: readonly ItemRating[] | null): ParticipantRow[] {
  const intra = new Map(doc.reliability.intra.map((r) => [r.rater_id, r]));
  const subject = new Map((doc.subject_model?.raters ?? []).map((r) => [r.rater_id, r]));
  const ids = [...new Set([...intra.keys(), ...(ratings ?? []).map((r) => r.rater_id)])].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  return ids.map((rater) => {
    const own = (ratings ?? []).filter((r) => r.rater_id === rater);
    const i = intra.get(rater);
    const { status, reason } = i ? raterStatus(i, doc.reliability.cutoff) : { status: 'not_assessable' as const, reason: 'not in the reliability analysis' };
    const s = subject.get(rater);
    return {
      rater,
      games: [...new Set(own.map((r) => r.game))],
      sessions: new Set(own.map((r) => r.session_id)).size,
      status,
      reason,
      rho: i?.rho ?? null,
      bias: typeof s?.bias === 'number' ? s.bias : null,
      inconsistency: typeof s?.inconsistency === 'number' ? s.inconsistency : null,
      ratings: valuesByScenario(own),
      n: own.filter((r) => !r.training).length,
    };
  });
}
