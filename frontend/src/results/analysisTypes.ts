/**
 * The analysis document as the explorer receives it: the contract generated from the
 * analysis' JSON Schema (`analysisDoc.gen.ts`, root `AnalysisDocument`), read as a *stored*
 * document. Analyses stored by older versions lack keys the current analysis always writes;
 * those keys are optional here (`Since`), so every reader must say what it shows without
 * them. Nothing else is declared by hand.
 */
import type * as Gen from './analysisDoc.gen';

/** The pooled condition's game key ("all games"). */
export const ALL_GAMES = 'all';

/** `T` with the keys `K` optional: keys that documents stored by older analyses lack. */
type Since<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

export type FactorInfo = Gen.FactorInfo;
/** The named keys (`Since` would drop them: the generated type is an open object), then the factor columns. */
export type Condition = Pick<Gen.Condition, 'scenario' | 'game' | 'n' | 'mos' | 'sos' | 'ci95_low' | 'ci95_high' | 'gob_pct' | 'pow_pct' | 'distribution'> &
  Partial<Pick<Gen.Condition, 'ci95_status'>> &
  Record<string, Gen.Condition[string]>;
export type MosByFactor = Gen.MosByFactor;
export type TreeNode = Gen.TreeNode;
export type SubjectCondition = Gen.SubjectCondition;
export type RaterStatus = Gen.P913Rater['status'];

/** Analysis sections that can be "not computable yet", each with a plain-words reason. */
export type NoteSection = Exclude<keyof Gen.Notes, 'provenance'>;

/** The named keys (`Since` would drop them: the generated type is an open object), then ρ per group. */
export type IntraRater = Pick<Gen.IntraRater, 'rater_id' | 'rho' | 'reliable'> &
  Partial<Pick<Gen.IntraRater, 'n_correlations' | 'status' | 'reason' | 'n_ratings' | 'p_random_pass'>> &
  Record<`rho_${string}`, number | null>;
type InterRater = Since<Gen.InterRater, 'n_incomplete' | 'n_constant' | 'sampled'>;
type SubjectRater = Since<Gen.SubjectRater, 'n' | 'bias_se' | 'bias_ci95_low' | 'bias_ci95_high' | 'inconsistency_se' | 'inconsistency_ci95_low' | 'inconsistency_ci95_high' | 'status' | 'block'>;
type SubjectIssue = Since<Gen.SubjectIssue, 'kind' | 'raters' | 'conditions'>;
type KpiThreshold = Since<
  Gen.KpiThreshold,
  'logistic_raw' | 'ci95_raw' | 'logistic_clipped_to_physical_range' | 'logistic_extrapolated' | 'physical_range' | 'tested_levels' | 'varied_alone_in_design' | 'resolution_note'
>;
type DirectionThresholds = Partial<Record<keyof Gen.DirectionThresholds, KpiThreshold>>;
type PaceThresholds = Partial<Record<'downstream' | 'upstream' | 'both', DirectionThresholds>> & Partial<Pick<Gen.PaceThresholds, 'logistic_model'>>;

type Meta = Since<
  Gen.Meta,
  | 'qoe_analysis_version'
  | 'seed'
  | 'network_factors'
  | 'constant_factors'
  | 'factor_info'
  | 'primary_item'
  | 'acceptance'
  | 'min_response_ms'
  | 'agent_backends'
  | 'n_ratings_dry_run'
  | 'min_reliable_raters'
  | 'min_reliable_share'
  | 'n_reliable_raters'
  | 'reliable_share'
  | 'merged_factors'
>;

type SubjectModel = Since<Omit<Gen.SubjectModel, 'raters' | 'not_identifiable'>, 'model' | 'method' | 'fitted_on' | 'status' | 'condition_columns' | 'convergence' | 'conditions'> & {
  raters: SubjectRater[];
  not_identifiable?: SubjectIssue[];
};

type Reliability = Since<Omit<Gen.Reliability, 'intra' | 'inter' | 'screening' | 'rejected_by_rule'>, 'not_assessable_by_rule' | 'rater_status'> & {
  intra: IntraRater[];
  inter: InterRater[];
  screening?: Partial<Gen.Screening>;
  /** Older documents name only the rules they ran. */
  rejected_by_rule: Partial<Gen.ByRule>;
};

/** The tree's evidence (issue 31): cross-validated and majority-class accuracy, size, stability. */
type TreeEvidenceKey = 'cv_accuracy' | 'cv_accuracy_sd' | 'cv_folds' | 'cv_note' | 'majority_accuracy' | 'majority_class' | 'n_leaves' | 'top_split_recurrence' | 'min_leaf';

type Tree = Since<Omit<Gen.Tree, 'root' | 'rules'>, 'seed' | TreeEvidenceKey> & {
  /** `null` in older documents when the tree was not computable (see `notes.tree`). */
  root: Gen.TreeNode | null;
  rules: Since<Gen.TreeRule, 'conditions'>[];
};

/** Sections written since the first stored documents. */
type Later =
  | 'mos_by_factor'
  | 'marginals'
  | 'subject_model'
  | 'notes'
  | 'items'
  | 'per_item'
  | 'item_correlations'
  | 'response_times'
  | 'fast_raters'
  | 'training'
  | 'warnings'
  | 'planning'
  | 'joint_model';

/** A stored analysis document (`qoe_analysis.analyze`, as kept in an analysis job's `result`). */
export type AnalysisDoc = Omit<Gen.AnalysisDocument, Later | 'meta' | 'conditions' | 'sos_hypothesis' | 'reliability' | 'weights' | 'tree' | 'thresholds'> &
  Partial<Pick<Gen.AnalysisDocument, Exclude<Later, 'subject_model'>>> & {
    meta: Meta;
    conditions: Condition[];
    subject_model?: SubjectModel;
    sos_hypothesis: Since<Gen.SosHypothesis, 'fitted_on'>;
    reliability: Reliability;
    weights: Since<Gen.Weights, 'weka_mdl_cut_points' | 'rapidminer_gain_bits'>;
    tree: Tree;
    thresholds: Since<Omit<Gen.Thresholds, 'by_pace'>, 'rule' | 'directions' | 'baseline'> & { by_pace: Record<string, PaceThresholds> };
  };
