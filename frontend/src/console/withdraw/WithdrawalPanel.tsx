/**
 * The study's participants with their withdrawal state, a Withdraw button each (with a
 * confirm dialog), the banner "n excluded / erased" and the audit table. Owner only: for a
 * member the audit answers 403 and the panel says so instead.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';

import { ApiError, participantsPath, sendJSON, useApiQuery } from '../../api';
import type { Participant } from '../../api';
import { useAction } from '../hooks';
import { ActionError } from '../ui';
import { WithdrawDialog } from './WithdrawDialog';
import { counted, withdrawalsPath, withdrawPath } from './withdrawApi';
import type { WithdrawalEntry, WithdrawalList, WithdrawalMode, WithdrawResponse } from './withdrawApi';

const STATUS: Record<string, string> = { '': 'taking part', exclude: 'excluded (kept)', erase: 'erased' };

export function WithdrawalPanel({ studyId }: { studyId: number }) {
  const participants = useApiQuery<Participant[]>(participantsPath(studyId));
  const audit = useApiQuery<WithdrawalList>(withdrawalsPath(studyId));
  const queryClient = useQueryClient();
  const action = useAction();
  const [open, setOpen] = useState<Participant | null>(null);

  if (audit.error instanceof ApiError && audit.error.status === 403) {
    return (
      <section aria-labelledby="withdraw-heading">
        <h3 id="withdraw-heading">Withdrawals</h3>
        <p className="muted">Only the study's owner may withdraw participants and read the audit.</p>
      </section>
    );
  }
  const confirm = async (participant: Participant, mode: WithdrawalMode, reason: string) => {
    const done = await action.run(() => sendJSON<WithdrawResponse>('POST', withdrawPath(participant.id), { mode, reason }));
    if (done) {
      setOpen(null);
      // Everything of the study may change: counts, exports, the analysis (a new data version).
      await queryClient.invalidateQueries();
    }
  };
  const list = audit.data;
  return (
    <section aria-labelledby="withdraw-heading">
      <h3 id="withdraw-heading">Withdrawals</h3>
      {list && (list.excluded > 0 || list.erased > 0) && (
        <p className="banner banner--warn" role="status" data-testid="withdrawn-banner">
          {[list.excluded > 0 ? counted(list.excluded, 'excluded') : null, list.erased > 0 ? counted(list.erased, 'erased') : null]
            .filter(Boolean)
            .join(', ')}
          : the analysis and every export leave them out.
        </p>
      )}
      {participants.data && participants.data.length > 0 && (
        <table className="data-table" aria-label="Participants">
          <thead>
            <tr>
              <th scope="col">Participant</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Action</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {participants.data.map((p) => (
              <tr key={p.id}>
                <th scope="row">{p.code}</th>
                <td>{STATUS[p.withdrawal] ?? p.withdrawal}</td>
                <td>
                  {p.withdrawal !== 'erase' && (
                    <button type="button" className="button" onClick={() => { action.clearError(); setOpen(p); }}>
                      Withdraw {p.code}…
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open && (
        <WithdrawDialog
          participant={open}
          busy={action.busy}
          onConfirm={(mode, reason) => void confirm(open, mode, reason)}
          onCancel={() => { setOpen(null); }}
        />
      )}
      <ActionError error={action.error} prefix="Withdrawal refused" />
      {list && list.entries.length > 0 && <AuditTable entries={list.entries} />}
    </section>
  );
}

function AuditTable({ entries }: { entries: WithdrawalEntry[] }) {
  return (
    <table className="data-table" aria-label="Withdrawal audit">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">By</th>
          <th scope="col">Participant</th>
          <th scope="col">Mode</th>
          <th scope="col">Reason</th>
          <th scope="col" className="num">Rows erased</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr key={e.id}>
            <td>{new Date(e.at).toLocaleString()}</td>
            <td>{e.by_username}</td>
            <th scope="row">{e.participant_code}</th>
            <td>{e.mode === 'erase' ? 'erased' : 'excluded'}</td>
            <td>{e.reason}</td>
            <td className="num">
              {e.erased.sessions} sessions, {e.erased.ratings} ratings, {e.erased.answers} answers
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
