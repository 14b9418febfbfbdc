/**
 * Quality control in the manner of ITU-T P.808 (issue 35, item 2): up to three trapping
 * items — an instructed response ("Please select 'Poor' for this question.") on the first
 * rating item, shown after a chosen test scenario or at a random place, without a new play —
 * and a hidden reference: one scenario (default the baseline) played a second time,
 * unannounced, in the second half. Raters who answer a trap otherwise, or whose repeat
 * differs by more than a quarter of the scale (1 on ACR-5), are flagged in the results and
 * the tidy CSV (`qc_failed`), not excluded.
 */
import type { Scenario, StudyDetail } from '../../api';
import type { RatingItem } from '../../participant/items';
import { Field } from '../ui';
import type { ErrorsAt } from './fieldErrorsUnder';
import { toNumber } from './editRow';

export type QualityControl = NonNullable<StudyDetail['quality_control']>;

export const MAX_TRAPS = 3;

export interface TrapDraft {
  /** The test scenario number after which it is shown; '' = a random place. */
  after: string;
  value: string;
  en: string;
  de: string;
}

export interface QualityControlDraft {
  traps: TrapDraft[];
  hiddenReference: boolean;
  /** The repeated scenario's code; '' = the baseline. */
  reference: string;
}

export function qcDraft(qc: QualityControl | undefined): QualityControlDraft {
  return {
    traps: (qc?.traps ?? []).map((t) => ({ after: t.after === null ? '' : String(t.after), value: String(t.value), en: t.text.en, de: t.text.de })),
    hiddenReference: Boolean(qc?.hidden_reference),
    reference: qc?.hidden_reference?.scenario ?? '',
  };
}

/** The API body; numbers left unreadable are sent as typed, for the API to name. */
export function qcBody(draft: QualityControlDraft): Record<string, unknown> {
  return {
    traps: draft.traps.map((t) => ({ after: t.after.trim() === '' ? null : toNumber(t.after), value: toNumber(t.value), text: { en: t.en, de: t.de } })),
    hidden_reference: draft.hiddenReference ? { scenario: draft.reference || null } : null,
  };
}

/** The instruction for `value` on `item`'s scale, with its label where the scale has one. */
export function instruction(item: RatingItem | undefined, value: number): { en: string; de: string } {
  const label = item?.scale.labels.find((l) => l.value === value)?.text;
  return {
    en: `Please select '${label?.en ?? String(value)}' for this question.`,
    de: `Bitte wählen Sie bei dieser Frage '${label?.de ?? String(value)}'.`,
  };
}

/** A new trap: the second point of the scale (e.g. 'Poor' on ACR-5), at a random place. */
export function newTrap(item: RatingItem | undefined): TrapDraft {
  const scale = item?.scale;
  const value = scale ? Math.min(scale.max, scale.min + (scale.step ?? 1)) : 2;
  return { after: '', value: String(value), ...instruction(item, value) };
}

export function QualityControlFields({
  qc,
  scenarios,
  firstItem,
  err,
  onChange,
}: {
  qc: QualityControlDraft;
  scenarios: readonly Scenario[];
  /** The study's first rating item: the one a trap asks. */
  firstItem: RatingItem | undefined;
  /** Errors under `quality_control` (the API names the field in its message). */
  err: ErrorsAt;
  onChange: (qc: QualityControlDraft) => void;
}) {
  const setTrap = (index: number, patch: Partial<TrapDraft>) => {
    onChange({ ...qc, traps: qc.traps.map((t, i) => (i === index ? { ...t, ...patch } : t)) });
  };
  const changeValue = (index: number, trap: TrapDraft, text: string) => {
    const generated = instruction(firstItem, Number(trap.value));
    const next = instruction(firstItem, Number(text));
    // The instruction follows the value while the researcher has not written their own.
    const follows = trap.en === generated.en && trap.de === generated.de;
    setTrap(index, follows ? { value: text, ...next } : { value: text });
  };
  return (
    <fieldset className="rating-training">
      <legend>Quality control (ITU-T P.808)</legend>
      <p className="field-hint">
        A trap asks the first item ({firstItem?.question.en ?? 'overall'}) with your instruction instead of its question, right after a scenario, without
        a new play. Raters who fail a check are flagged in the results and the tidy CSV (qc_failed), not excluded.
      </p>
      <ol className="rating-items" aria-label="Trapping items">
        {qc.traps.map((trap, index) => (
          <li key={index} className="card">
            <Field label={`Trap ${String(index + 1)}: after test scenario`} error={err(`traps.${String(index)}.after`)} hint="Empty: a random place in each session.">
              {(props) => <input {...props} type="number" inputMode="numeric" min={1} value={trap.after} onChange={(e) => { setTrap(index, { after: e.target.value }); }} />}
            </Field>
            <Field label={`Trap ${String(index + 1)}: value to select`} error={err(`traps.${String(index)}.value`)}>
              {(props) => <input {...props} type="number" value={trap.value} onChange={(e) => { changeValue(index, trap, e.target.value); }} />}
            </Field>
            <Field label={`Trap ${String(index + 1)}: instruction (English)`}>
              {(props) => <input {...props} value={trap.en} onChange={(e) => { setTrap(index, { en: e.target.value }); }} />}
            </Field>
            <Field label={`Trap ${String(index + 1)}: instruction (German)`}>
              {(props) => <input {...props} value={trap.de} onChange={(e) => { setTrap(index, { de: e.target.value }); }} />}
            </Field>
            <button type="button" className="button" onClick={() => { onChange({ ...qc, traps: qc.traps.filter((_, i) => i !== index) }); }}>
              Remove trap {index + 1}
            </button>
          </li>
        ))}
      </ol>
      <div className="form__actions">
        <button type="button" className="button" disabled={qc.traps.length >= MAX_TRAPS} onClick={() => { onChange({ ...qc, traps: [...qc.traps, newTrap(firstItem)] }); }}>
          Add a trapping item
        </button>
      </div>
      <div className="field field--checkbox">
        <label>
          <input type="checkbox" checked={qc.hiddenReference} onChange={(e) => { onChange({ ...qc, hiddenReference: e.target.checked }); }} /> Hidden
          reference: show one scenario a second time, unannounced, in the second half
        </label>
      </div>
      {qc.hiddenReference && (
        <Field label="Repeated scenario" hint="Its two ratings may differ by a quarter of the scale (1 on ACR-5).">
          {(props) => (
            <select {...props} value={qc.reference} onChange={(e) => { onChange({ ...qc, reference: e.target.value }); }}>
              <option value="">The baseline</option>
              {scenarios.map((s) => (
                <option key={s.code} value={s.code}>
                  {s.code}
                  {s.label ? ` – ${s.label}` : ''}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      {err('') && (
        <p className="field-error" role="alert">
          {err('')}
        </p>
      )}
    </fieldset>
  );
}
