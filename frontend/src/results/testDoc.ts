/** A small, hand-made analysis document (two games, the scenarios the figures need). */
import type { AnalysisDoc, Condition } from './analysisTypes';

function cond(scenario: string, game: string, mos: number | null, dist: [number, number, number, number, number], net: [number, number, number, number] = [0, 0, 0, 0]): Condition {
  const n = dist.reduce((s, v) => s + v, 0);
  return {
    scenario,
    game,
    n,
    mos,
    sos: 0.8,
    ci95_low: mos === null ? null : mos - 0.3,
    ci95_high: mos === null ? null : mos + 0.3,
    gob_pct: 50,
    pow_pct: 10,
    ds_delay_ms: net[0],
    us_delay_ms: net[1],
    ds_loss_pct: net[2],
    us_loss_pct: net[3],
    distribution: Object.fromEntries(dist.map((v, i) => [String(i + 1), v])),
  };
}

export function testDoc(): AnalysisDoc {
  return {
    meta: {
      n_ratings: 40,
      n_raters: 4,
      n_sessions: 4,
      n_ratings_analysed: 40,
      acceptable_from: 3,
      reliable_only: false,
      reliability_cutoff: 0.6,
      games: { racing: 'fast', rpg: 'medium' },
      factors: ['ds_delay_ms', 'us_delay_ms', 'ds_loss_pct', 'us_loss_pct', 'game_pace'],
    },
    conditions: [
      cond('A1', 'racing', 3.5, [0, 0, 1, 0, 1]),
      cond('A2', 'racing', 1.5, [1, 1, 0, 0, 0]),
      cond('B', 'racing', 4.5, [0, 0, 0, 1, 1]),
      cond('D1', 'racing', 3, [0, 1, 0, 1, 0], [80, 80, 0, 0]),
      cond('L1', 'racing', null, [0, 0, 0, 0, 0], [0, 0, 0.3, 0.3]),
      cond('B', 'rpg', 4, [0, 0, 0, 2, 0]),
      cond('D1', 'rpg', 2, [0, 2, 0, 0, 0], [80, 80, 0, 0]),
      cond('L1', 'rpg', 3, [0, 0, 2, 0, 0], [0, 0, 0.3, 0.3]),
      cond('A1', 'rpg', 4, [0, 0, 0, 2, 0]),
      cond('A2', 'rpg', 2, [0, 2, 0, 0, 0]),
      cond('B', 'all', 4.25, [0, 0, 0, 3, 1]),
    ],
    sos_hypothesis: {
      formula: 'SOS^2 = a * (-MOS^2 + 6*MOS - 5)',
      a: 0.25,
      r2: 0.5,
      rmse_sos: 0.1,
      n_conditions: 9,
      by_game: { racing: { a: 0.3, r2: 0.4, rmse_sos: 0.1, n_conditions: 4 }, rpg: { a: 0.2, r2: 0.4, rmse_sos: 0.1, n_conditions: 5 } },
      all_raters: { a: 0.25, r2: 0.5, rmse_sos: 0.1, n_conditions: 9, by_game: {} },
      reliable_raters: { a: 0.2, r2: 0.5, rmse_sos: 0.1, n_conditions: 9, by_game: {} },
    },
    reliability: {
      cutoff: 0.6,
      scenario_groups: { delay_only: { B: 0, D1: 80 }, loss_only: { B: 0, L1: 0.3 } },
      intra: [
        { rater_id: 'P2', rho: -0.9, reliable: true },
        { rater_id: 'P1', rho: 0.5, reliable: false },
        { rater_id: 'P3', rho: -0.7, reliable: true },
        { rater_id: 'P4', rho: null, reliable: false },
      ],
      reliable_raters: ['P2', 'P3'],
      inter: [
        { game: 'racing', group: 'delay_only', scenarios: ['B', 'D1'], n_raters: 2, n_pairs: 1, mean: 0.8, mean_abs: 0.8, sd: 0, quantiles: { q25: 0.8, q50: 0.8, q75: 0.8 } },
        { game: 'rpg', group: 'delay_only', scenarios: ['B', 'D1'], n_raters: 2, n_pairs: 1, mean: 0.5, mean_abs: 0.5, sd: 0, quantiles: { q25: 0.5, q50: 0.5, q75: 0.5 } },
        { game: 'all', group: 'delay_only', scenarios: ['B', 'D1'], n_raters: 4, n_pairs: 6, mean: 0.6, mean_abs: 0.6, sd: 0.1, quantiles: { q25: 0.5, q50: 0.6, q75: 0.7 } },
        { game: 'racing', group: 'loss_only', scenarios: ['B', 'L1'], n_raters: 2, n_pairs: 1, mean: null, mean_abs: null, sd: null, quantiles: {} },
      ],
      rejected_by_rule: { intra_rater: ['P1', 'P4'], p913: ['P1'], straight_lining: [] },
    },
    weights: {
      target: 'acceptable = rating >= 3',
      weka: { ds_delay_ms: 0.2, ds_loss_pct: 0.15, game_pace: 0.01 },
      rapidminer: { ds_delay_ms: 0.6, ds_loss_pct: 1, game_pace: 0 },
      conventions: { weka: 'bits', rapidminer: 'normalised' },
    },
    tree: {
      method: 'REPTree',
      training_accuracy: 0.9,
      root: {
        n: 40,
        counts: { not_acceptable: 15, acceptable: 25 },
        p_acceptable: 0.625,
        prediction: 'acceptable',
        split: { feature: 'ds_loss_pct', type: 'numeric', threshold: 0.65 },
        left: {
          condition: 'ds_loss_pct <= 0.65',
          n: 30,
          counts: { not_acceptable: 8, acceptable: 22 },
          p_acceptable: 0.73,
          prediction: 'acceptable',
          split: { feature: 'game_pace', type: 'nominal', category: 'fast' },
          left: { condition: 'game_pace != fast', n: 20, counts: {}, p_acceptable: 0.9, prediction: 'acceptable' },
          right: { condition: 'game_pace = fast', n: 10, counts: {}, p_acceptable: 0.4, prediction: 'not_acceptable' },
        },
        right: { condition: 'ds_loss_pct > 0.65', n: 10, counts: {}, p_acceptable: 0.1, prediction: 'not_acceptable' },
      },
      rules: [{ text: 'IF ds_loss_pct > 0.65 THEN not_acceptable', prediction: 'not_acceptable', n: 10, p_acceptable: 0.1 }],
    },
    thresholds: {
      acceptable_from: 3,
      criterion: 'P(rating >= 3) >= 0.5',
      by_pace: {
        medium: threshold(),
        fast: threshold(),
      },
    },
  };
}

function threshold() {
  const v = {
    tree: 130,
    tree_tested_bracket: [120, 180] as [number, number],
    tree_status: 'split',
    logistic: 150.123,
    ci95_low: 140,
    ci95_high: 160.5,
    logistic_status: 'ok',
    resolution_note: 'note',
  };
  const none = { ...v, tree: null, tree_tested_bracket: null, tree_status: 'acceptable_at_all_tested_levels', logistic: null, ci95_low: null, ci95_high: null };
  return {
    downstream: { max_delay_ms: v, max_loss_pct: none },
    upstream: { max_delay_ms: none, max_loss_pct: none },
    both: { max_delay_ms: v, max_loss_pct: v },
  };
}
