/** One item's scale in the rating items editor: its kind, range, step and labelled points/anchors. */
import { Field } from '../ui';
import type { ErrorsAt } from './fieldErrorsUnder';
import { FIVE_POINT, KIND_DESCRIPTIONS, KIND_NAMES, defaultScale } from './ratingItemDraft';
import type { LabelDraft, ScaleDraft } from './ratingItemDraft';
import type { RatingPresets, ScaleKind } from './ratingSettings';

const KINDS = Object.keys(KIND_NAMES) as ScaleKind[];

export function ScaleFields({
  scale,
  name,
  scales,
  err,
  onChange,
}: {
  scale: ScaleDraft;
  /** The item's name in labels ("overall"). */
  name: string;
  scales: RatingPresets['scales'] | undefined;
  /** Errors under `rating_items.<i>.scale`. */
  err: ErrorsAt;
  onChange: (scale: ScaleDraft) => void;
}) {
  const fixed = FIVE_POINT.includes(scale.kind) || scale.kind === 'binary';
  const set = (patch: Partial<ScaleDraft>) => {
    onChange({ ...scale, ...patch });
  };
  const setLabel = (index: number, patch: Partial<LabelDraft>) => {
    set({ labels: scale.labels.map((l, i) => (i === index ? { ...l, ...patch } : l)) });
  };
  return (
    <div className="rating-scale">
      <Field label={`Scale of ${name}`} error={err('kind') ?? err('')} hint={KIND_DESCRIPTIONS[scale.kind]}>
        {(props) => (
          <select {...props} value={scale.kind} onChange={(e) => { onChange(defaultScale(e.target.value as ScaleKind, scales)); }}>
            {KINDS.map((kind) => (
              <option key={kind} value={kind}>
                {KIND_NAMES[kind]}
              </option>
            ))}
          </select>
        )}
      </Field>
      {!fixed && (
        <>
          <Field label={`Lowest value of ${name}`} error={err('min')}>
            {(props) => <input {...props} inputMode="decimal" value={scale.min} onChange={(e) => { set({ min: e.target.value }); }} />}
          </Field>
          <Field label={`Highest value of ${name}`} error={err('max')}>
            {(props) => <input {...props} inputMode="decimal" value={scale.max} onChange={(e) => { set({ max: e.target.value }); }} />}
          </Field>
          <Field
            label={`Step of ${name}`}
            error={err('step')}
            hint={scale.kind === 'discrete' ? 'Whole points: 1 (2 to 11 points).' : 'Empty: any value in the range.'}
          >
            {(props) => <input {...props} inputMode="decimal" value={scale.step} onChange={(e) => { set({ step: e.target.value }); }} />}
          </Field>
        </>
      )}
      {scale.labels.length > 0 && (
        <table className="data-table edit-table" aria-label={`Labels of ${name}`}>
          <thead>
            <tr>
              <th scope="col">Value</th>
              <th scope="col">Label (English)</th>
              <th scope="col">Label (Deutsch)</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {scale.labels.map((label, index) => {
              const e = (field: string) => err(`labels.${index}.${field}`) ?? (field === 'value' ? err(`labels.${index}`) : undefined);
              return (
                <tr key={index}>
                  <td>
                    <input aria-label={`Value of label ${index + 1} of ${name}`} aria-invalid={Boolean(e('value'))} inputMode="decimal" readOnly={fixed} value={label.value} onChange={(ev) => { setLabel(index, { value: ev.target.value }); }} />
                    {e('value') && <p className="field-error">{e('value')}</p>}
                  </td>
                  <td>
                    <input aria-label={`English label ${index + 1} of ${name}`} value={label.en} onChange={(ev) => { setLabel(index, { en: ev.target.value }); }} />
                    {e('text') && <p className="field-error">{e('text')}</p>}
                  </td>
                  <td>
                    <input aria-label={`German label ${index + 1} of ${name}`} lang="de" value={label.de} onChange={(ev) => { setLabel(index, { de: ev.target.value }); }} />
                  </td>
                  <td className="edit-table__actions">
                    {!fixed && (
                      <button type="button" className="button button--quiet" onClick={() => { set({ labels: scale.labels.filter((_, i) => i !== index) }); }}>
                        Remove label
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {err('labels') && <p className="field-error">{err('labels')}</p>}
      {!fixed && (
        <button type="button" className="button button--quiet" onClick={() => { set({ labels: [...scale.labels, { value: '', en: '', de: '' }] }); }}>
          Add a label to {name}
        </button>
      )}
    </div>
  );
}
