/**
 * The participants table (issue 35): one row per participant; per scenario one sub-column
 * per rating item, headed by the item's name, each value as written (training left out).
 * The table scrolls sideways inside its own box with the participant column kept in view;
 * the long screening reason wraps, so the ratings begin within the first screen width.
 */
import { cellText, itemName } from '../participantRatings';
import type { ParticipantRow } from '../participants';

/** The columns before the scenarios. */
export const FIXED_HEADER = ['Participant', 'Games', 'Sessions', 'Reliability', 'Why', 'ρ', 'Bias', 'Inconsistency'];

/** One header per scenario and item ("B · overall"), or per scenario when there is one item. */
export function valueHeaders(scenarios: readonly string[], items: readonly string[]): string[] {
  return scenarios.flatMap((s) => (items.length > 1 ? items.map((i) => `${s} · ${itemName(i)}`) : [s]));
}

/** A row's value cells in the order of {@link valueHeaders}. */
export function valueCells(row: ParticipantRow, scenarios: readonly string[], items: readonly string[]): string[] {
  const keys = items.length ? items : [''];
  return scenarios.flatMap((s) => keys.map((i) => cellText(row.ratings, s, i)));
}

/** Column classes: the reason wraps (it is long), the numbers align. */
const CELL_CLASS: Record<number, string> = { 4: 'participants__why', 5: 'num', 6: 'num', 7: 'num' };

export function ParticipantsTable({
  rows,
  fixed,
  scenarios,
  items,
}: {
  rows: readonly ParticipantRow[];
  /** The cells before the scenarios, per row (as {@link FIXED_HEADER}). */
  fixed: (row: ParticipantRow) => string[];
  scenarios: readonly string[];
  items: readonly string[];
}) {
  const split = items.length > 1;
  return (
    <div className="table-wrap participants-wrap" role="region" aria-label="Participants table (scrolls sideways)" tabIndex={0}>
      <table className="data-table participants" aria-label="Participants" data-rows={rows.length}>
        <thead>
          <tr>
            {FIXED_HEADER.map((h) => (
              <th key={h} scope="col" rowSpan={split ? 2 : 1}>
                {h}
              </th>
            ))}
            {scenarios.map((s) => (
              <th key={s} scope={split ? 'colgroup' : 'col'} colSpan={split ? items.length : 1} className="participants__scenario">
                {s}
              </th>
            ))}
          </tr>
          {split && (
            <tr>
              {scenarios.flatMap((s) =>
                items.map((i) => (
                  <th key={`${s}/${i}`} scope="col" className="participants__item" data-item={i}>
                    {itemName(i)}
                  </th>
                )),
              )}
            </tr>
          )}
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.rater} data-rater={r.rater} data-status={r.status}>
              {fixed(r).map((cell, j) =>
                j === 0 ? (
                  <th key={j} scope="row">
                    {cell}
                  </th>
                ) : (
                  <td key={j} className={CELL_CLASS[j] ?? (j === 3 ? `rater-status rater-status--${r.status}` : undefined)}>
                    {cell}
                  </td>
                ),
              )}
              {scenarios.flatMap((s) =>
                (split ? items : [items[0] ?? '']).map((i) => (
                  <td key={`${s}/${i}`} className="num" data-scenario={s} data-item={i || undefined}>
                    {cellText(r.ratings, s, i)}
                  </td>
                )),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
