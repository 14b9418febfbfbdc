/** Shared editing of the study editor: table rows (games, scenarios) and number fields. */
import { fieldErrors, sendJSON } from '../../api';
import { useAction } from '../hooks';

/** One row of an edit table: saves or deletes it through one action, then reloads the study. */
export function useEditRow(onChanged: () => void) {
  const action = useAction();
  const save = async (request: () => Promise<unknown>) => {
    const result = await action.run(request);
    if (result) onChanged();
  };
  const remove = async (path: string, question: string) => {
    if (!window.confirm(question)) return;
    const result = await action.run(async () => {
      await sendJSON('DELETE', path);
      return true;
    });
    if (result) onChanged();
  };
  return { busy: action.busy, errors: fieldErrors(action.error), save, remove };
}

export function RowActions({
  isNew,
  busy,
  dirty,
  onSave,
  removeLabel,
  onRemove,
  error,
}: {
  isNew: boolean;
  busy: boolean;
  dirty: boolean;
  onSave: () => Promise<void>;
  removeLabel: string;
  onRemove: (() => Promise<void>) | undefined;
  error: string | undefined;
}) {
  return (
    <td className="edit-table__actions">
      <button type="button" className="button" disabled={busy || !dirty} onClick={() => void onSave()}>
        {isNew ? 'Add' : 'Save'}
      </button>
      {onRemove && (
        <button type="button" className="button button--quiet" disabled={busy} onClick={() => void onRemove()}>
          {removeLabel}
        </button>
      )}
      {error && <p className="field-error" role="alert">{error}</p>}
    </td>
  );
}

/** A number field's text as the API expects it: a number, or the text itself for the API to reject. */
export function toNumber(text: string): number | string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : trimmed;
}
