/**
 * Pure transforms from the analysis document (and the tidy ratings) to the data of each
 * figure of the results explorer — the equivalents of figures 4.2–4.10 and table 4.2 of
 * the source study. The charts draw exactly these arrays, and "Download CSV" writes them.
 */
import { ALL_GAMES } from './analysisTypes';
import type { AnalysisDoc, Condition, TreeNode } from './analysisTypes';
import { intervalStatus, mosScale } from './evidence';
import type { IntervalStatus } from './evidence';
import { factorTitle } from './factors';

export type RaterGroup = 'all' | 'reliable';

/** Games of the analysis (never the pooled "all"), in the study's order when given. */
export function gameNames(doc: AnalysisDoc, order: readonly string[] = []): string[] {
  const inDoc = Object.keys(doc.meta.games);
  const ordered = order.filter((g) => inDoc.includes(g));
  return [...ordered, ...inDoc.filter((g) => !ordered.includes(g)).sort()];
}

function condition(doc: AnalysisDoc, scenario: string, game: string): Condition | undefined {
  return doc.conditions.find((c) => c.scenario === scenario && c.game === game);
}

/** Scenario codes of the analysis, in the study's order when given (else first-seen). */
export function scenarioCodes(doc: AnalysisDoc, order: readonly string[] = []): string[] {
  const inDoc = [...new Set(doc.conditions.map((c) => c.scenario))];
  const ordered = order.filter((s) => inDoc.includes(s));
  return [...ordered, ...inDoc.filter((s) => !ordered.includes(s))];
}

// --- fig. 4.5: MOS per scenario and game with 95 % CI ---------------------------------------

export interface MosSeries {
  game: string;
  mos: (number | null)[];
  low: (number | null)[];
  high: (number | null)[];
  n: number[];
  /** The interval's `ci95_status` (null: no MOS). */
  status: (IntervalStatus | null)[];
}

export function mosPerScenario(doc: AnalysisDoc, games: readonly string[], scenarios: readonly string[]): { scenarios: string[]; series: MosSeries[] } {
  const scale = mosScale(doc);
  return {
    scenarios: [...scenarios],
    series: games.map((game) => {
      const rows = scenarios.map((s) => condition(doc, s, game));
      return {
        game,
        mos: rows.map((c) => c?.mos ?? null),
        low: rows.map((c) => c?.ci95_low ?? null),
        high: rows.map((c) => c?.ci95_high ?? null),
        n: rows.map((c) => c?.n ?? 0),
        status: rows.map((c) => (c ? intervalStatus(c, scale) : null)),
      };
    }),
  };
}

// --- figs. 4.6 / 4.7: MOS over delay and over loss, all vs reliable raters ----------------

export interface FactorPoint {
  scenario: string;
  x: number;
  mos: number | null;
  low: number | null;
  high: number | null;
  n: number;
  status: IntervalStatus | null;
}

export interface FactorSeries {
  game: string;
  group: RaterGroup;
  points: FactorPoint[];
}

/**
 * MOS at each level of a scenario group of the analysis (`reliability.scenario_groups`;
 * table 4.1: `delay_only`: B, D1–D3 by one-way delay, `loss_only`: B, L1, L2 by loss per
 * direction), per game, for all and for reliable raters.
 */
export function mosOverFactor(
  docs: { all: AnalysisDoc | null; reliable: AnalysisDoc | null },
  group: string,
  games: readonly string[],
): { levels: { scenario: string; x: number }[]; series: FactorSeries[] } {
  const source = docs.all ?? docs.reliable;
  const levelMap = source?.reliability.scenario_groups[group] ?? {};
  const levels = Object.entries(levelMap)
    .map(([scenario, x]) => ({ scenario, x }))
    .sort((a, b) => a.x - b.x);
  const series: FactorSeries[] = [];
  for (const game of games) {
    for (const g of ['all', 'reliable'] as const) {
      const doc = docs[g];
      if (!doc) continue;
      const scale = mosScale(doc);
      series.push({
        game,
        group: g,
        points: levels.map(({ scenario, x }) => {
          const c = condition(doc, scenario, game);
          return { scenario, x, mos: c?.mos ?? null, low: c?.ci95_low ?? null, high: c?.ci95_high ?? null, n: c?.n ?? 0, status: c ? intervalStatus(c, scale) : null };
        }),
      });
    }
  }
  return { levels, series };
}

// --- fig. 4.8: M1 vs M2 heat map ----------------------------------------------------------

export interface TidyRating {
  rater_id: string;
  session_id: string;
  game: string;
  scenario: string;
  rating: number;
}

export interface Heatmap {
  game: string;
  /** counts[m2 - 1][m1 - 1]: sessions that rated M1 = m1 and M2 = m2. */
  counts: number[][];
  sessions: number;
  /** Share of sessions below / on / above the diagonal (M1 better / equal / M2 better). */
  m1Better: number;
  equal: number;
  m2Better: number;
}

export function toTidyRatings(records: readonly Record<string, string>[]): TidyRating[] {
  return records
    .map((r) => ({
      rater_id: r.rater_id ?? '',
      session_id: r.session_id ?? '',
      game: r.game ?? '',
      scenario: r.scenario ?? '',
      rating: Number(r.rating),
    }))
    .filter((r) => r.session_id !== '' && Number.isInteger(r.rating));
}

/** Per game: how often each (M1, M2) score pair occurred in one session. */
export function ratingPairs(
  ratings: readonly TidyRating[],
  games: readonly string[],
  a = 'M1',
  b = 'M2',
  scale = 5,
  raters: ReadonlySet<string> | null = null,
): Heatmap[] {
  return games.map((game) => {
    const counts = Array.from({ length: scale }, () => Array.from({ length: scale }, () => 0));
    const bySession = new Map<string, { a?: number; b?: number }>();
    for (const r of ratings) {
      if (r.game !== game || (raters && !raters.has(r.rater_id))) continue;
      if (r.scenario !== a && r.scenario !== b) continue;
      const key = `${r.rater_id}\u0000${r.session_id}`;
      const entry = bySession.get(key) ?? {};
      if (r.scenario === a) entry.a = r.rating;
      else entry.b = r.rating;
      bySession.set(key, entry);
    }
    let sessions = 0;
    let m1Better = 0;
    let equal = 0;
    for (const { a: x, b: y } of bySession.values()) {
      if (x === undefined || y === undefined || x < 1 || y < 1 || x > scale || y > scale) continue;
      const row = counts[y - 1];
      if (row) row[x - 1] = (row[x - 1] ?? 0) + 1;
      sessions += 1;
      if (x > y) m1Better += 1;
      else if (x === y) equal += 1;
    }
    const share = (k: number) => (sessions ? k / sessions : 0);
    return { game, counts, sessions, m1Better: share(m1Better), equal: share(equal), m2Better: share(sessions - m1Better - equal) };
  });
}

// --- fig. 4.9: CDFs of the ratings of A1 vs A2 --------------------------------------------

export interface CdfSeries {
  game: string;
  scenario: string;
  n: number;
  /** P(rating <= k) for k = 1..5 */
  cdf: number[];
}

export function ratingCdfs(doc: AnalysisDoc, games: readonly string[], scenarios: readonly string[] = ['A1', 'A2'], scale = 5): CdfSeries[] {
  const out: CdfSeries[] = [];
  for (const game of games) {
    for (const scenario of scenarios) {
      // a condition on a continuous scale has no distribution: no CDF to draw
      const distribution = condition(doc, scenario, game)?.distribution;
      if (!distribution) continue;
      const counts = Array.from({ length: scale }, (_, k) => distribution[String(k + 1)] ?? 0);
      const n = counts.reduce((s, v) => s + v, 0);
      let running = 0;
      out.push({
        game,
        scenario,
        n,
        cdf: counts.map((v) => {
          running += v;
          return n ? running / n : 0;
        }),
      });
    }
  }
  return out;
}

// --- fig. 4.3: inter-rater agreement per scenario group ---------------------------------------

export interface InterRow {
  game: string;
  group: string;
  scenarios: string;
  n_raters: number;
  mean: number | null;
  sd: number | null;
  q25: number | null;
  median: number | null;
  q75: number | null;
}

export function interRater(doc: AnalysisDoc, games: readonly string[]): { groups: string[]; rows: InterRow[] } {
  const wanted = new Set([...games, ALL_GAMES]);
  const rows = doc.reliability.inter
    .filter((r) => wanted.has(r.game))
    .map((r) => ({
      game: r.game,
      group: r.group,
      scenarios: r.scenarios.join(' '),
      n_raters: r.n_raters,
      mean: r.mean,
      sd: r.sd,
      // null quantiles: too few rater pairs (e.g. one rater per game)
      q25: r.quantiles?.q25 ?? null,
      median: r.quantiles?.q50 ?? null,
      q75: r.quantiles?.q75 ?? null,
    }));
  const groups = [...new Set(rows.map((r) => r.group))];
  return { groups, rows };
}

// --- fig. 4.4: SOS over MOS with the SOS hypothesis ---------------------------------------

/** SOS(MOS) = sqrt(a · (−MOS² + 6·MOS − 5)) on a 1..5 scale (Hoßfeld et al.). */
export function sosHypothesis(a: number, mos: number): number {
  return Math.sqrt(Math.max(0, a * (-mos * mos + 6 * mos - 5)));
}

export function sosPoints(doc: AnalysisDoc, games: readonly string[]): {
  points: { game: string; scenario: string; mos: number; sos: number; n: number }[];
  a: number | null;
  curve: { mos: number; sos: number }[];
} {
  const wanted = new Set(games);
  const points = doc.conditions.flatMap((c) =>
    wanted.has(c.game) && c.mos !== null && c.sos !== null ? [{ game: c.game, scenario: c.scenario, mos: c.mos, sos: c.sos, n: c.n }] : [],
  );
  const a = games.length === 1 ? (doc.sos_hypothesis.by_game[games[0] ?? '']?.a ?? doc.sos_hypothesis.a) : doc.sos_hypothesis.a;
  const curve = a === null ? [] : Array.from({ length: 41 }, (_, i) => 1 + i * 0.1).map((m) => ({ mos: m, sos: sosHypothesis(a, m) }));
  return { points, a, curve };
}

// --- table 4.2: weights of the factors ----------------------------------------------------

export const FACTOR_LABELS: Record<string, string> = {
  ds_loss_pct: 'Downstream packet loss',
  ds_delay_ms: 'Downstream delay',
  us_loss_pct: 'Upstream packet loss',
  us_delay_ms: 'Upstream delay',
  game_pace: 'Type of game (pace)',
  game: 'Game',
  skill: 'Player skill',
  attitude: 'Player attitude towards cloud gaming',
  age: 'Player age',
  genre_preference: 'Player likes the genre',
  willing_to_pay: 'Willing to pay',
};

/** A factor's label: table 4.2's wording for its factors, else the registry's (`meta.factor_info`). */
export function factorLabel(factor: string, doc: AnalysisDoc | null = null): string {
  const fixed = FACTOR_LABELS[factor];
  if (fixed) return fixed;
  if (/^(ds|us|both)_/.test(factor)) return factorTitle(doc, factor);
  return factor.replace(/_/g, ' ');
}

export function weightRows(doc: AnalysisDoc): { factor: string; label: string; rapidminer: number | null; weka: number | null }[] {
  const factors = [...new Set([...Object.keys(doc.weights.rapidminer), ...Object.keys(doc.weights.weka)])];
  return factors
    .map((factor) => ({ factor, label: factorLabel(factor, doc), rapidminer: doc.weights.rapidminer[factor] ?? null, weka: doc.weights.weka[factor] ?? null }))
    .sort((x, y) => (y.rapidminer ?? -1) - (x.rapidminer ?? -1) || x.factor.localeCompare(y.factor));
}

// --- fig. 4.10: the decision tree, laid out -----------------------------------------------

export interface LaidOutNode {
  id: string;
  x: number;
  depth: number;
  node: TreeNode;
  parent: string | null;
  /** The test on the edge from the parent ("ds_loss_pct <= 0.65"). */
  edge: string | null;
  leaf: boolean;
}

/** Tidy tree layout: leaves get consecutive x slots; an inner node sits above its children. */
/** `collapsed`: ids of inner nodes drawn as leaves (their subtree hidden). */
export function layoutTree(root: TreeNode, collapsed: ReadonlySet<string> = new Set()): { nodes: LaidOutNode[]; width: number; depth: number } {
  const nodes: LaidOutNode[] = [];
  let nextLeaf = 0;
  let maxDepth = 0;
  const visit = (node: TreeNode, id: string, depth: number, parent: string | null): number => {
    maxDepth = Math.max(maxDepth, depth);
    const leaf = !node.left || !node.right;
    const entry: LaidOutNode = { id, x: 0, depth, node, parent, edge: node.condition ?? null, leaf };
    nodes.push(entry);
    if (leaf || !node.left || !node.right || collapsed.has(id)) {
      entry.x = nextLeaf;
      nextLeaf += 1;
    } else {
      const l = visit(node.left, `${id}L`, depth + 1, id);
      const r = visit(node.right, `${id}R`, depth + 1, id);
      entry.x = (l + r) / 2;
    }
    return entry.x;
  };
  visit(root, 'n', 0, null);
  return { nodes, width: nextLeaf, depth: maxDepth };
}

export function splitLabel(node: TreeNode, doc: AnalysisDoc | null = null): string {
  if (!node.split) return '';
  return factorLabel(node.split.feature, doc);
}

// --- KPI thresholds per game class --------------------------------------------------------

export interface ThresholdRow {
  pace: string;
  direction: string;
  quantity: 'delay' | 'jitter' | 'loss';
  unit: string;
  tree: number | null;
  bracket: string;
  status: string;
  logistic: number | null;
  ci95: string;
  note: string;
}

const PACE_ORDER = ['fast', 'medium', 'slow', 'all'];

export function thresholdRows(doc: AnalysisDoc, paces: readonly string[] | null = null): ThresholdRow[] {
  const rows: ThresholdRow[] = [];
  const entries = Object.entries(doc.thresholds.by_pace)
    .filter(([pace]) => paces === null || paces.includes(pace))
    .sort(([a], [b]) => PACE_ORDER.indexOf(a) - PACE_ORDER.indexOf(b));
  for (const [pace, byDirection] of entries) {
    for (const direction of ['downstream', 'upstream', 'both'] as const) {
      const d = byDirection[direction];
      // only the KPIs whose factor varies are present
      for (const [quantity, key, unit] of [
        ['delay', 'max_delay_ms', 'ms'],
        ['jitter', 'max_jitter_ms', 'ms'],
        ['loss', 'max_loss_pct', '%'],
      ] as const) {
        const v = d?.[key];
        if (!v) continue;
        rows.push({
          pace,
          direction,
          quantity,
          unit,
          tree: v.tree,
          bracket: v.tree_tested_bracket ? `${v.tree_tested_bracket[0]}–${v.tree_tested_bracket[1]}` : '',
          status: v.tree_status,
          logistic: v.logistic,
          ci95: v.ci95_low !== null && v.ci95_high !== null ? `${round(v.ci95_low)}–${round(v.ci95_high)}` : '',
          note: v.resolution_note ?? '',
        });
      }
    }
  }
  return rows;
}

export function round(value: number | null, digits = 2): string {
  if (value === null || !Number.isFinite(value)) return '—';
  return String(Math.round(value * 10 ** digits) / 10 ** digits);
}
