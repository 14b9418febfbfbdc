"""The typed sections of the analysis document that model acceptability: information-gain
weights, the decision tree and the KPI thresholds (producers: :mod:`qoe_analysis.models`)."""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict


class WeightConventions(TypedDict):
    weka: str
    rapidminer: str


class Weights(TypedDict):
    """Information gain of each factor for "acceptable" (Weka and RapidMiner conventions)."""

    target: str
    weka: dict[str, float | None]
    rapidminer: dict[str, float | None]
    weka_mdl_cut_points: dict[str, list[float]]
    rapidminer_gain_bits: dict[str, float | None]
    conventions: WeightConventions


class NumericSplit(TypedDict):
    feature: str
    type: Literal["numeric"]
    threshold: float


class NominalSplit(TypedDict):
    feature: str
    type: Literal["nominal"]
    category: str


class TreeNode(TypedDict):
    """A node: leaves carry counts and the prediction, inner nodes a split and children."""

    condition: NotRequired[str]
    n: float
    counts: dict[str, float]
    p_acceptable: float | None
    prediction: Literal["acceptable", "not_acceptable"]
    split: NotRequired[NumericSplit | NominalSplit]
    left: NotRequired[TreeNode]
    right: NotRequired[TreeNode]


class RuleCondition(TypedDict):
    feature: str
    op: Literal["<=", ">", "!=", "="]
    value: float | str


class TreeRule(TypedDict):
    conditions: list[RuleCondition]
    prediction: str
    n: float
    p_acceptable: float | None
    text: str


class SplitRecurrence(TypedDict):
    """A feature seen at the root of a fold tree or a seed refit: the share of the CV fold
    trees (None without cross-validation) and of the refits with other seeds whose root
    splits on it."""

    feature: str
    share_folds: float | None
    share_seeds: float | None


class TreeEvidence(TypedDict):
    """How far the tree can be trusted (:mod:`qoe_analysis.models.tree_evidence`):
    cross-validated accuracy (null with ``cv_note`` when a class has < 2 ratings) beside
    the majority-class accuracy, and the recurrence of the root split."""

    cv_accuracy: float | None
    cv_accuracy_sd: float | None
    cv_folds: int | None
    cv_note: str | None
    majority_accuracy: float | None
    majority_class: Literal["acceptable", "not_acceptable"] | None
    n_leaves: int
    top_split_recurrence: list[SplitRecurrence]


class Tree(TreeEvidence):
    """The REP tree: ``min_leaf`` = max(2, ⌈n/100⌉) ratings per leaf
    (:func:`qoe_analysis.models.tree.min_leaf_for`), its training accuracy and evidence."""

    method: str
    seed: int
    training_accuracy: float | None
    min_leaf: int
    root: TreeNode
    rules: list[TreeRule]


class KpiThreshold(TypedDict):
    """The largest acceptable value of a KPI from the tree and from the logistic model."""

    tree: float | None
    tree_tested_bracket: list[float] | None
    tree_status: str
    logistic: float | None
    ci95_low: float | None
    ci95_high: float | None
    logistic_raw: float | None
    ci95_raw: list[float | None]
    logistic_clipped_to_physical_range: bool
    logistic_extrapolated: bool
    physical_range: list[float | None]
    logistic_status: str
    tested_levels: list[float]
    varied_alone_in_design: bool
    resolution_note: str


class DirectionThresholds(TypedDict):
    """Only the KPIs whose factor varies in the design are present."""

    max_delay_ms: NotRequired[KpiThreshold]
    max_jitter_ms: NotRequired[KpiThreshold]
    max_loss_pct: NotRequired[KpiThreshold]


class LogisticTerm(TypedDict):
    coef: float | None
    se: float | None
    identifiable: bool


class LogisticModel(TypedDict):
    terms: dict[str, LogisticTerm]
    n: float
    converged: bool


class PaceThresholds(TypedDict):
    downstream: NotRequired[DirectionThresholds]
    upstream: NotRequired[DirectionThresholds]
    both: NotRequired[DirectionThresholds]
    logistic_model: LogisticModel


class ThresholdDirections(TypedDict):
    downstream: str
    upstream: str
    both: str


class Thresholds(TypedDict):
    acceptable_from: float
    criterion: str
    rule: str
    directions: ThresholdDirections
    baseline: dict[str, float | str]
    by_pace: dict[str, PaceThresholds]
