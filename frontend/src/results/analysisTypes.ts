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
  /** Count per score, keys "1".."5". */
  distribution: Record<string, number>;
  /**
   * Every factor column present in the data (`ds_<key>` / `us_<key>`, see
   * `meta.factor_info`): its value in this scenario. Documents stored before the factor
   * registry carry only the four of table 4.1.
   */
  [factor: `ds_${string}` | `us_${string}`]: number | string | null | undefined;
}

/** One factor column of the data (`meta.factor_info`, from netem_profile.factors). */
export interface FactorInfo {
  direction: 'downstream' | 'upstream';
  key: string;
  label: string;
  unit: string;
  kind: 'numeric' | 'nominal';
}

/** Analysis sections that can be "not computable yet", each with a plain-words reason. */
export type NoteSection = 'sos_hypothesis' | 'reliability.intra' | 'reliability.inter' | 'weights' | 'tree' | 'thresholds' | 'subject_model';

export type RaterStatus = 'reliable' | 'unreliable' | 'not_assessable';

/** One rater of the subject model (bias and inconsistency, ITU-T P.910 annex; report.py). */
export interface SubjectRater {
  rater_id: string;
  n?: number;
  /** Δ: mean zero over the fitted raters of a block; `null` when the rater is not fitted. */
  bias: number | null;
  bias_se?: number | null;
  bias_ci95_low?: number | null;
  bias_ci95_high?: number | null;
  /** υ: the standard deviation of the rater's noise. */
  inconsistency: number | null;
  inconsistency_se?: number | null;
  inconsistency_ci95_low?: number | null;
  inconsistency_ci95_high?: number | null;
  /** `fitted` or `not_identifiable` (then listed in `subject_model.not_identifiable`). */
  status?: string;
  /** Connected part of the design: 0 = the main one, > 0 = another, −1 = not fitted. */
  block?: number;
}

/** One condition (scenario × game) of the subject model: quality ψ beside the raw MOS. */
export interface SubjectCondition {
  scenario: string;
  game: string;
  n: number;
  /** Mean of all ratings of the condition (no CI; the CI is in `conditions`). */
  mos: number | null;
  quality: number | null;
  quality_se: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
  block: number;
}

/** A part of the design the model cannot estimate, with the reason (subject_model.py). */
export interface SubjectIssue {
  /** `single_condition`, `no_variation`, `fitted_exactly`, `disconnected`, `no_fitted_rater`, `no_data`. */
  kind?: string;
  reason: string;
  raters?: string[];
  conditions?: string[];
}

export interface SubjectModel {
  model?: string;
  method?: string;
  fitted_on?: string;
  /** `ok`, `not_identifiable` (some part left out, see `not_identifiable`) or `not_converged`. */
  status?: string;
  condition_columns?: string[];
  convergence?: {
    iterations: number;
    final_change: number | null;
    tolerance: number;
    max_iterations: number;
    converged: boolean;
    n_ratings_used: number;
    n_raters_fitted: number;
    n_conditions_fitted: number;
  };
  not_identifiable?: SubjectIssue[];
  /** Absent in documents stored before the per-condition quality was reported. */
  conditions?: SubjectCondition[];
  raters: SubjectRater[];
}

/** One rater of the ITU-T P.913 screening (p913.py). */
export interface P913Rater {
  rater_id: string;
  r: number | null;
  r1: number | null;
  r2: number | null;
  status: RaterStatus;
  reason: string;
  rejected_in_pass: number | null;
}

export interface P913Screening {
  threshold: number;
  r2_threshold: number;
  rule: string;
  source: string;
  passes: number;
  rejected_per_pass: string[][];
  per_rater: P913Rater[];
  rejected: string[];
  not_assessable: string[];
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
  /** Absent in documents stored before `not_assessable` existed (then: `reliable` decides). */
  status?: RaterStatus;
  reason?: string;
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
  /** `null` when the pairs are too few (e.g. one rater per game). */
  quantiles: Record<string, number | null> | null;
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

/** Only the KPIs whose factor varies in the design are present. */
export interface DirectionThresholds {
  max_delay_ms?: ThresholdValue;
  max_jitter_ms?: ThresholdValue;
  max_loss_pct?: ThresholdValue;
}

export interface PaceThresholds {
  downstream?: DirectionThresholds;
  upstream?: DirectionThresholds;
  both?: DirectionThresholds;
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
    /** The factor columns that vary and are analysed (registry order). */
    network_factors?: string[];
    /** Factor columns present but constant: their one value. */
    constant_factors?: Record<string, number | string | null>;
    /** Every factor column present in the data. */
    factor_info?: Record<string, FactorInfo>;
  };
  /** What is not computable yet, per section, in plain words. */
  notes?: Partial<Record<NoteSection, string>>;
  subject_model?: SubjectModel;
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
    /** The screening rules besides the intra-rater one (newer documents). */
    screening?: { p913?: P913Screening };
    /** Per rater and screening rule: its status (newer documents). */
    rater_status?: ({ rater_id: string } & Record<string, string>)[];
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
    /** `null` when the tree is not computable (see `notes.tree`). */
    root: TreeNode | null;
    rules: { text: string; prediction: string; n: number; p_acceptable: number | null }[];
  };
  thresholds: {
    acceptable_from: number;
    criterion: string;
    by_pace: Record<string, PaceThresholds>;
  };
}
