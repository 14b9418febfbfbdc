/**
 * Readers of the analysis document's `marginals` section (issue 32 item 5; producer
 * `qoe_analysis.stats.marginals`, rule docs/methods.md §2c): MOS with its 95 % CI per
 * factor level or bin, per rating item, per game and over all games. The points, their
 * bins, n, n raters, intervals and interval status are the analysis' own; nothing is
 * pooled or re-binned here. Documents stored before the section existed lack it.
 */
import type * as Gen from '../analysisDoc.gen';
import { ALL_GAMES } from '../analysisTypes';
import type { AnalysisDoc } from '../analysisTypes';
import type { Cell } from '../csv';
import { intervalStatus, intervalText, mosScale } from '../evidence';
import type { FigureScope, IntervalStatus, ScaleRange } from '../evidence';
import { gameLabel } from '../factors';

export type Marginals = Gen.Marginals;
export type MarginalFactor = Gen.MarginalFactor;
export type MarginalSeries = Gen.MarginalSeries;
export type MarginalPoint = Gen.MarginalPoint;

/** The one line shown instead of the view when a stored document has no `marginals` section. */
export const MARGINALS_ABSENT = 'MOS by factor level is not in this stored analysis (it predates the marginal views): re-run the analysis to see it.';

/** The one line shown instead of the view before the first rating (the empty study's document). */
export const MARGINALS_NO_RATINGS = 'MOS by factor level: no completed session yet, the view needs ratings.';

/**
 * The warnings shown on the view: those filed under `marginals`, and how the factors were
 * read (a merged `both_X` factor; missing values, whose ratings are in no point).
 */
export const MARGINALS_WHERE: FigureScope = { paths: ['marginals'], codes: ['merged_factors', 'collinear_factors', 'missing_values'] };

/** The document's section, or null when a stored document lacks it (or it is not the expected shape). */
export function docMarginals(doc: AnalysisDoc | null): Marginals | null {
  const section: unknown = doc?.marginals;
  if (typeof section !== 'object' || section === null) return null;
  const m = section as Partial<Marginals>;
  return Array.isArray(m.factors) && Array.isArray(m.series) ? (section as Marginals) : null;
}

/** The rating items with series, in the section's order (the document's item order). */
export function marginalItems(section: Marginals): string[] {
  return [...new Set(section.series.map((s) => s.item))];
}

/** The item's declaration (`items`), when the document has it. */
function itemOf(doc: AnalysisDoc | null, item: string): Gen.Item | undefined {
  return (doc?.items ?? []).find((i) => i.key === item);
}

/**
 * The scale of one item: `items[key].scale`, else `per_item[key].scale`, else the scale of
 * the top level (`mosScale`: the primary item's, ACR 1–5 in older documents).
 */
export function itemScale(doc: AnalysisDoc | null, item: string): ScaleRange {
  const perItem: Record<string, { scale: Gen.Scale } | undefined> = doc?.per_item ?? {};
  const scale = itemOf(doc, item)?.scale ?? perItem[item]?.scale;
  if (!scale || !Number.isFinite(scale.min) || !Number.isFinite(scale.max) || scale.max <= scale.min) return mosScale(doc);
  return { min: scale.min, max: scale.max, step: scale.step };
}

/** "quality — How would you rate the quality of the game?" (the key alone when the document has no question). */
export function itemText(doc: AnalysisDoc | null, item: string): string {
  const question = itemOf(doc, item)?.question.en;
  return question ? `${item} — ${question}` : item;
}

/** "Delay, downstream (ms)", "Age": the factor's label as the analysis gives it, with its unit. */
export function marginalTitle(f: MarginalFactor): string {
  return f.unit ? `${f.label} (${f.unit})` : f.label;
}

/** A point as the table shows it: its label, with the unit after a tested number or a bin. */
export function pointText(f: MarginalFactor, p: MarginalPoint): string {
  const numeric = typeof p.level === 'number' || p.low !== null;
  return f.unit && numeric ? `${p.label} ${f.unit}` : p.label;
}

/** How the factor's points were made, in words (the rule is in docs/methods.md §2c). */
export function binningText(f: MarginalFactor, nPoints: number): string {
  const source = f.source === 'network' ? 'network factor' : 'per-rater factor';
  if (f.binning === 'quantiles') return `${source}, ${f.n_levels} distinct values in ${nPoints} equal-count bins`;
  if (f.binning === 'top_levels') return `${source}, ${f.n_levels} levels: the ${nPoints - 1} most rated and one "other" point`;
  return `${source}, ${f.n_levels} level${f.n_levels === 1 ? '' : 's'} as tested`;
}

/**
 * Why the interval of a per-rater factor reads narrower than it is: every rating of a
 * rater falls in one point, and the interval treats ratings as independent (§2c).
 */
export function raterCaution(f: MarginalFactor): string | null {
  return f.source === 'rater' ? `${f.label} is a per-rater factor: all of a rater's ratings fall in one point, so read each interval with its n raters beside n.` : null;
}

/** One series as the view reads it: a game key the section lacks has no points. */
export interface ShownSeries {
  game: string;
  nMissing: number;
  points: MarginalPoint[];
}

/** The series of one item and factor, per game key (`gameKeys` of factors.ts), in that order. */
export function marginalSeries(section: Marginals, item: string, factor: string, games: readonly string[]): ShownSeries[] {
  return games.map((game) => {
    const s = section.series.find((x) => x.item === item && x.factor === factor && x.game === game);
    return { game, nMissing: s?.n_missing ?? 0, points: s?.points ?? [] };
  });
}

/** Whether the x axis is a number line: tested numeric levels (a bin or a text level is a category). */
export function numericAxis(f: MarginalFactor, series: readonly ShownSeries[]): boolean {
  return f.kind === 'numeric' && f.binning === 'levels' && series.every((s) => s.points.every((p) => typeof p.level === 'number'));
}

/** The point labels in the factor's order (the same points in every series of a factor). */
export function pointLabels(series: readonly ShownSeries[]): string[] {
  return [...new Set(series.flatMap((s) => s.points.map((p) => p.label)))];
}

/**
 * The ratings without a value of the factor (in no point), per game key shown:
 * "Ratings without a value of Age, in no point: 399 (all games), 201 (Puzzle)". Null when none.
 */
export function missingText(f: MarginalFactor, series: readonly ShownSeries[]): string | null {
  const missing = series.filter((s) => s.nMissing > 0);
  if (missing.length === 0) return null;
  return `Ratings without a value of ${f.label}, in no point: ${missing.map((s) => `${s.nMissing} (${gameLabel(s.game)})`).join(', ')}.`;
}

/** The interval's status on the item's scale; a point without ratings has none. */
export function pointStatus(p: MarginalPoint, scale: ScaleRange): IntervalStatus | null {
  return p.n === 0 ? null : intervalStatus(p, scale);
}

/** The status column of the table: "no rating" for an empty point, else the interval's status in words. */
export function statusText(p: MarginalPoint, scale: ScaleRange): string {
  return p.n === 0 ? 'no rating' : intervalText(pointStatus(p, scale));
}

/** The columns of the view's CSV: one row per point, as `mos_by_factor.csv` of `analyze --out`. */
export const MARGINAL_HEADER = ['item', 'factor', 'game', 'point', 'level', 'low', 'high', 'n', 'n_raters', 'mos', 'sos', 'ci95_low', 'ci95_high', 'ci95_status', 'n_missing'];

const round = (v: number | null) => (v === null ? null : Number(v.toFixed(3)));

/** The CSV rows of the given factors' series (one item), in factor, game and point order. */
export function marginalRows(section: Marginals, item: string, factors: readonly MarginalFactor[], games: readonly string[]): Cell[][] {
  return factors.flatMap((f) =>
    marginalSeries(section, item, f.factor, games).flatMap((s) =>
      s.points.map((p) => [item, f.factor, s.game, p.label, p.level, p.low, p.high, p.n, p.n_raters, round(p.mos), round(p.sos), round(p.ci95_low), round(p.ci95_high), p.ci95_status, s.nMissing]),
    ),
  );
}

/** The caption's words for whose ratings the section pools. */
export function ratersText(section: Marginals): string {
  return section.raters === 'reliable' ? 'reliable raters only' : 'all raters';
}

/** The section's notes on columns given no view ("testbed: one value only"). */
export function sectionNotes(section: Marginals): string[] {
  return Object.entries(section.notes).map(([factor, reason]) => `${factor}: ${reason}`);
}

/** Whether the game keys include the pooled series (its line is dashed). */
export const isPooled = (game: string) => game === ALL_GAMES;
