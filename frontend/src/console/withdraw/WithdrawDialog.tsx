/** The confirm dialog of a withdrawal: the mode, an optional reason, and what will happen. */
import { useId, useState } from 'react';

import type { Participant } from '../../api';
import { consequence } from './withdrawApi';
import type { WithdrawalMode } from './withdrawApi';

export function WithdrawDialog({
  participant,
  busy,
  onConfirm,
  onCancel,
}: {
  participant: Participant;
  busy: boolean;
  onConfirm: (mode: WithdrawalMode, reason: string) => void;
  onCancel: () => void;
}) {
  const erasable = participant.withdrawal !== 'exclude';
  const [mode, setMode] = useState<WithdrawalMode>(erasable ? 'exclude' : 'erase');
  const [reason, setReason] = useState('');
  const heading = useId();
  const code = participant.code;
  return (
    <div role="dialog" aria-labelledby={heading} className="card" data-testid="withdraw-dialog">
      <h3 id={heading}>Withdraw {code}</h3>
      <fieldset>
        <legend>What happens to {code}'s data</legend>
        {erasable && (
          <label>
            <input type="radio" name="withdraw-mode" value="exclude" checked={mode === 'exclude'} onChange={() => { setMode('exclude'); }} /> Exclude and
            keep
          </label>
        )}
        <label>
          <input type="radio" name="withdraw-mode" value="erase" checked={mode === 'erase'} onChange={() => { setMode('erase'); }} /> Erase
        </label>
      </fieldset>
      <p className="banner banner--warn" data-testid="withdraw-consequence">
        {consequence(mode, code)}
      </p>
      <label>
        Reason (optional, kept in the audit)
        <input type="text" maxLength={500} value={reason} onChange={(e) => { setReason(e.target.value); }} />
      </label>
      <p>
        <button type="button" className="button button--primary" disabled={busy} onClick={() => { onConfirm(mode, reason); }}>
          {mode === 'erase' ? `Erase ${code}` : `Exclude ${code}`}
        </button>{' '}
        <button type="button" className="button" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </p>
    </div>
  );
}
