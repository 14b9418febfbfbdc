/**
 * Analysis documents for the tests, built from explicit ratings: the table-4.1 study (an
 * old stored document, without the registry keys and without `mos_by_factor`), a 3 × 3 grid
 * (delay 0/100/200 ms downstream × loss 0/1/3 % upstream, jitter 10 ms each way constant,
 * one Gilbert–Elliott scenario), one session only, one rater per game, and an empty study.
 *
 * The statistics (`conditions`, `mos_by_factor`) are the analysis' own, never computed here:
 * `fixtureAnalyses.json` holds those sections of `qoe-analysis analyze <name>.csv`, where the
 * CSV is `ratingsCsv(<fixture>())` (`grid`, `one_session`, `one_rater_per_game`, `table41`).
 * Regenerate it when the ratings below change (fixtures.test.ts checks the counts agree).
 * The other sections (raters, tree, thresholds, notes) are set by hand for the figures' tests.
 */
import { ALL_GAMES } from './analysisTypes';
import type { AnalysisDoc, FactorInfo, IntraRater, RaterStatus } from './analysisTypes';
import { TABLE41 } from './factors';
import analysed from './fixtureAnalyses.json';
import type { TidyRating } from './transforms';

type Values = Record<string, number>;

export interface Fixture {
  doc: AnalysisDoc;
  ratings: TidyRating[];
  /** The factor values of each scenario. */
  scenarios: Record<string, Values>;
}

type FixtureName = keyof typeof analysed;

/**
 * The sections the analysis computed on a fixture's ratings (see the file's header); a
 * fixture without an entry (no ratings) has no condition and an empty MOS-by-factor section.
 */
function analysis(name: FixtureName | null): Pick<AnalysisDoc, 'conditions' | 'mos_by_factor'> {
  if (name === null) return { conditions: [], mos_by_factor: { method: 'none', baseline_scenario: null, hold_modes: ['baseline', 'averaged'], single: [], pairs: [], notes: {} } };
  // the JSON is the analysis' output: typed by the document's contract, not by inference
  return JSON.parse(JSON.stringify(analysed[name])) as Pick<AnalysisDoc, 'conditions' | 'mos_by_factor'>;
}

interface Spec {
  games: Record<string, string>;
  scenarios: Record<string, Values>;
  /** rater → [game, sessions] */
  raters: Record<string, [string, number]>;
  score: (scenario: Values, rater: number, session: number, game: string) => number;
  factorInfo?: Record<string, FactorInfo>;
  networkFactors?: string[];
  constant?: Record<string, number>;
}

function ratingsOf(spec: Spec): TidyRating[] {
  const out: TidyRating[] = [];
  Object.entries(spec.raters).forEach(([rater, [game, sessions]], r) => {
    for (let s = 0; s < sessions; s += 1) {
      for (const [scenario, values] of Object.entries(spec.scenarios)) {
        const raw = Math.round(spec.score(values, r, s, game));
        out.push({ rater_id: rater, session_id: `${rater}-S${s + 1}`, game, scenario, rating: Math.min(5, Math.max(1, raw)) });
      }
    }
  });
  return out;
}

/** The fixture's ratings as the tidy CSV the analysis reads (with pace and factor columns). */
export function ratingsCsv({ doc, ratings, scenarios }: Fixture): string {
  const columns = Object.keys(Object.values(scenarios)[0] ?? {});
  const lines = [['rater_id', 'session_id', 'game', 'game_pace', 'scenario', ...columns, 'rating'].join(',')];
  for (const r of ratings) {
    const factorValues = columns.map((c) => String(scenarios[r.scenario]?.[c]));
    lines.push([r.rater_id, r.session_id, r.game, doc.meta.games[r.game] ?? '', r.scenario, ...factorValues, r.rating].join(','));
  }
  return `${lines.join('\n')}\n`;
}

function intra(raters: string[], status: (rater: string, i: number) => [number | null, RaterStatus]): IntraRater[] {
  return raters.map((rater_id, i) => {
    const [rho, st] = status(rater_id, i);
    const reason = st === 'not_assessable' ? 'Spearman rho undefined: constant ratings in every factor group (or no group)' : `|rho| = ${Math.abs(rho ?? 0).toFixed(3)} ${st === 'reliable' ? '>' : '<='} 0.6`;
    return { rater_id, rho, reliable: st === 'reliable', n_correlations: rho === null ? 0 : 2, status: st, reason };
  });
}

function baseDoc(spec: Spec, ratings: TidyRating[], name: FixtureName | null): AnalysisDoc {
  const raters = Object.keys(spec.raters);
  const empty = { a: null, r2: null, rmse_sos: null, n_conditions: 0 };
  const doc: AnalysisDoc = {
    meta: {
      n_ratings: ratings.length,
      n_raters: raters.length,
      n_sessions: new Set(ratings.map((r) => r.session_id)).size,
      n_ratings_analysed: ratings.length,
      acceptable_from: 3,
      reliable_only: false,
      reliability_cutoff: 0.6,
      games: spec.games,
      factors: [...(spec.networkFactors ?? []), 'game_pace'],
    },
    ...analysis(name),
    sos_hypothesis: { formula: 'SOS^2 = a * (-MOS^2 + 6*MOS - 5)', ...empty, by_game: {}, all_raters: { ...empty, by_game: {} }, reliable_raters: null },
    reliability: { cutoff: 0.6, scenario_groups: {}, intra: [], reliable_raters: [], inter: [], rejected_by_rule: {} },
    weights: { target: 'acceptable = rating >= 3', weka: {}, rapidminer: {}, conventions: { weka: 'bits', rapidminer: 'normalised' } },
    tree: { method: 'REPTree', training_accuracy: null, root: null, rules: [] },
    thresholds: { acceptable_from: 3, criterion: 'P(rating >= 3) >= 0.5', by_pace: {} },
  };
  if (spec.factorInfo) {
    doc.meta.factor_info = spec.factorInfo;
    doc.meta.network_factors = spec.networkFactors ?? [];
    doc.meta.constant_factors = spec.constant ?? {};
  }
  return doc;
}

// --- the 3 × 3 grid ---------------------------------------------------------------------------

const info = (direction: 'downstream' | 'upstream', key: string, label: string, unit: string): FactorInfo => ({ direction, key, label, unit, kind: 'numeric' });

const GRID_INFO: Record<string, FactorInfo> = {
  ds_delay_ms: info('downstream', 'delay_ms', 'Delay', 'ms'),
  ds_jitter_ms: info('downstream', 'jitter_ms', 'Jitter', 'ms'),
  ds_loss_pct: info('downstream', 'loss_pct', 'Loss', '%'),
  us_delay_ms: info('upstream', 'delay_ms', 'Delay', 'ms'),
  us_jitter_ms: info('upstream', 'jitter_ms', 'Jitter', 'ms'),
  us_loss_pct: info('upstream', 'loss_pct', 'Loss', '%'),
  us_ge_p_pct: info('upstream', 'ge_p_pct', 'Burst loss: p (good→bad)', '%'),
  us_ge_r_pct: info('upstream', 'ge_r_pct', 'Burst loss: r (bad→good)', '%'),
};

function gridScenarios(): Record<string, Values> {
  const out: Record<string, Values> = {};
  for (const d of [0, 100, 200]) {
    for (const l of [0, 1, 3]) {
      const code = d === 0 && l === 0 ? 'B' : `D${d}L${l}`;
      out[code] = { ds_delay_ms: d, ds_jitter_ms: 10, ds_loss_pct: 0, us_delay_ms: 0, us_jitter_ms: 10, us_loss_pct: l, us_ge_p_pct: 0, us_ge_r_pct: 100 };
    }
  }
  out.GE = { ds_delay_ms: 0, ds_jitter_ms: 10, ds_loss_pct: 0, us_delay_ms: 0, us_jitter_ms: 10, us_loss_pct: 0, us_ge_p_pct: 5, us_ge_r_pct: 50 };
  return out;
}

const gridScore = (v: Values, r: number, s: number, game: string) =>
  5 - (v.ds_delay_ms ?? 0) / 80 - (v.us_loss_pct ?? 0) * 0.5 - (v.us_ge_p_pct ?? 0) / 4 - (game === 'racing' ? 0.4 : 0) + (((r + s) % 3) - 1) * 0.6;

/** The 3 × 3 grid with two games, two raters per game, two sessions each. */
export function gridFixture(): Fixture {
  const spec: Spec = {
    games: { racing: 'fast', rpg: 'medium' },
    scenarios: gridScenarios(),
    raters: { P1: ['racing', 2], P2: ['racing', 2], P3: ['rpg', 2], P4: ['rpg', 2] },
    score: gridScore,
    factorInfo: GRID_INFO,
    networkFactors: ['ds_delay_ms', 'us_loss_pct', 'us_ge_p_pct', 'us_ge_r_pct'],
    constant: { ds_jitter_ms: 10, us_jitter_ms: 10, ds_loss_pct: 0, us_delay_ms: 0 },
  };
  const ratings = ratingsOf(spec);
  const doc = baseDoc(spec, ratings, 'grid');
  doc.reliability.scenario_groups = { delay_only: { B: 0, D100L0: 100, D200L0: 200 }, loss_only: { B: 0, D0L1: 1, D0L3: 3 } };
  doc.reliability.intra = intra(['P1', 'P2', 'P3', 'P4'], (_, i) => (i === 3 ? [0.4, 'unreliable'] : [-0.9 + i * 0.05, 'reliable']));
  doc.reliability.reliable_raters = ['P1', 'P2', 'P3'];
  doc.reliability.inter = [{ game: 'racing', group: 'delay_only', scenarios: ['B', 'D100L0', 'D200L0'], n_raters: 2, n_pairs: 1, mean: 0.9, mean_abs: 0.9, sd: null, quantiles: null }];
  doc.subject_model = {
    status: 'ok',
    raters: ['P1', 'P2', 'P3', 'P4'].map((rater_id, i) => ({ rater_id, n: 20, bias: (i - 1.5) * 0.2, inconsistency: 0.5 + i * 0.1, status: 'fitted' })),
  };
  doc.weights.weka = { ds_delay_ms: 0.4, us_loss_pct: 0.2, us_ge_p_pct: 0.05, us_ge_r_pct: 0.05, game_pace: 0.01 };
  doc.weights.rapidminer = { ds_delay_ms: 1, us_loss_pct: 0.5, us_ge_p_pct: 0.1, us_ge_r_pct: 0.1, game_pace: 0 };
  doc.tree = {
    method: 'REPTree',
    training_accuracy: 0.8,
    root: {
      n: 80,
      counts: {},
      p_acceptable: 0.6,
      prediction: 'acceptable',
      split: { feature: 'ds_delay_ms', type: 'numeric', threshold: 150 },
      left: { condition: 'ds_delay_ms <= 150', n: 53, counts: {}, p_acceptable: 0.8, prediction: 'acceptable' },
      right: { condition: 'ds_delay_ms > 150', n: 27, counts: {}, p_acceptable: 0.2, prediction: 'not_acceptable' },
    },
    rules: [{ text: 'IF ds_delay_ms > 150 THEN not_acceptable', prediction: 'not_acceptable', n: 27, p_acceptable: 0.2 }],
  };
  const kpi = { tree: 150, tree_tested_bracket: [100, 200] as [number, number], tree_status: 'split', logistic: null, ci95_low: null, ci95_high: null, logistic_status: 'not_identifiable' };
  doc.thresholds.by_pace = { fast: { downstream: { max_delay_ms: kpi }, upstream: { max_loss_pct: { ...kpi, tree: 2, tree_tested_bracket: [1, 3] } } } };
  doc.notes = { sos_hypothesis: 'needs conditions with at least 2 ratings in every game (this fixture leaves it out on purpose)' };
  return { doc, ratings, scenarios: spec.scenarios };
}

// --- pilot data ---------------------------------------------------------------------------------

const PILOT_NOTES = {
  sos_hypothesis: 'needs ≥ 2 ratings per condition',
  'reliability.intra': 'needs a scenario group that varies one factor alone',
  'reliability.inter': 'needs ≥ 2 raters per game',
  weights: 'needs ratings on both sides of the acceptability cut-off',
  tree: 'needs ≥ 2 raters per game',
  thresholds: 'needs ≥ 2 raters per game',
  subject_model: 'needs ≥ 2 raters who rated the same conditions',
} as const;

function pilot(raters: Spec['raters'], name: FixtureName | null): Fixture {
  const spec: Spec = {
    games: { racing: 'fast', rpg: 'medium' },
    scenarios: gridScenarios(),
    raters,
    score: gridScore,
    factorInfo: GRID_INFO,
    networkFactors: ['ds_delay_ms', 'us_loss_pct', 'us_ge_p_pct', 'us_ge_r_pct'],
    constant: { ds_jitter_ms: 10, us_jitter_ms: 10 },
  };
  const ratings = ratingsOf(spec);
  const doc = baseDoc(spec, ratings, name);
  doc.meta.games = Object.fromEntries(Object.entries(spec.games).filter(([g]) => ratings.some((r) => r.game === g)));
  doc.reliability.intra = intra(Object.keys(raters), () => [null, 'not_assessable']);
  doc.reliability.inter = [{ game: 'racing', group: 'delay_only', scenarios: ['B', 'D100L0', 'D200L0'], n_raters: 1, n_pairs: 0, mean: null, mean_abs: null, sd: null, quantiles: null }];
  doc.subject_model = { status: 'not_identifiable', raters: [], not_identifiable: [{ reason: PILOT_NOTES.subject_model }] };
  doc.notes = { ...PILOT_NOTES };
  return { doc, ratings, scenarios: spec.scenarios };
}

/** One completed session: one rater, one game. */
export function oneSessionFixture(): Fixture {
  return pilot({ P1: ['racing', 1] }, 'one_session');
}

/** A pilot with one rater per game. */
export function oneRaterPerGameFixture(): Fixture {
  return pilot({ P1: ['racing', 1], P2: ['rpg', 1] }, 'one_rater_per_game');
}

/** A study without any rating. */
export function emptyFixture(): Fixture {
  const fixture = pilot({}, null);
  fixture.doc.meta.games = {};
  return fixture;
}

// --- table 4.1 (a document stored before the factor registry) ---------------------------------

/** The example study's design with three games and three raters per game (old document shape). */
export function table41Fixture(): Fixture {
  const scenarios = Object.fromEntries(
    Object.entries(TABLE41).map(([code, [dd, ud, dl, ul]]) => [code, { ds_delay_ms: dd, us_delay_ms: ud, ds_loss_pct: dl, us_loss_pct: ul }]),
  );
  const spec: Spec = {
    games: { racing: 'fast', rpg: 'medium', soccer: 'slow' },
    scenarios,
    raters: { R1: ['racing', 1], R2: ['racing', 1], R3: ['racing', 1], G1: ['rpg', 1], G2: ['rpg', 1], G3: ['rpg', 1], S1: ['soccer', 1], S2: ['soccer', 1], S3: ['soccer', 1] },
    score: (v, r, _s, game) => 5 - ((v.ds_delay_ms ?? 0) + (v.us_delay_ms ?? 0)) / 200 - ((v.ds_loss_pct ?? 0) + (v.us_loss_pct ?? 0)) - (game === 'racing' ? 0.5 : 0) + ((r % 3) - 1) * 0.5,
  };
  const ratings = ratingsOf(spec);
  const doc = baseDoc(spec, ratings, 'table41');
  doc.meta.factors = ['ds_delay_ms', 'us_delay_ms', 'ds_loss_pct', 'us_loss_pct', 'game_pace'];
  doc.reliability.scenario_groups = { delay_only: { B: 0, D1: 80, D2: 200, D3: 300 }, loss_only: { B: 0, L1: 0.3, L2: 1 } };
  // old documents: no status/reason (the explorer derives them from `reliable` and ρ)
  doc.reliability.intra = Object.keys(spec.raters).map((rater_id, i) => ({ rater_id, rho: -0.95 + i * 0.05, reliable: true }));
  doc.reliability.reliable_raters = Object.keys(spec.raters);
  doc.reliability.inter = ['racing', 'rpg', 'soccer', ALL_GAMES].flatMap((game) =>
    ['delay_only', 'loss_only'].map((group) => ({ game, group, scenarios: group === 'delay_only' ? ['B', 'D1', 'D2', 'D3'] : ['B', 'L1', 'L2'], n_raters: 3, n_pairs: 3, mean: 0.8, mean_abs: 0.8, sd: 0.1, quantiles: { q25: 0.7, q50: 0.8, q75: 0.9 } })),
  );
  doc.sos_hypothesis = { ...doc.sos_hypothesis, a: 0.2, r2: 0.5, rmse_sos: 0.1, n_conditions: 30, all_raters: { a: 0.2, r2: 0.5, rmse_sos: 0.1, n_conditions: 30, by_game: {} } };
  return { doc, ratings, scenarios: spec.scenarios };
}
