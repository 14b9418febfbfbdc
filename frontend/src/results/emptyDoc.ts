import type { AnalysisDoc, NoteSection } from './analysisTypes';

/** Why every section is empty before the first completed session. */
export const NO_RATINGS_REASON = 'no completed session yet: the analysis needs ratings';

const SECTIONS: NoteSection[] = [
  'sos_hypothesis',
  'reliability.intra',
  'reliability.inter',
  'weights',
  'tree',
  'thresholds',
  'subject_model',
];

/**
 * The analysis document of a study without ratings. The backend refuses to analyse an empty
 * study (nothing to compute, no job to store); the explorer still shows each figure with
 * the reason it is not computable yet, so it draws from this instead of a blank page.
 */
export function emptyAnalysisDoc(games: Record<string, string>): AnalysisDoc {
  const noFit = { a: null, r2: null, rmse_sos: null, n_conditions: 0 };
  return {
    meta: {
      n_ratings: 0,
      n_raters: 0,
      n_sessions: 0,
      n_ratings_analysed: 0,
      acceptable_from: 3,
      reliable_only: false,
      reliability_cutoff: 0.6,
      games,
      factors: [],
      network_factors: [],
      constant_factors: {},
      factor_info: {},
    },
    notes: Object.fromEntries(SECTIONS.map((s) => [s, NO_RATINGS_REASON])),
    conditions: [],
    sos_hypothesis: { formula: 'SOS^2 = a * (-MOS^2 + 6*MOS - 5)', ...noFit, by_game: {}, all_raters: { ...noFit, by_game: {} }, reliable_raters: null },
    reliability: { cutoff: 0.6, scenario_groups: {}, intra: [], reliable_raters: [], inter: [], rejected_by_rule: {} },
    weights: { target: 'acceptable = rating >= 3', weka: {}, rapidminer: {}, conventions: { weka: 'bits', rapidminer: 'normalised' } },
    tree: { method: 'REPTree', training_accuracy: null, root: null, rules: [] },
    thresholds: { acceptable_from: 3, criterion: 'P(rating >= 3) >= 0.5', by_pace: {} },
  };
}
