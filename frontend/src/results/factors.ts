/**
 * Factor-generic readers of the analysis document: which factor columns vary, their labels
 * and levels, the baseline scenario, and the MOS against one factor or over a factor × factor
 * grid. Everything is read from the document (`meta.network_factors`, `meta.factor_info`,
 * the conditions' factor values, `mos_by_factor`), never from scenario codes; the MOS and
 * their CIs are the analysis' own, nothing is pooled here.
 */
import { ALL_GAMES } from './analysisTypes';
import type { AnalysisDoc, Condition, FactorInfo, MosByFactor } from './analysisTypes';

/** The four network factors of the dissertation's table 4.1 (documents stored before the registry). */
export const TABLE41_FACTORS = ['ds_delay_ms', 'us_delay_ms', 'ds_loss_pct', 'us_loss_pct'] as const;

export type Level = number | string;

/** A condition's value of a factor column (null when the column is absent). */
export function valueOf(c: Condition, column: string): Level | null {
  const v = (c as unknown as Record<string, unknown>)[column];
  return typeof v === 'number' || typeof v === 'string' ? v : null;
}

/** Factor columns present in the conditions (registry order from `factor_info` when given). */
export function factorColumns(doc: AnalysisDoc): string[] {
  const info = doc.meta.factor_info;
  if (info) return Object.keys(info);
  const seen = new Set<string>();
  for (const c of doc.conditions) for (const k of Object.keys(c)) if (/^(ds|us|both)_/.test(k)) seen.add(k);
  return [...seen];
}

/**
 * `meta.merged_factors`: a factor whose downstream and upstream columns are equal in every
 * rating ("both directions, same level") is one factor `both_X` for the analysis, e.g.
 * `{"both_jitter_ms": ["ds_jitter_ms", "us_jitter_ms"]}`. Empty in older documents.
 */
export function mergedFactors(doc: AnalysisDoc | null): Record<string, string[]> {
  return doc?.meta.merged_factors ?? {};
}

/**
 * The factor columns that vary: `meta.network_factors`, else those with ≥ 2 values in the
 * conditions; the columns of a merged factor appear once, as the merged factor (at the
 * place of its first column), since the analysis computed its figures for that one factor.
 */
export function varyingFactors(doc: AnalysisDoc): string[] {
  const base = doc.meta.network_factors ? [...doc.meta.network_factors] : factorColumns(doc).filter((col) => levelsOf(doc, col).length > 1);
  const merged = Object.entries(mergedFactors(doc));
  if (merged.length === 0) return base;
  const owner = new Map(merged.flatMap(([name, cols]) => cols.map((c) => [c, name] as const)));
  return [...new Set(base.map((f) => owner.get(f) ?? f))];
}

/** A factor's direction; "both": one factor set to the same level in both directions. */
export type Direction = FactorInfo['direction'];

const DIRECTION_WORD: Record<Direction, string> = { downstream: 'Downstream', upstream: 'Upstream', both: 'Both directions:' };

/** Direction, key, label and unit of a column: `meta.factor_info`, else parsed from the name. */
export function factorInfo(doc: AnalysisDoc | null, column: string): FactorInfo {
  const known = doc?.meta.factor_info?.[column];
  if (known) return known;
  const m = /^(ds|us|both)_(.+?)(?:_(ms|pct|kbit))?$/.exec(column);
  const unit = m?.[3] === 'pct' ? '%' : m?.[3] === 'kbit' ? 'kbit/s' : (m?.[3] ?? '');
  const key = m ? `${m[2] ?? ''}${m[3] ? `_${m[3]}` : ''}` : column;
  const label = (m?.[2] ?? column).replace(/_/g, ' ');
  const direction: Direction = m?.[1] === 'us' ? 'upstream' : m?.[1] === 'both' ? 'both' : 'downstream';
  return { direction, key, label: label.charAt(0).toUpperCase() + label.slice(1), unit, kind: 'numeric' };
}

/** "Downstream delay (ms)", "Both directions: jitter (ms)": the axis title of a factor column. */
export function factorTitle(doc: AnalysisDoc | null, column: string): string {
  const info = factorInfo(doc, column);
  const label = `${DIRECTION_WORD[info.direction]} ${info.label.charAt(0).toLowerCase()}${info.label.slice(1)}`;
  return info.unit ? `${label} (${info.unit})` : label;
}

export function formatLevel(doc: AnalysisDoc | null, column: string, level: Level | null): string {
  if (level === null) return '—';
  const unit = factorInfo(doc, column).unit;
  return typeof level === 'number' && unit ? `${level} ${unit}` : String(level);
}

function compareLevels(a: Level, b: Level): number {
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
}

/** The distinct values a column takes over the conditions, sorted. */
export function levelsOf(doc: AnalysisDoc, column: string): Level[] {
  const values = new Set<Level>();
  for (const c of doc.conditions) {
    const v = valueOf(c, column);
    if (v !== null) values.add(v);
  }
  return [...values].sort(compareLevels);
}

/** The scenarios of the document with their factor values (first condition seen per scenario). */
export function scenarioValues(doc: AnalysisDoc): Map<string, Condition> {
  const out = new Map<string, Condition>();
  for (const c of doc.conditions) if (!out.has(c.scenario)) out.set(c.scenario, c);
  return out;
}

/**
 * The baseline scenario: the analysis' (`mos_by_factor.baseline_scenario`) when the document
 * has that section; else `B` when present (the design generator's and table 4.1's code), else
 * the scenario with the most varying factors at their lowest tested level.
 */
export function baselineScenario(doc: AnalysisDoc): string | null {
  const section = mosByFactor(doc);
  if (section) return section.baseline_scenario;
  const scenarios = scenarioValues(doc);
  if (scenarios.has('B')) return 'B';
  const factors = varyingFactors(doc);
  let best: string | null = null;
  let bestScore = -1;
  for (const [code, c] of scenarios) {
    const score = factors.filter((f) => valueOf(c, f) === levelsOf(doc, f)[0]).length;
    if (score > bestScore) [best, bestScore] = [code, score];
  }
  return best;
}

// --- MOS against one factor, and over two factors (the analysis' `mos_by_factor`) ------------

export type HoldMode = MosByFactor['hold_modes'][number];
export type FactorPoint = MosByFactor['single'][number]['points'][number];
export type FactorCell = MosByFactor['pairs'][number]['cells'][number];

/** What the factor figures say for a document stored before the analysis wrote `mos_by_factor`. */
export const NEEDS_RERUN = 'this figure needs a re-run of the analysis: the stored result predates the MOS-by-factor section';

/** The document's MOS-by-factor section, or null in a document stored before it existed. */
export function mosByFactor(doc: AnalysisDoc): MosByFactor | null {
  return doc.mos_by_factor ?? null;
}

/** The "all games" key of the section, as the explorer labels it. */
export function gameLabel(game: string): string {
  return game === ALL_GAMES ? 'all games' : game;
}

/**
 * Which of the section's game keys show the explorer's game filter: one game → that game;
 * every game of the study → `all` (pooled by the analysis), with each game beside it when
 * `perGame`; a strict subset of two or more → each selected game (the analysis pools only
 * over every game, so a subset is not pooled).
 */
export function gameKeys(doc: AnalysisDoc, games: readonly string[], perGame: boolean): string[] {
  const selected = games.filter((g) => g !== ALL_GAMES);
  if (selected.length <= 1) return selected;
  const every = Object.keys(doc.meta.games).every((g) => selected.includes(g));
  if (!every) return selected;
  return perGame ? [...selected, ALL_GAMES] : [ALL_GAMES];
}

export interface FactorSeries {
  game: string;
  points: FactorPoint[];
}

/** The section's points of `factor` per game key (an entry the section lacks has no points). */
export function factorSeries(section: MosByFactor, factor: string, games: readonly string[], hold: HoldMode): FactorSeries[] {
  return games.map((game) => ({ game, points: section.single.find((s) => s.factor === factor && s.game === game && s.hold === hold)?.points ?? [] }));
}

export interface FactorGrid {
  game: string;
  aLevels: Level[];
  bLevels: Level[];
  cells: FactorCell[];
}

function distinct(values: readonly Level[]): Level[] {
  return [...new Set(values)];
}

/**
 * The section's cells of the pair (`a` across, `b` down) for one game key. The analysis
 * stores each unordered pair once, in registry order; the other order swaps a and b.
 */
export function factorGrid(section: MosByFactor, a: string, b: string, game: string, hold: HoldMode): FactorGrid {
  const entry = section.pairs.find((p) => p.game === game && p.hold === hold && ((p.factors[0] === a && p.factors[1] === b) || (p.factors[0] === b && p.factors[1] === a)));
  const swapped = entry?.factors[0] === b;
  const cells = (entry?.cells ?? []).map((c) => (swapped ? { ...c, a: c.b, b: c.a } : c));
  return { game, aLevels: distinct(cells.map((c) => c.a)), bLevels: distinct(cells.map((c) => c.b)), cells };
}

/** The analysis' notes on the given factors (e.g. why a factor has no baseline series). */
export function factorNotes(section: MosByFactor | null, factors: readonly string[]): string[] {
  return factors.flatMap((f) => {
    const note = section?.notes[f];
    return note ? [note] : [];
  });
}

/** The caption words for a hold mode, naming the baseline's values. */
export function holdText(doc: AnalysisDoc, free: readonly string[], mode: HoldMode): string {
  const others = varyingFactors(doc).filter((f) => !free.includes(f));
  if (others.length === 0) return 'no other factor varies';
  if (mode === 'averaged') return `the other factors (${others.map((f) => factorTitle(doc, f)).join(', ')}) averaged over the tested combinations`;
  const base = baselineScenario(doc);
  const ref = base === null ? undefined : scenarioValues(doc).get(base);
  if (!ref) return 'the other factors held at baseline (no baseline scenario)';
  return `the other factors held at baseline (scenario ${base ?? ''}: ${others.map((f) => `${factorTitle(doc, f)} = ${formatLevel(doc, f, valueOf(ref, f))}`).join(', ')})`;
}

// --- the dissertation's table 4.1 ------------------------------------------------------------

/** Table 4.1 (analysis/src/qoe_analysis/tidy/design.py): code → ds_delay_ms, us_delay_ms, ds_loss_pct, us_loss_pct. */
export const TABLE41: Record<string, [number, number, number, number]> = {
  B: [0, 0, 0, 0],
  D1: [80, 80, 0, 0],
  D2: [200, 200, 0, 0],
  D3: [300, 300, 0, 0],
  L1: [0, 0, 0.3, 0.3],
  L2: [0, 0, 1, 1],
  M1: [40, 40, 1.5, 1.5],
  M2: [180, 180, 0.3, 0.3],
  A1: [0, 120, 0, 1],
  A2: [120, 0, 1, 0],
};

/**
 * Whether the design is the dissertation's table 4.1: its scenarios are exactly the ten
 * codes with those values, and no factor besides its four varies.
 */
export function isTable41(doc: AnalysisDoc): boolean {
  const scenarios = scenarioValues(doc);
  const codes = Object.keys(TABLE41);
  if (scenarios.size !== codes.length || !codes.every((c) => scenarios.has(c))) return false;
  if (varyingFactors(doc).some((f) => !(TABLE41_FACTORS as readonly string[]).includes(f))) return false;
  return codes.every((code) => {
    const c = scenarios.get(code);
    return c !== undefined && TABLE41_FACTORS.every((f, i) => valueOf(c, f) === TABLE41[code]?.[i]);
  });
}
