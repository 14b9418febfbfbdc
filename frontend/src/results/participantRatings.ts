/**
 * The ratings of the participants table, read from the tidy CSV (issue 35): one value per
 * rating *item*, kept as written (a slider's 3.4 stays "3.4"), and the training ratings
 * set apart, because the analysis leaves them out (docs/methods.md) and so does the table.
 * Columns: `rater_id, session_id, game, scenario, item, rating, training`
 * (qoe_analysis.tidy.columns); a CSV without `item` holds one item, shown as "rating".
 */

export interface ItemRating {
  rater_id: string;
  session_id: string;
  game: string;
  scenario: string;
  /** The item's key (`overall`, `input_quality`, …). */
  item: string;
  /** The value as the CSV writes it. */
  text: string;
  training: boolean;
}

/** The item name of a CSV without an `item` column. */
export const SINGLE_ITEM = 'rating';

const TRUE = new Set(['1', 'true', 'yes']);

/** Every row with a session and a finite numeric rating (integers or not). */
export function toItemRatings(records: readonly Record<string, string>[]): ItemRating[] {
  return records.flatMap((r) => {
    const text = (r.rating ?? '').trim();
    if (!r.session_id || text === '' || !Number.isFinite(Number(text))) return [];
    return [
      {
        rater_id: r.rater_id ?? '',
        session_id: r.session_id,
        game: r.game ?? '',
        scenario: r.scenario ?? '',
        item: (r.item ?? '').trim() || SINGLE_ITEM,
        text,
        training: TRUE.has((r.training ?? '').trim().toLowerCase()),
      },
    ];
  });
}

/** The items in the order the CSV first names them (the study's order). */
export function itemKeys(ratings: readonly ItemRating[]): string[] {
  return [...new Set(ratings.map((r) => r.item))];
}

/** A column header for an item: its key with spaces (`input_quality` → "input quality"). */
export function itemName(key: string): string {
  return key.replace(/_/g, ' ');
}

/** Scenario → item → the rater's values (one per session), training left out. */
export type ScenarioValues = Record<string, Record<string, string[]>>;

export function valuesByScenario(own: readonly ItemRating[]): ScenarioValues {
  const out: ScenarioValues = {};
  for (const r of own) {
    if (r.training) continue;
    const byItem = (out[r.scenario] ??= {});
    (byItem[r.item] ??= []).push(r.text);
  }
  return out;
}

/** A cell's text: the values of one scenario and item, one per session ("—" for none). */
export function cellText(values: ScenarioValues, scenario: string, item: string): string {
  const list = values[scenario]?.[item] ?? [];
  return list.length ? list.join(', ') : '—';
}

/** How many training ratings (distinct rater, session, scenario) the table leaves out. */
export function trainingCount(ratings: readonly ItemRating[]): number {
  return new Set(ratings.filter((r) => r.training).map((r) => `${r.rater_id}\u0000${r.session_id}\u0000${r.scenario}`)).size;
}

/** Ratings read without items or training (an older caller): one item, none training. */
export function fromTidy(ratings: readonly { rater_id: string; session_id: string; game: string; scenario: string; rating: number }[]): ItemRating[] {
  return ratings.map((r) => ({ rater_id: r.rater_id, session_id: r.session_id, game: r.game, scenario: r.scenario, item: SINGLE_ITEM, text: String(r.rating), training: false }));
}
