/**
 * The training phase: anchor scenarios played and rated before the test (stored marked as
 * training, excluded from every analysis). Default anchors: the baseline and the most
 * impaired scenario (largest delay ms + 10 × loss % over both directions). Switching training on
 * starts from those anchors, ticked, and from the study's scenario time (clamped to the
 * server's 10–600 s): a training scenario should last as long as the rated ones (issue 35).
 */
import type { Scenario } from '../../api';
import { Field } from '../ui';
import type { ErrorsAt } from './fieldErrorsUnder';
import { defaultAnchors } from './ratingSettings';

/** The server's bounds of `training.seconds` (rating_items.validate_training). */
const TRAINING_SECONDS = { min: 10, max: 600 };

/** The training time that matches a scenario time: the same, within the bounds above. */
export function trainingSecondsFor(scenarioSeconds: number): number {
  return Math.min(TRAINING_SECONDS.max, Math.max(TRAINING_SECONDS.min, scenarioSeconds));
}

/** What the anchor note says: the defaults only while none is ticked, else the chosen ones. */
export function anchorNote(chosen: readonly string[], defaults: readonly string[]): string {
  if (chosen.length === 0) return `None chosen: the baseline and the most impaired scenario (${defaults.join(', ') || 'none yet'}) are played.`;
  return `Played in this order: ${chosen.join(', ')}. With none ticked, the baseline and the most impaired scenario are played.`;
}

export interface TrainingDraft {
  enabled: boolean;
  scenarios: string[];
  seconds: string;
}

export function TrainingFields({
  training,
  scenarios,
  scenarioSeconds,
  err,
  onChange,
}: {
  training: TrainingDraft;
  scenarios: readonly Scenario[];
  /** The study's seconds per scenario: the default training time. */
  scenarioSeconds: number;
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
              // Switching training on starts from the default anchors and the scenario time.
              const on = e.target.checked;
              set({
                enabled: on,
                scenarios: on && training.scenarios.length === 0 ? defaults : training.scenarios,
                seconds: on ? String(trainingSecondsFor(scenarioSeconds)) : training.seconds,
              });
            }}
          />{' '}
          Train participants on anchor scenarios before the first rated one
        </label>
        {(err('enabled') ?? err('')) && <p className="field-error">{err('enabled') ?? err('')}</p>}
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
              {anchorNote(training.scenarios, defaults)}
            </p>
            {err('scenarios') && <p className="field-error">{err('scenarios')}</p>}
          </fieldset>
          <Field label="Seconds per training scenario" error={err('seconds')} hint={`10–600 s; the study's scenarios play ${scenarioSeconds} s.`}>
            {(props) => <input {...props} type="number" inputMode="numeric" value={training.seconds} onChange={(e) => { set({ seconds: e.target.value }); }} />}
          </Field>
        </>
      )}
    </fieldset>
  );
}
