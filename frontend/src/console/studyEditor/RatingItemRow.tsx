/** One rating item in the editor: key, question in English and German, required, its scale; move and remove. */
import { Field } from '../ui';
import type { ErrorsAt } from './fieldErrorsUnder';
import type { ItemDraft } from './ratingItemDraft';
import type { RatingPresets } from './ratingSettings';
import { ScaleFields } from './ScaleFields';

export function RatingItemRow({
  item,
  index,
  count,
  scales,
  err,
  otherErrors,
  onChange,
  onMove,
  onRemove,
}: {
  item: ItemDraft;
  index: number;
  count: number;
  scales: RatingPresets['scales'] | undefined;
  /** Errors under `rating_items.<index>`. */
  err: ErrorsAt;
  /** Errors for this item that no field shows. */
  otherErrors: string[];
  onChange: (item: ItemDraft) => void;
  onMove: (by: number) => void;
  onRemove: () => void;
}) {
  const name = item.key || `item ${index + 1}`;
  const set = (patch: Partial<ItemDraft>) => {
    onChange({ ...item, ...patch });
  };
  const scaleErr: ErrorsAt = (path) => err(path ? `scale.${path}` : 'scale');
  return (
    <li className="card rating-item" aria-label={`Rating item ${index + 1}: ${name}`}>
      <div className="form--grid">
        <Field label={`Key of item ${index + 1}`} error={err('key')} hint="Lower case letters, digits and _; the column name in exports.">
          {(props) => <input {...props} value={item.key} onChange={(e) => { set({ key: e.target.value }); }} />}
        </Field>
        <Field label={`Question of ${name} (English)`} error={err('question.en') ?? err('question')}>
          {(props) => <textarea {...props} rows={2} value={item.en} onChange={(e) => { set({ en: e.target.value }); }} />}
        </Field>
        <Field label={`Question of ${name} (Deutsch)`} error={err('question.de')}>
          {(props) => <textarea {...props} rows={2} lang="de" value={item.de} onChange={(e) => { set({ de: e.target.value }); }} />}
        </Field>
        <div className="field field--checkbox">
          <label>
            <input type="checkbox" checked={item.required} onChange={(e) => { set({ required: e.target.checked }); }} /> {name} is required
          </label>
          {err('required') && <p className="field-error">{err('required')}</p>}
        </div>
      </div>
      <ScaleFields scale={item.scale} name={name} scales={scales} err={scaleErr} onChange={(scale) => { set({ scale }); }} />
      {otherErrors.map((message) => (
        <p key={message} className="field-error">
          {message}
        </p>
      ))}
      <div className="form__actions">
        <button type="button" className="button button--quiet" disabled={index === 0} onClick={() => { onMove(-1); }}>
          Move {name} up
        </button>
        <button type="button" className="button button--quiet" disabled={index === count - 1} onClick={() => { onMove(1); }}>
          Move {name} down
        </button>
        <button type="button" className="button button--quiet" disabled={count === 1} onClick={onRemove}>
          Remove {name}
        </button>
      </div>
    </li>
  );
}
