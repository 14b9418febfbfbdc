/**
 * Factor-generic transforms of the analysis document: which factor columns vary, their
 * labels and levels, the baseline scenario, MOS against one factor and MOS over a
 * factor × factor grid. Everything is read from the document (`meta.network_factors`,
 * `meta.factor_info`, the conditions' factor values), never from scenario codes.
 */
import { ALL_GAMES } from './analysisTypes';
import type { AnalysisDoc, Condition, FactorInfo } from './analysisTypes';

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
  for (const c of doc.conditions) for (const k of Object.keys(c)) if (/^(ds|us)_/.test(k)) seen.add(k);
  return [...seen];
}

/** The factor columns that vary: `meta.network_factors`, else those with ≥ 2 values in the conditions. */
export function varyingFactors(doc: AnalysisDoc): string[] {
  if (doc.meta.network_factors) return [...doc.meta.network_factors];
  return factorColumns(doc).filter((col) => levelsOf(doc, col).length > 1);
}

const DIRECTION_WORD = { downstream: 'Downstream', upstream: 'Upstream' } as const;

/** Direction, key, label and unit of a column: `meta.factor_info`, else parsed from the name. */
export function factorInfo(doc: AnalysisDoc | null, column: string): FactorInfo {
  const known = doc?.meta.factor_info?.[column];
  if (known) return known;
  const m = /^(ds|us)_(.+?)(?:_(ms|pct|kbit))?$/.exec(column);
  const unit = m?.[3] === 'pct' ? '%' : m?.[3] === 'kbit' ? 'kbit/s' : (m?.[3] ?? '');
  const key = m ? `${m[2] ?? ''}${m[3] ? `_${m[3]}` : ''}` : column;
  const label = (m?.[2] ?? column).replace(/_/g, ' ');
  return { direction: m?.[1] === 'us' ? 'upstream' : 'downstream', key, label: label.charAt(0).toUpperCase() + label.slice(1), unit, kind: 'numeric' };
}

/** "Downstream delay (ms)": the axis title of a factor column. */
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
 * The baseline scenario: `B` when present (the design generator's and table 4.1's code),
 * else the scenario with the most varying factors at their lowest tested level.
 */
export function baselineScenario(doc: AnalysisDoc): string | null {
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

// --- pooled MOS with a Student-t 95 % CI --------------------------------------------------

/** t_{0.975, df} for df = 1..30 (the analysis' `stats.t.ppf(0.975, n − 1)`, conditions.py). */
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];

/** Student t 0.975 quantile: the table up to df 30, then the Cornish–Fisher expansion (error < 1e-3). */
export function t975(df: number): number {
  if (df < 1) return Number.NaN;
  const tabled = T975[df - 1];
  if (tabled !== undefined) return tabled;
  const z = 1.959964;
  return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2);
}

export interface Pooled {
  n: number;
  mos: number | null;
  low: number | null;
  high: number | null;
  scenarios: string[];
}

/**
 * MOS of the ratings of several conditions together, from their score distributions:
 * mean, sample SD s, CI = mean ± t_{0.975, n−1}·s/√n (as conditions.py). One condition keeps
 * the analysis' own numbers.
 */
export function pool(conditions: readonly Condition[]): Pooled {
  const scenarios = [...new Set(conditions.map((c) => c.scenario))];
  const only = conditions.length === 1 ? conditions[0] : undefined;
  if (only) return { n: only.n, mos: only.mos, low: only.ci95_low, high: only.ci95_high, scenarios };
  let n = 0;
  let sum = 0;
  let sq = 0;
  for (const c of conditions) {
    for (const [score, k] of Object.entries(c.distribution)) {
      n += k;
      sum += Number(score) * k;
      sq += Number(score) ** 2 * k;
    }
  }
  if (n === 0) return { n: 0, mos: null, low: null, high: null, scenarios };
  const mos = sum / n;
  if (n < 2) return { n, mos, low: null, high: null, scenarios };
  const sd = Math.sqrt(Math.max(0, (sq - n * mos * mos) / (n - 1)));
  const half = (t975(n - 1) * sd) / Math.sqrt(n);
  return { n, mos, low: mos - half, high: mos + half, scenarios };
}

// --- MOS against one factor, and over two factors -----------------------------------------

export type HoldMode = 'baseline' | 'averaged';

function gameConditions(doc: AnalysisDoc, games: readonly string[]): Condition[] {
  const wanted = new Set(games);
  return doc.conditions.filter((c) => c.game !== ALL_GAMES && wanted.has(c.game));
}

/**
 * The conditions where every varying factor other than `free` sits at the baseline
 * scenario's value (`baseline`), or all conditions (`averaged`: the other factors are
 * averaged over the tested combinations, weighted by their ratings).
 */
export function heldConditions(doc: AnalysisDoc, free: readonly string[], mode: HoldMode, conditions: readonly Condition[]): Condition[] {
  if (mode === 'averaged') return [...conditions];
  const base = baselineScenario(doc);
  const ref = base === null ? undefined : scenarioValues(doc).get(base);
  if (!ref) return [];
  const others = varyingFactors(doc).filter((f) => !free.includes(f));
  return conditions.filter((c) => others.every((f) => valueOf(c, f) === valueOf(ref, f)));
}

export interface FactorMosSeries {
  game: string;
  points: ({ level: Level } & Pooled)[];
}

/** MOS per level of `column`, per game (the game "all games" pools every game). */
export function mosAgainstFactor(doc: AnalysisDoc, column: string, games: readonly string[], mode: HoldMode): { levels: Level[]; series: FactorMosSeries[] } {
  const levels = levelsOf(doc, column);
  const series = games.map((game) => {
    const held = heldConditions(doc, [column], mode, gameConditions(doc, game === ALL_GAMES ? Object.keys(doc.meta.games) : [game]));
    return { game, points: levels.map((level) => ({ level, ...pool(held.filter((c) => valueOf(c, column) === level)) })) };
  });
  return { levels, series };
}

export interface GridCell extends Pooled {
  a: Level;
  b: Level;
}

/** MOS of every (level of A, level of B) pair over the given games; untested pairs have n = 0. */
export function factorGrid(doc: AnalysisDoc, a: string, b: string, games: readonly string[], mode: HoldMode): { aLevels: Level[]; bLevels: Level[]; cells: GridCell[] } {
  const aLevels = levelsOf(doc, a);
  const bLevels = levelsOf(doc, b);
  const held = heldConditions(doc, [a, b], mode, gameConditions(doc, games));
  const cells = bLevels.flatMap((lb) => aLevels.map((la) => ({ a: la, b: lb, ...pool(held.filter((c) => valueOf(c, a) === la && valueOf(c, b) === lb)) })));
  return { aLevels, bLevels, cells };
}

/** The caption words for a hold mode, naming the baseline's values. */
export function holdText(doc: AnalysisDoc, free: readonly string[], mode: HoldMode): string {
  const others = varyingFactors(doc).filter((f) => !free.includes(f));
  if (others.length === 0) return 'no other factor varies';
  if (mode === 'averaged') return `the other factors (${others.map((f) => factorTitle(doc, f)).join(', ')}) averaged over the tested combinations`;
  const base = baselineScenario(doc);
  const ref = base === null ? undefined : scenarioValues(doc).get(base);
  if (!ref) return 'the other factors held at baseline (no baseline scenario found)';
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
