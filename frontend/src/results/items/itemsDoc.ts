/**
 * The per-item sections of the analysis document (issue 15; qoe_analysis.item_report):
 * `items`, `per_item`, `item_correlations`, `response_times`. Only what the item views read
 * is typed; a document from before issue 15 has none of them.
 */
import type { RatingItem } from '../../participant/items';

export interface ItemMos {
  scenario: string;
  game: string;
  n: number;
  mos: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
}

export interface ItemSection {
  scale: RatingItem['scale'];
  n: number;
  mos: ItemMos[];
  sos?: { a: number | null; bounds?: [number, number]; formula?: string };
  gob_pow?: { gob_pct: number | null; pow_pct: number | null; gob_from: number; pow_to: number };
}

export interface Correlation {
  r: number | null;
  p: number | null;
  n: number;
}

export interface ItemPair {
  items: [string, string];
  conditions: { pearson: Correlation; spearman: Correlation };
  ratings: { spearman: Correlation };
}

export interface ResponseTimes {
  n: number;
  p10: number | null;
  median: number | null;
  p90: number | null;
}

/** One row of `item_correlations.mos`: a scenario's MOS per item (null: not rated there). */
export interface ScenarioItemMos {
  scenario: string;
  mos: Record<string, number | null>;
}

export interface ItemsSections {
  /** The analysis document's meta: the primary item is the one its top level describes. */
  meta?: { primary_item?: string | null };
  items: (RatingItem & { n?: number })[];
  per_item: Record<string, ItemSection>;
  item_correlations?: { condition?: string; pairs: ItemPair[]; mos?: ScenarioItemMos[] };
  response_times?: Record<string, ResponseTimes>;
  /** Raters whose median response time is below the study's `min_response_ms`. */
  fast_raters?: { rater_id: string; n: number; median_ms: number; share_fast: number }[];
}

/** The item sections of a document when it has more than one item, else null (nothing to choose). */
export function multiItemSections(doc: object): ItemsSections | null {
  const sections = doc as Partial<ItemsSections>;
  if (!Array.isArray(sections.items) || sections.items.length < 2 || typeof sections.per_item !== 'object') return null;
  return sections as ItemsSections;
}

/** The pooled (all games) MOS rows of an item, in scenario order. */
export function pooledMos(section: ItemSection, allGames: string): ItemMos[] {
  const pooled = section.mos.filter((row) => row.game === allGames);
  return (pooled.length > 0 ? pooled : section.mos).slice().sort((a, b) => a.scenario.localeCompare(b.scenario, undefined, { numeric: true }));
}
