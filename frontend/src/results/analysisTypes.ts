/**
 * The analysis document of `qoe_analysis.analyze` (analysis/src/qoe_analysis/report.py,
 * docs/methods.md), as stored in an analysis job's `result`. Only the keys the explorer
 * reads are typed; numbers that could not be computed are `null`.
 */

export const ALL_GAMES = 'all';

export interface Condition {
  scenario: string;
  /** A game name, or "all" for the pooled condition. */
  game: string;
  n: number;
  mos: number | null;
  sos: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
  gob_pct: number | null;
  pow_pct: number | null;
  ds_delay_ms: number;
  us_delay_ms: number;
  ds_loss_pct: number;
  us_loss_pct: number;
  /** Count per score, keys "1".."5". */
  distribution: Record<string, number>;
}

export interface SosFit {
  a: number | null;
  r2: number | null;
  rmse_sos: number | null;
  n_conditions: number;
}

export interface SosSection extends SosFit {
  by_game: Record<string, SosFit>;
}

export interface IntraRater {
  rater_id: string;
  rho: number | null;
  reliable: boolean;
  n_correlations?: number;
  [group: string]: unknown;
}

export interface InterRater {
  game: string;
  group: string;
  scenarios: string[];
  n_raters: number;
  n_pairs: number;
  mean: number | null;
  mean_abs: number | null;
  sd: number | null;
  quantiles: Record<string, number | null>;
}

export interface TreeNode {
  condition?: string;
  n: number;
  counts: Record<string, number>;
  p_acceptable: number | null;
  prediction: 'acceptable' | 'not_acceptable';
  split?: { feature: string; type: 'numeric'; threshold: number } | { feature: string; type: 'nominal'; category: string };
  left?: TreeNode;
  right?: TreeNode;
}

export interface ThresholdValue {
  tree: number | null;
  tree_tested_bracket: [number, number] | null;
  tree_status: string;
  logistic: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
  logistic_status: string;
  resolution_note?: string;
}

export interface DirectionThresholds {
  max_delay_ms: ThresholdValue;
  max_loss_pct: ThresholdValue;
}

export interface PaceThresholds {
  downstream: DirectionThresholds;
  upstream: DirectionThresholds;
  both: DirectionThresholds;
}

export interface AnalysisDoc {
  meta: {
    n_ratings: number;
    n_raters: number;
    n_sessions: number;
    n_ratings_analysed: number;
    acceptable_from: number;
    reliable_only: boolean;
    reliability_cutoff: number;
    games: Record<string, string>;
    factors: string[];
    qoe_analysis_version?: string;
  };
  conditions: Condition[];
  sos_hypothesis: SosSection & {
    formula: string;
    all_raters: SosSection;
    reliable_raters: SosSection | null;
  };
  reliability: {
    cutoff: number;
    scenario_groups: Record<string, Record<string, number>>;
    intra: IntraRater[];
    reliable_raters: string[];
    inter: InterRater[];
    rejected_by_rule: Record<string, string[]>;
  };
  weights: {
    target: string;
    weka: Record<string, number | null>;
    rapidminer: Record<string, number | null>;
    conventions: { weka: string; rapidminer: string };
  };
  tree: {
    method: string;
    training_accuracy: number | null;
    root: TreeNode;
    rules: { text: string; prediction: string; n: number; p_acceptable: number | null }[];
  };
  thresholds: {
    acceptable_from: number;
    criterion: string;
    by_pace: Record<string, PaceThresholds>;
  };
}
