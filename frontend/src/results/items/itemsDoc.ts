/**
 * The per-item sections of the analysis document (issue 15; qoe_analysis.item_report):
 * `items`, `per_item`, `item_correlations`, `response_times`. Only what the item views read
 * is typed; a document from before issue 15 has none of them.
 */
import type * as Gen from '../analysisDoc.gen';
import type { RatingItem } from '../../participant/items';

/** The keys of a generated section that the item views read (older documents may lack the rest). */
export type ItemMos = Pick<Gen.ConditionMos, 'scenario' | 'game' | 'n' | 'mos' | 'ci95_low' | 'ci95_high'> & Partial<Pick<Gen.ConditionMos, 'ci95_status'>>;

export type ItemSection = Pick<Gen.PerItem, 'scale' | 'n'> & {
  mos: ItemMos[];
  sos?: Pick<Gen.ItemSos, 'a'> & Partial<Pick<Gen.ItemSos, 'bounds' | 'formula'>>;
  gob_pow?: Pick<Gen.GobPow, 'gob_pct' | 'pow_pct' | 'gob_from' | 'pow_to'>;
};

export type Correlation = Gen.Correlation;
export type ItemPair = Gen.ItemPair;
export type ResponseTimes = Gen.ResponseTimes;
/** One row of `item_correlations.mos`: a scenario's MOS per item (null: not rated there). */
export type ScenarioItemMos = Gen.ScenarioItemMos;

export interface ItemsSections {
  /** The analysis document's meta: the primary item is the one its top level describes. */
  meta?: { primary_item?: string | null; games?: Record<string, string> };
  items: (RatingItem & { n?: number })[];
  per_item: Record<string, ItemSection>;
  item_correlations?: Partial<Pick<Gen.ItemCorrelations, 'condition' | 'mos'>> & Pick<Gen.ItemCorrelations, 'pairs'>;
  response_times?: Record<string, ResponseTimes>;
  /** Raters whose median response time is below the study's `min_response_ms`. */
  fast_raters?: Gen.FastRater[];
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

/** One game's MOS of an item per scenario (null where the game has no rating of the scenario). */
export interface ItemGameSeries {
  game: string;
  rows: (ItemMos | null)[];
}

/**
 * Per scenario × game (the condition table of `per_item[key].mos` without the pooled
 * `all` rows): the scenarios in natural order and one series per game, in the order of
 * `gameOrder` (the document's `meta.games`) and then of first appearance.
 */
export function perGameMos(section: ItemSection, allGames: string, gameOrder: readonly string[] = []): { scenarios: string[]; series: ItemGameSeries[] } {
  const rows = section.mos.filter((row) => row.game !== allGames);
  const scenarios = [...new Set(rows.map((r) => r.scenario))].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const seen = [...new Set(rows.map((r) => r.game))];
  const games = [...gameOrder.filter((g) => seen.includes(g)), ...seen.filter((g) => !gameOrder.includes(g))];
  return {
    scenarios,
    series: games.map((game) => ({
      game,
      rows: scenarios.map((scenario) => rows.find((r) => r.game === game && r.scenario === scenario) ?? null),
    })),
  };
}
