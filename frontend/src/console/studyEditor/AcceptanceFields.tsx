/**
 * What counts as "acceptable" (the target of the weights, tree and thresholds): a binary
 * item's "yes", or a chosen item's value at or above a cut (default: overall ≥ 3 on ACR-5).
 */
import { Field } from '../ui';
import type { ErrorsAt } from './fieldErrorsUnder';
import type { ItemDraft } from './ratingItemDraft';

export interface AcceptanceDraft {
  item: string;
  /** The cut as typed; ignored for a binary item. */
  min: string;
}

export function AcceptanceFields({
  acceptance,
  items,
  err,
  onChange,
}: {
  acceptance: AcceptanceDraft;
  items: readonly ItemDraft[];
  /** Errors under `acceptance`. */
  err: ErrorsAt;
  onChange: (acceptance: AcceptanceDraft) => void;
}) {
  const chosen = items.find((i) => i.key === acceptance.item);
  const binary = chosen?.scale.kind === 'binary';
  return (
    <fieldset className="form--grid rating-acceptance">
      <legend>Acceptance (the target of weights, tree and thresholds)</legend>
      <Field label="Acceptance item" error={err('item') ?? err('')} hint={binary ? 'Acceptable when the answer is yes.' : undefined}>
        {(props) => (
          <select {...props} value={acceptance.item} onChange={(e) => { onChange({ ...acceptance, item: e.target.value }); }}>
            {!chosen && <option value={acceptance.item}>{acceptance.item || '(choose an item)'}</option>}
            {items.map((item) => (
              <option key={item.key} value={item.key}>
                {item.key}
                {item.scale.kind === 'binary' ? ' (yes / no)' : ''}
              </option>
            ))}
          </select>
        )}
      </Field>
      {!binary && (
        <Field
          label="Acceptable from (value ≥)"
          error={err('min')}
          hint={chosen ? `On ${chosen.key}'s scale, ${chosen.scale.min} to ${chosen.scale.max}.` : undefined}
        >
          {(props) => <input {...props} inputMode="decimal" value={acceptance.min} onChange={(e) => { onChange({ ...acceptance, min: e.target.value }); }} />}
        </Field>
      )}
    </fieldset>
  );
}
