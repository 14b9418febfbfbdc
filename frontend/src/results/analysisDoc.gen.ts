// GENERATED FILE, do not edit: `scripts/analysis-types.sh write` writes it from the analysis
// document JSON Schema (`python -m qoe_analysis.schema`) with json-schema-to-typescript;
// `make lint` fails on drift. Linted as its generator writes it:
/* eslint-disable */
/**
 * The whole analysis document: the primary item's sections and the items' sections.
 */
export interface AnalysisDocument {
  items: Item[];
  per_item: {
    [k: string]: PerItem;
  };
  item_correlations: ItemCorrelations;
  response_times: {
    [k: string]: ResponseTimes;
  };
  fast_raters: FastRater[];
  training: Training;
  meta: Meta;
  conditions: Condition[];
  mos_by_factor: MosByFactor;
  marginals: Marginals;
  sos_hypothesis: SosHypothesis;
  reliability: Reliability;
  subject_model: SubjectModel;
  weights: Weights;
  tree: Tree;
  thresholds: Thresholds;
  joint_model: JointModel;
  notes: Notes;
  warnings: DocWarning[];
  planning: Planning;
}
/**
 * A declared rating item and its number of (non-training) ratings.
 */
export interface Item {
  key: string;
  question: LocalText;
  scale: Scale;
  required: boolean;
  n: number;
}
/**
 * A text per language.
 */
export interface LocalText {
  en: string;
  de: string;
}
/**
 * A rating item's scale (:func:`qoe_analysis.scales.parse_scale`); ``step`` is None on
 * a continuous scale.
 */
export interface Scale {
  kind: "acr5" | "dcr5" | "discrete" | "continuous" | "binary";
  min: number;
  max: number;
  step: number | null;
  labels: ScaleLabel[];
}
export interface ScaleLabel {
  value: number;
  text: LocalText;
}
/**
 * Every per-rating result of one item on its own scale.
 */
export interface PerItem {
  scale: Scale;
  n: number;
  n_raters: number;
  mos: ConditionMos[];
  sos: ItemSos;
  gob_pow: GobPow;
  reliability: ItemReliability;
  subject_model: ItemSubjectModel;
}
/**
 * One condition (scenario × game; game "all" pools the games): n, MOS, SOS, the
 * Student-t 95 % CI of the MOS clipped to the scale (``ci95_status``), %GoB/%PoW and the
 * count per scale point (None on a continuous scale).
 */
export interface ConditionMos {
  scenario: string;
  game: string;
  n: number;
  mos: number | null;
  sos: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
  ci95_status: "ok" | "clipped" | "n_too_small";
  gob_pct: number | null;
  pow_pct: number | null;
  distribution: {
    [k: string]: number;
  } | null;
}
export interface ItemSos {
  a: number | null;
  r2: number | null;
  rmse_sos: number | null;
  n_conditions: number;
  by_game: {
    [k: string]: SosFit;
  };
  formula: string;
  /**
   * @minItems 2
   * @maxItems 2
   */
  bounds: [number, number];
  fitted_on: string;
}
/**
 * SOS² = a·(−MOS² + (L+H)·MOS − L·H) fitted over ``n_conditions`` conditions.
 */
export interface SosFit {
  a: number | null;
  r2: number | null;
  rmse_sos: number | null;
  n_conditions: number;
}
export interface GobPow {
  gob_from: number;
  pow_to: number;
  mapping: string;
  n: number;
  gob_pct: number | null;
  pow_pct: number | null;
}
export interface ItemReliability {
  reliable_raters: string[];
  rejected_by_rule: ByRule;
  not_assessable_by_rule: ByRule;
  p913: P913Summary;
  inter: InterRater[];
}
/**
 * Sorted rater ids per screening rule.
 */
export interface ByRule {
  intra_rater: string[];
  p913: string[];
  straight_lining: string[];
}
/**
 * The ITU-T P.913 screening's rule and passes, on the conditions rated by >=
 * ``min_raters_per_condition`` distinct raters (``status`` "not_assessable": no rater
 * has ``min_conditions_per_rater`` of them).
 */
export interface P913Summary {
  rule: string;
  source: string;
  r1: string;
  r2: string;
  r2_threshold: number;
  passes: number;
  rejected_per_pass: string[][];
  status: "ok" | "not_assessable";
  reason: string;
  min_raters_per_condition: number;
  min_conditions_per_rater: number;
  n_conditions_used: number;
  n_conditions_total: number;
}
export interface InterRater {
  game: string;
  group: string;
  scenarios: string[];
  n_incomplete: number;
  n_raters: number;
  n_constant: number;
  n_pairs: number;
  mean: number | null;
  mean_abs: number | null;
  sd: number | null;
  quantiles: {
    [k: string]: number | null;
  } | null;
  sampled: boolean;
}
/**
 * The subject model (ITU-T P.910 annex, MLE) of one item.
 */
export interface ItemSubjectModel {
  status: "ok" | "not_identifiable" | "not_converged";
  condition_columns: string[];
  convergence: Convergence;
  not_identifiable: SubjectIssue[];
  conditions: SubjectCondition[];
  raters: SubjectRater[];
}
export interface Convergence {
  method: string;
  iterations: number;
  total_iterations: number;
  final_change: number | null;
  tolerance: number;
  max_iterations: number;
  converged: boolean;
  log_likelihood: number | null;
  n_ratings_used: number;
  n_raters_fitted: number;
  n_conditions_fitted: number;
}
export interface SubjectIssue {
  kind: string;
  reason: string;
  raters: string[];
  conditions: string[];
}
/**
 * Quality ψ of one condition beside its raw MOS (95 % CI = ψ ± 1.96 se, clipped to the
 * scale: ``ci95_status``).
 */
export interface SubjectCondition {
  scenario: string;
  game: string;
  n: number;
  mos: number | null;
  quality: number | null;
  quality_se: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
  ci95_status: "ok" | "clipped" | "n_too_small" | "not_fitted";
  block: number;
}
/**
 * Bias Δ and inconsistency υ of one rater (block −1: not fitted).
 */
export interface SubjectRater {
  rater_id: string;
  n: number;
  bias: number | null;
  bias_se: number | null;
  bias_ci95_low: number | null;
  bias_ci95_high: number | null;
  inconsistency: number | null;
  inconsistency_se: number | null;
  inconsistency_ci95_low: number | null;
  inconsistency_ci95_high: number | null;
  status: "fitted" | "not_identifiable";
  block: number;
}
export interface ItemCorrelations {
  condition: string;
  mos: ScenarioItemMos[];
  pairs: ItemPair[];
}
export interface ScenarioItemMos {
  scenario: string;
  mos: {
    [k: string]: number | null;
  };
}
export interface ItemPair {
  /**
   * @minItems 2
   * @maxItems 2
   */
  items: [string, string];
  conditions: ConditionCorrelations;
  ratings: RatingCorrelations;
}
export interface ConditionCorrelations {
  pearson: Correlation;
  spearman: Correlation;
}
export interface Correlation {
  r: number | null;
  p: number | null;
  n: number;
}
export interface RatingCorrelations {
  spearman: Correlation;
}
export interface ResponseTimes {
  n: number;
  p10: number | null;
  median: number | null;
  p90: number | null;
}
export interface FastRater {
  rater_id: string;
  n: number;
  median_ms: number;
  share_fast: number;
}
export interface Training {
  excluded_rows: number;
}
export interface Meta {
  qoe_analysis_version: string;
  n_ratings: number;
  n_raters: number;
  n_sessions: number;
  n_ratings_analysed: number;
  acceptable_from: number;
  reliable_only: boolean;
  reliability_cutoff: number;
  min_reliable_raters: number;
  min_reliable_share: number;
  n_reliable_raters: number;
  reliable_share: number;
  seed: number;
  games: {
    [k: string]: string;
  };
  factors: string[];
  network_factors: string[];
  constant_factors: {
    [k: string]: number | string;
  };
  factor_info: {
    [k: string]: FactorInfo;
  };
  merged_factors: {
    [k: string]: string[];
  };
  primary_item: string;
  acceptance: Acceptance;
  min_response_ms: number;
  agent_backends: {
    [k: string]: number;
  } | null;
  n_ratings_dry_run: number | null;
  dataset?: DatasetSummary;
}
/**
 * A factor column's registry entry (netem_profile.factors).
 */
export interface FactorInfo {
  direction: "downstream" | "upstream" | "both";
  key: string;
  label: string;
  unit: string;
  kind: "numeric" | "nominal";
}
/**
 * The acceptance rule: ``item`` ≥ ``min``, or ``item`` = 1 for a binary item.
 */
export interface Acceptance {
  item: string;
  min?: number;
}
/**
 * ``missing``: missing cells per declared column over all files; ``unanswered``: per
 * questionnaire column, the raters without an answer (analysed as the level
 * "(missing)"); ``field_columns``: the tidy columns each field became (a covariate: none,
 * it is kept beside the ratings); ``rater_namespaces``: raters per namespace ("" = none).
 */
export interface DatasetSummary {
  name: string | null;
  title: string | null;
  files: DatasetFile[];
  ratings: DatasetRatings;
  items: string[];
  missing: {
    [k: string]: number;
  };
  unanswered: {
    [k: string]: number;
  };
  undeclared_columns: string[];
  rater_namespaces: {
    [k: string]: number;
  };
  n_raters: number;
  n_sessions: number;
  n_conditions: number;
  sessions: "column" | "derived";
  sessions_from_repeats: number;
  scenarios: "column" | "generated";
  pace: "column" | "game_paces" | "assumed";
  field_columns: {
    [k: string]: string[];
  };
  questionnaire: string[];
  covariates: string[];
  context: string[];
  ignored: string[];
}
/**
 * One data file: rows read (blank lines skipped), ratings kept and dropped, raters,
 * the columns it has that the descriptor does not declare and the fields it lacks.
 */
export interface DatasetFile {
  path: string;
  namespace: string | null;
  context: {
    [k: string]: number | string;
  };
  rows: number;
  blank_rows: number;
  ratings_kept: number;
  ratings_dropped: number;
  n_raters: number;
  undeclared_columns: string[];
  missing_fields: string[];
}
/**
 * Rating cells read (rows × rating fields), kept, and dropped per reason.
 */
export interface DatasetRatings {
  read: number;
  kept: number;
  dropped: number;
  dropped_by_reason: {
    [k: string]: number;
  };
}
/**
 * A condition of the ``conditions`` section. Its other keys are the factor columns
 * present in the data (``meta.factor_info``) with this scenario's value (open object,
 * see :data:`qoe_analysis.schema.export.OPEN_OBJECTS`).
 */
export interface Condition {
  scenario: string;
  game: string;
  n: number;
  mos: number | null;
  sos: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
  ci95_status: "ok" | "clipped" | "n_too_small";
  gob_pct: number | null;
  pow_pct: number | null;
  distribution: {
    [k: string]: number;
  } | null;
  [k: string]:
    | number
    | string
    | null
    | "ok"
    | "clipped"
    | "n_too_small"
    | {
        [k: string]: number;
      };
}
export interface MosByFactor {
  method: string;
  baseline_scenario: string | null;
  hold_modes: ("baseline" | "averaged")[];
  single: FactorSeries[];
  pairs: FactorGrid[];
  notes: {
    [k: string]: string;
  };
}
/**
 * MOS per level of ``factor`` for one game ("all": every game) and hold mode.
 */
export interface FactorSeries {
  factor: string;
  game: string;
  hold: "baseline" | "averaged";
  points: FactorPoint[];
}
export interface FactorPoint {
  n: number;
  mos: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
  ci95_status: "ok" | "clipped" | "n_too_small";
  scenarios: string[];
  level: number | string;
}
/**
 * MOS per (level of a, level of b), a-major; untested pairs have n = 0.
 */
export interface FactorGrid {
  factors: string[];
  game: string;
  hold: "baseline" | "averaged";
  cells: GridCell[];
}
export interface GridCell {
  n: number;
  mos: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
  ci95_status: "ok" | "clipped" | "n_too_small";
  scenarios: string[];
  a: number | string;
  b: number | string;
}
/**
 * MOS by factor level or bin, per item, factor and game. ``raters``: whose ratings
 * ("reliable" under ``reliable_only``, as ``conditions``); ``notes``: ``{factor:
 * reason}`` for a column given no view.
 */
export interface Marginals {
  method: string;
  binning: string;
  max_levels: number;
  n_bins: number;
  raters: "all" | "reliable";
  factors: MarginalFactor[];
  series: MarginalSeries[];
  notes: {
    [k: string]: string;
  };
}
/**
 * A factor with a marginal view: where it comes from and how its points were made.
 * ``n_levels`` counts its distinct values among the ratings (missing ones not counted).
 */
export interface MarginalFactor {
  factor: string;
  label: string;
  source: "network" | "rater";
  kind: "numeric" | "nominal";
  unit: string;
  binning: "levels" | "quantiles" | "top_levels";
  n_levels: number;
}
/**
 * The points of one factor for one item and game ("all": every game pooled);
 * ``n_missing``: ratings of that item and game without a value of the factor (a
 * questionnaire gap), which are in no point.
 */
export interface MarginalSeries {
  item: string;
  factor: string;
  game: string;
  n_missing: number;
  points: MarginalPoint[];
}
/**
 * The ratings whose factor value falls in one point, pooled: n ratings, n distinct
 * raters, MOS, SOS (ddof = 1) and MOS ± t(0.975, n − 1)·SOS/√n clipped to the scale
 * (``ci95_status``, as in ``conditions``). ``level`` is the tested value (None for a bin
 * or the "other" point), ``low``/``high`` the numeric range (a bin (low, high], the first
 * [low, high]; a tested number is its own range; None for text). MOS and SOS are None
 * for n = 0, SOS and the CI for n < 2.
 */
export interface MarginalPoint {
  label: string;
  level: number | string | null;
  low: number | null;
  high: number | null;
  n: number;
  n_raters: number;
  mos: number | null;
  sos: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
  ci95_status: "ok" | "clipped" | "n_too_small";
}
/**
 * The fit used (reliable raters when ``reliable_only``) and both groups' fits.
 */
export interface SosHypothesis {
  a: number | null;
  r2: number | null;
  rmse_sos: number | null;
  n_conditions: number;
  by_game: {
    [k: string]: SosFit;
  };
  formula: string;
  fitted_on: string;
  all_raters: SosSection;
  reliable_raters: SosSection | null;
}
export interface SosSection {
  a: number | null;
  r2: number | null;
  rmse_sos: number | null;
  n_conditions: number;
  by_game: {
    [k: string]: SosFit;
  };
}
export interface Reliability {
  cutoff: number;
  scenario_groups: {
    [k: string]: {
      [k: string]: number;
    } | null;
  };
  intra: IntraRater[];
  reliable_raters: string[];
  inter: InterRater[];
  screening: Screening;
  rejected_by_rule: ByRule;
  not_assessable_by_rule: ByRule;
  rater_status: RaterStatusRow[];
}
/**
 * Intra-rater Spearman ρ (mean over the counted (session, group) correlations: >= 4
 * ratings over >= 3 levels). Its other keys are ``rho_<group>``, the ρ per scenario group
 * (open object). ``p_random_pass``: probability that a rater rating uniformly at random
 * passes on this rater's counted design (None: nothing counted); reliable needs <= 0.01.
 */
export interface IntraRater {
  rater_id: string;
  rho: number | null;
  n_correlations: number;
  n_ratings: number;
  p_random_pass: number | null;
  reliable: boolean;
  status: "reliable" | "unreliable" | "not_assessable";
  reason: string;
  [k: string]: number | null | string | boolean | "reliable" | "unreliable" | "not_assessable";
}
export interface Screening {
  p913: P913Screening;
  straight_lining: StraightLining;
  quality_control: QualityControlScreening;
}
export interface P913Screening {
  rule: string;
  source: string;
  r1: string;
  r2: string;
  r2_threshold: number;
  passes: number;
  rejected_per_pass: string[][];
  status: "ok" | "not_assessable";
  reason: string;
  min_raters_per_condition: number;
  min_conditions_per_rater: number;
  n_conditions_used: number;
  n_conditions_total: number;
  threshold: number;
  per_rater: P913Rater[];
  rejected: string[];
  not_assessable: string[];
}
export interface P913Rater {
  rater_id: string;
  r: number | null;
  r1: number | null;
  r2: number | null;
  status: "reliable" | "unreliable" | "not_assessable";
  reason: string;
  rejected_in_pass: number | null;
}
/**
 * Flat sessions among those with >= ``min_ratings_per_session`` ratings.
 */
export interface StraightLining {
  min_ratings_per_session: number;
  sessions: FlatSession[];
  rejected: string[];
  per_rater: RuleStatus[];
}
/**
 * A session whose ratings are all the same ``value`` (straight-lining).
 */
export interface FlatSession {
  rater_id: string;
  session_id: string;
  n: number;
  value: number;
}
export interface RuleStatus {
  rater_id: string;
  status: "reliable" | "unreliable" | "not_assessable";
  reason: string;
}
/**
 * ITU-T P.808 traps and hidden references (qoe_analysis.evidence.quality_control);
 * ``excluded``: the failed raters were left out of every statistic (default: flagged).
 */
export interface QualityControlScreening {
  rule: string;
  source: string;
  applied: boolean;
  excluded: boolean;
  n_traps: number;
  n_hidden_references: number;
  per_rater: QcRater[];
  failed: string[];
}
/**
 * A rater's quality-control verdict: reliable = passed, unreliable = failed (with every
 * failed check in ``reasons``), not_assessable = no QC answers.
 */
export interface QcRater {
  rater_id: string;
  status: "reliable" | "unreliable" | "not_assessable";
  reason: string;
  failed: boolean;
  reasons: string[];
  n_traps: number;
  n_hidden_references: number;
}
export interface RaterStatusRow {
  rater_id: string;
  intra_rater?: "reliable" | "unreliable" | "not_assessable";
  p913?: "reliable" | "unreliable" | "not_assessable";
  straight_lining?: "reliable" | "unreliable" | "not_assessable";
}
export interface SubjectModel {
  status: "ok" | "not_identifiable" | "not_converged";
  condition_columns: string[];
  convergence: Convergence;
  not_identifiable: SubjectIssue[];
  conditions: SubjectCondition[];
  raters: SubjectRater[];
  model: string;
  method: string;
  fitted_on: string;
}
/**
 * Information gain of each factor for "acceptable" (Weka and RapidMiner conventions).
 */
export interface Weights {
  target: string;
  weka: {
    [k: string]: number | null;
  };
  rapidminer: {
    [k: string]: number | null;
  };
  weka_mdl_cut_points: {
    [k: string]: number[];
  };
  rapidminer_gain_bits: {
    [k: string]: number | null;
  };
  conventions: WeightConventions;
}
export interface WeightConventions {
  weka: string;
  rapidminer: string;
}
/**
 * The REP tree: ``min_leaf`` = max(2, ⌈n/100⌉) ratings per leaf
 * (:func:`qoe_analysis.models.tree.min_leaf_for`), its training accuracy and evidence.
 */
export interface Tree {
  cv_accuracy: number | null;
  cv_accuracy_sd: number | null;
  cv_folds: number | null;
  cv_note: string | null;
  majority_accuracy: number | null;
  majority_class: ("acceptable" | "not_acceptable") | null;
  n_leaves: number;
  top_split_recurrence: SplitRecurrence[];
  method: string;
  seed: number;
  training_accuracy: number | null;
  min_leaf: number;
  root: TreeNode;
  rules: TreeRule[];
}
/**
 * A feature seen at the root of a fold tree or a seed refit: the share of the CV fold
 * trees (None without cross-validation) and of the refits with other seeds whose root
 * splits on it.
 */
export interface SplitRecurrence {
  feature: string;
  share_folds: number | null;
  share_seeds: number | null;
}
/**
 * A node: leaves carry counts and the prediction, inner nodes a split and children.
 */
export interface TreeNode {
  condition?: string;
  n: number;
  counts: {
    [k: string]: number;
  };
  p_acceptable: number | null;
  prediction: "acceptable" | "not_acceptable";
  split?: NumericSplit | NominalSplit;
  left?: TreeNode;
  right?: TreeNode;
}
export interface NumericSplit {
  feature: string;
  type: "numeric";
  threshold: number;
}
export interface NominalSplit {
  feature: string;
  type: "nominal";
  category: string;
}
export interface TreeRule {
  conditions: RuleCondition[];
  prediction: string;
  n: number;
  p_acceptable: number | null;
  text: string;
}
export interface RuleCondition {
  feature: string;
  op: "<=" | ">" | "!=" | "=";
  value: number | string;
}
export interface Thresholds {
  acceptable_from: number;
  criterion: string;
  rule: string;
  directions: ThresholdDirections;
  baseline: {
    [k: string]: number | string;
  };
  by_pace: {
    [k: string]: PaceThresholds;
  };
}
export interface ThresholdDirections {
  downstream: string;
  upstream: string;
  both: string;
}
export interface PaceThresholds {
  downstream?: DirectionThresholds;
  upstream?: DirectionThresholds;
  both?: DirectionThresholds;
  logistic_model: LogisticModel;
}
/**
 * Only the KPIs whose factor varies in the design are present.
 */
export interface DirectionThresholds {
  max_delay_ms?: KpiThreshold;
  max_jitter_ms?: KpiThreshold;
  max_loss_pct?: KpiThreshold;
}
/**
 * The largest acceptable value of a KPI from the tree and from the logistic model.
 */
export interface KpiThreshold {
  tree: number | null;
  tree_tested_bracket: number[] | null;
  tree_status: string;
  logistic: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
  logistic_raw: number | null;
  ci95_raw: (number | null)[];
  logistic_clipped_to_physical_range: boolean;
  logistic_extrapolated: boolean;
  physical_range: (number | null)[];
  logistic_status: string;
  tested_levels: number[];
  varied_alone_in_design: boolean;
  resolution_note: string;
}
export interface LogisticModel {
  terms: {
    [k: string]: LogisticTerm;
  };
  n: number;
  converged: boolean;
}
export interface LogisticTerm {
  coef: number | null;
  se: number | null;
  identifiable: boolean;
}
/**
 * The joint acceptability model (``status`` "not_estimable": no terms, ``reason``).
 */
export interface JointModel {
  method: string;
  formula: string;
  status: "ok" | "not_estimable";
  reason: string;
  n_ratings: number;
  n_raters: number;
  n_parameters: number;
  n_events: number;
  interactions: string[];
  interaction_rule: string;
  corner_rule: string;
  terms: JointTerm[];
  by_pace: {
    [k: string]: JointCorner;
  };
}
/**
 * A coefficient on the logit scale with its cluster-robust SE, Wald 95 % CI and p,
 * and the odds ratio exp(coef) with its CI (per unit of the factor; per ms·% for a
 * delay × loss product). A coefficient the design does not identify (factors always varied
 * together in one proportion) has ``identifiable`` false and null numbers.
 */
export interface JointTerm {
  term: string;
  identifiable: boolean;
  coef: number | null;
  se: number | null;
  ci95_low: number | null;
  ci95_high: number | null;
  odds_ratio: number | null;
  or_ci95_low: number | null;
  or_ci95_high: number | null;
  p: number | null;
}
/**
 * The joint corner of one pace class (null values when it has no bound).
 */
export interface JointCorner {
  status: "ok" | "no_bound";
  reason: string;
  target: number;
  corner: {
    [k: string]: number;
  } | null;
  tested_max: {
    [k: string]: number;
  };
  scale: number | null;
  predicted: number | null;
  predicted_ci95: number[] | null;
  observed_share: number | null;
  observed_n: number;
  extrapolated: boolean | null;
}
export interface Notes {
  sos_hypothesis?: string;
  "reliability.intra"?: string;
  "reliability.inter"?: string;
  weights?: string;
  tree?: string;
  thresholds?: string;
  subject_model?: string;
  provenance?: string;
}
/**
 * What the evidence cannot support (:mod:`qoe_analysis.evidence.warnings`): ``where`` is
 * the dotted document path it concerns, ``message`` states the numbers (have / need).
 */
export interface DocWarning {
  code:
    | "thin_evidence"
    | "not_assessable"
    | "few_reliable_raters"
    | "interval_clipped"
    | "no_interval"
    | "extrapolated"
    | "dominant_raters"
    | "dry_run"
    | "collinear_factors"
    | "merged_factors"
    | "model_weak"
    | "marginal_thresholds"
    | "no_joint_bound"
    | "rater_proxy"
    | "undeclared_columns"
    | "missing_values"
    | "derived_sessions"
    | "generated_scenarios"
    | "assumed_pace";
  message: string;
  where: string;
}
/**
 * Raters per condition a design needs (:mod:`qoe_analysis.evidence.planning`): the
 * smallest n with t(1 − (1 − confidence)/2, n − 1)·sd_assumed/√n ≤ half_width, and the
 * screens' minimums, beside the study's median raters per condition.
 */
export interface Planning {
  half_width: number;
  confidence: number;
  sd_assumed: number;
  sd_basis: "pooled_within_condition" | "sos_fitted" | "sos_prior";
  sd_source: string;
  raters_per_condition_for_interval: number;
  raters_per_condition_for_p913: number;
  ratings_per_group_for_intra: number;
  levels_per_group_for_intra: number;
  median_raters_per_condition: number | null;
  note: string;
}
