/**
 * What the analysis document says about its own evidence (issue 31), read for the explorer:
 * the top-level `warnings`, the `planning` hint, the item's scale and each MOS interval's
 * `ci95_status`. The shapes follow the analysis' schema (`qoe_analysis.schema`); every key
 * is optional here because documents stored before issue 31 lack them, and every reader
 * says what it shows without them.
 */
import type * as Gen from './analysisDoc.gen';
import type { AnalysisDoc } from './analysisTypes';

// --- warnings ---------------------------------------------------------------------------------

/** The analysis' warning codes (schema `DocWarning.code`); an unknown code is shown as a caution. */
export type WarningCode = Gen.DocWarning['code'];

/**
 * One entry of `doc.warnings`: `where` is the dotted document path it concerns. The code is
 * read as any text, so that a code added by a later analysis is still shown.
 */
export type DocWarning = Omit<Gen.DocWarning, 'code'> & { code: string };

export type Severity = 'serious' | 'caution' | 'note';

/**
 * How much a warning limits what the page can be used for. Serious: the numbers cannot
 * support the result they sit beside (too few raters, nothing assessable, no joint bound, a
 * model no better than guessing, dry-run data). Caution: the number stands but is bounded
 * or extrapolated. Note: how the analysis read the design (merged factors).
 */
export const SEVERITY: Record<WarningCode, Severity> = {
  thin_evidence: 'serious',
  not_assessable: 'serious',
  few_reliable_raters: 'serious',
  no_joint_bound: 'serious',
  model_weak: 'serious',
  dry_run: 'serious',
  dominant_raters: 'caution',
  interval_clipped: 'caution',
  no_interval: 'caution',
  extrapolated: 'caution',
  collinear_factors: 'caution',
  marginal_thresholds: 'caution',
  rater_proxy: 'caution',
  merged_factors: 'note',
  // how a dataset read by a descriptor became the table (issue 32)
  assumed_pace: 'caution',
  undeclared_columns: 'note',
  missing_values: 'note',
  derived_sessions: 'note',
  generated_scenarios: 'note',
};

export const SEVERITY_TEXT: Record<Severity, string> = {
  serious: 'Limits what these results can support',
  caution: 'Read with care',
  note: 'How the design was read',
};

const SEVERITY_ORDER: Severity[] = ['serious', 'caution', 'note'];

export function severityOf(code: string): Severity {
  return (SEVERITY as Record<string, Severity | undefined>)[code] ?? 'caution';
}

function isWarning(value: unknown): value is DocWarning {
  if (typeof value !== 'object' || value === null) return false;
  const w = value as Record<string, unknown>;
  return typeof w.code === 'string' && typeof w.message === 'string' && typeof w.where === 'string';
}

/** The document's warnings (none in a document stored before they existed). */
export function docWarnings(doc: AnalysisDoc | null): DocWarning[] {
  const list: unknown = doc?.warnings;
  return Array.isArray(list) ? list.filter(isWarning) : [];
}

/**
 * Whether a warning's `where` concerns `path`: the same path, or a part of it
 * ("reliability.intra" concerns "reliability"; "conditions[3]" concerns "conditions").
 * A path ending in ".*" stands for everything below it.
 */
export function concerns(where: string, path: string): boolean {
  const base = path.endsWith('.*') ? path.slice(0, -2) : path;
  return where === base || where.startsWith(`${base}.`) || where.startsWith(`${base}[`);
}

/** What a figure shows warnings on: document paths (see `concerns`) and codes wherever they sit. */
export interface FigureScope {
  paths: readonly string[];
  codes?: readonly string[];
}

/** The warnings of a figure: those whose `where` concerns one of its paths, or with one of its codes; in document order. */
export function warningsFor(doc: AnalysisDoc | null, scope: FigureScope): DocWarning[] {
  return docWarnings(doc).filter((w) => scope.paths.some((p) => concerns(w.where, p)) || (scope.codes ?? []).includes(w.code));
}

export interface WarningGroup {
  severity: Severity;
  /** Per `where`, in the order first seen. */
  places: { where: string; warnings: DocWarning[] }[];
}

/** Warnings grouped by severity (serious first), then by what they concern. */
export function groupWarnings(warnings: readonly DocWarning[]): WarningGroup[] {
  return SEVERITY_ORDER.flatMap((severity) => {
    const mine = warnings.filter((w) => severityOf(w.code) === severity);
    if (mine.length === 0) return [];
    const wheres = [...new Set(mine.map((w) => w.where))];
    return [{ severity, places: wheres.map((where) => ({ where, warnings: mine.filter((w) => w.where === where) })) }];
  });
}

/**
 * Where each figure's warnings come from. The factor figures also show how factors were
 * merged or found collinear (the analysis files those under "meta").
 */
export const FIGURE_WHERE = {
  mosPerScenario: { paths: ['conditions'] },
  mosOverFactor: { paths: ['conditions'] },
  factorMos: { paths: ['mos_by_factor'], codes: ['merged_factors', 'collinear_factors'] },
  factorHeatmap: { paths: ['mos_by_factor'], codes: ['merged_factors', 'collinear_factors'] },
  intra: { paths: ['reliability.intra'] },
  inter: { paths: ['reliability.inter'] },
  screening: { paths: ['reliability.*'] },
  participants: { paths: ['reliability.intra'] },
  raterBias: { paths: ['reliability.screening.p913', 'subject_model'] },
  mleQuality: { paths: ['subject_model'] },
  weights: { paths: ['weights'], codes: ['merged_factors', 'collinear_factors'] },
  tree: { paths: ['tree'] },
  thresholds: { paths: ['thresholds', 'joint_model'] },
} as const satisfies Record<string, FigureScope>;

// --- the item's scale and the status of an interval -----------------------------------------------

export interface ScaleRange {
  min: number;
  max: number;
  /** Tick step of the axis (1 on a discrete scale). */
  step: number | null;
}

/** The scale of the item the top level describes (`meta.primary_item` in `items`); ACR 1–5 in older documents. */
export function mosScale(doc: AnalysisDoc | null): ScaleRange {
  const items = doc?.items ?? [];
  const key = doc?.meta.primary_item;
  const item = items.find((i) => i.key === key) ?? (items.length === 1 ? items[0] : undefined);
  const perItem: Record<string, { scale: Gen.Scale } | undefined> = doc?.per_item ?? {};
  const scale = item?.scale ?? (key ? perItem[key]?.scale : undefined);
  if (!scale || !Number.isFinite(scale.min) || !Number.isFinite(scale.max) || scale.max <= scale.min) return { min: 1, max: 5, step: 1 };
  return { min: scale.min, max: scale.max, step: scale.step };
}

/** `ci95_status` of a MOS interval (schema: conditions, mos_by_factor, per-item, subject model). */
export type IntervalStatus = NonNullable<Gen.Condition['ci95_status']>;

export const INTERVAL_TEXT: Record<IntervalStatus, string> = {
  ok: '95 % CI',
  clipped: 'interval clipped to the scale',
  n_too_small: 'n too small for an interval',
};

/** A row with a MOS interval, as any section of the document (or an older one) has it. */
export interface IntervalRow {
  n?: number;
  mos?: number | null;
  ci95_low?: number | null;
  ci95_high?: number | null;
  ci95_status?: unknown;
}

/**
 * The status of a row's interval: the document's `ci95_status`, else (a document stored
 * before intervals were clipped) derived: no MOS → none; no bounds or n < 2 → "n too small";
 * a bound outside the scale → "clipped" (the figure draws it clipped); else "ok".
 */
export function intervalStatus(row: IntervalRow, scale: ScaleRange): IntervalStatus | null {
  const s = row.ci95_status;
  if (s === 'ok' || s === 'clipped' || s === 'n_too_small') return s;
  if (s === 'not_fitted') return null; // the subject model has no estimate of this condition
  if (row.mos === null || row.mos === undefined) return null;
  const { ci95_low: low, ci95_high: high } = row;
  if (low === null || low === undefined || high === null || high === undefined || (row.n !== undefined && row.n < 2)) return 'n_too_small';
  return low < scale.min || high > scale.max ? 'clipped' : 'ok';
}

/** "95 % CI" / "interval clipped to the scale" / "n too small for an interval" ("" without a MOS). */
export function intervalText(status: IntervalStatus | null): string {
  return status === null ? '' : INTERVAL_TEXT[status];
}

/**
 * The figure's legend line for its intervals: how many are clipped (drawn with an open
 * arrow end) and how many have no interval (no whisker); null when every one is ordinary.
 */
export function intervalLegend(statuses: readonly (IntervalStatus | null)[], scale: ScaleRange): string | null {
  const clipped = statuses.filter((s) => s === 'clipped').length;
  const none = statuses.filter((s) => s === 'n_too_small').length;
  const parts = [
    clipped ? `${clipped} interval${clipped === 1 ? '' : 's'} clipped to the scale (${scale.min}–${scale.max}): the whisker ends in an open arrow (⌃) where it was cut` : '',
    none ? `${none} value${none === 1 ? '' : 's'} without a whisker: n too small for an interval` : '',
  ].filter(Boolean);
  return parts.length ? `${parts.join('; ')}.` : null;
}

// --- planning -----------------------------------------------------------------------------------

/** `doc.planning`: raters per condition the design needs (t-interval half-width, screening). */
export type Planning = Gen.Planning;

/** The document's planning hint; null in a document stored before it existed. */
export function docPlanning(doc: AnalysisDoc | null): Planning | null {
  return doc?.planning ?? null;
}

/** The intra-rater rule's need in words: "≥ 4 ratings over ≥ 3 levels". */
export function intraNeed(p: Pick<Planning, 'ratings_per_group_for_intra' | 'levels_per_group_for_intra'>): string {
  return `≥ ${p.ratings_per_group_for_intra} ratings over ≥ ${p.levels_per_group_for_intra} levels`;
}
