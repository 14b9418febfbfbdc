/**
 * The training phase: anchor scenarios played and rated before the test (stored marked as
 * training, excluded from every analysis). Default anchors: the baseline and the most
 * impaired scenario (largest delay ms + 10 × loss % over both directions).
 */
import type { Scenario } from '../../api';
import { Field } from '../ui';
import type { ErrorsAt } from './fieldErrorsUnder';
import { defaultAnchors } from './ratingSettings';

export interface TrainingDraft {
  enabled: boolean;
  scenarios: string[];
  seconds: string;
}

export function TrainingFields({
  training,
  scenarios,
  err,
  onChange,
}: {
  training: TrainingDraft;
  scenarios: readonly Scenario[];
  /** Errors under `training`. */
  err: ErrorsAt;
  onChange: (training: TrainingDraft) => void;
}) {
  const defaults = defaultAnchors(scenarios);
  const set = (patch: Partial<TrainingDraft>) => {
    onChange({ ...training, ...patch });
  };
  const toggle = (code: string, on: boolean) => {
    const chosen = new Set(training.scenarios);
    if (on) chosen.add(code);
    else chosen.delete(code);
    // Kept in the study's scenario order: the order they are played in.
    set({ scenarios: scenarios.map((s) => s.code).filter((c) => chosen.has(c)) });
  };
  return (
    <fieldset className="rating-training">
      <legend>Training</legend>
      <div className="field field--checkbox">
        <label>
          <input
            type="checkbox"
            checked={training.enabled}
            onChange={(e) => {
              // Switching training on starts from the default anchors.
              set({ enabled: e.target.checked, scenarios: e.target.checked && training.scenarios.length === 0 ? defaults : training.scenarios });
            }}
          />{' '}
          Train participants on anchor scenarios before the first rated one
        </label>
        {err('enabled') && <p className="field-error">{err('enabled')}</p>}
      </div>
      {training.enabled && (
        <>
          <fieldset className="rating-training__anchors" aria-describedby="training-anchors-hint">
            <legend>Anchor scenarios</legend>
            {scenarios.map((s) => (
              <label key={s.code} className="field--checkbox">
                <input type="checkbox" checked={training.scenarios.includes(s.code)} onChange={(e) => { toggle(s.code, e.target.checked); }} /> {s.code}
                {s.label ? ` – ${s.label}` : ''}
                {defaults.includes(s.code) ? (s.is_baseline ? ' (baseline)' : ' (most impaired)') : ''}
              </label>
            ))}
            <p id="training-anchors-hint" className="field-hint">
              None chosen: the baseline and the most impaired scenario ({defaults.join(', ') || 'none yet'}).
            </p>
            {(err('scenarios') ?? err('')) && <p className="field-error">{err('scenarios') ?? err('')}</p>}
          </fieldset>
          <Field label="Seconds per training scenario" error={err('seconds')} hint="10–600 s.">
            {(props) => <input {...props} type="number" inputMode="numeric" value={training.seconds} onChange={(e) => { set({ seconds: e.target.value }); }} />}
          </Field>
        </>
      )}
    </fieldset>
  );
}
