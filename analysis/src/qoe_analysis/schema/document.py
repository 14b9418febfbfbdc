"""The analysis document: what :func:`qoe_analysis.report.analyze` returns and
``qoe-analysis analyze`` prints, section by section (docs/methods.md).

The top-level sections describe the primary item (:func:`qoe_analysis.scales.primary_item`);
``per_item`` repeats the per-rating results for every item. ``mos_by_factor`` is the
pooled MOS per factor level (:mod:`qoe_analysis.stats.factor_mos`) that the results
explorer plots, so the frontend computes no statistic.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

from qoe_analysis.schema.dataset_types import DatasetSummary
from qoe_analysis.schema.joint_types import JointModel
from qoe_analysis.schema.marginal_types import Marginals
from qoe_analysis.schema.model_types import Thresholds, Tree, Weights
from qoe_analysis.schema.stats_types import (
    ByRule,
    CiStatus,
    Condition,
    FastRater,
    InterRater,
    IntraRater,
    Item,
    ItemCorrelations,
    ItemSubjectModel,
    PerItem,
    RaterStatusRow,
    ResponseTimes,
    Screening,
    SosSection,
    Training,
)

HoldMode = Literal["baseline", "averaged"]
Level = float | str
WarningCode = Literal[
    "thin_evidence",
    "not_assessable",
    "few_reliable_raters",
    "interval_clipped",
    "no_interval",
    "extrapolated",
    "dominant_raters",
    "dry_run",
    "collinear_factors",
    "merged_factors",
    "model_weak",
    "marginal_thresholds",
    "no_joint_bound",
    "rater_proxy",
    # how a dataset read by a descriptor became the table (qoe_analysis.dataset)
    "undeclared_columns",
    "missing_values",
    "derived_sessions",
    "generated_scenarios",
    "assumed_pace",
]


class DocWarning(TypedDict):
    """What the evidence cannot support (:mod:`qoe_analysis.evidence.warnings`): ``where`` is
    the dotted document path it concerns, ``message`` states the numbers (have / need)."""

    code: WarningCode
    message: str
    where: str


class FactorInfo(TypedDict):
    """A factor column's registry entry (netem_profile.factors)."""

    direction: Literal["downstream", "upstream", "both"]  # both: a merged factor both_X
    key: str
    label: str
    unit: str
    kind: Literal["numeric", "nominal"]


class Acceptance(TypedDict):
    """The acceptance rule: ``item`` ≥ ``min``, or ``item`` = 1 for a binary item."""

    item: str
    min: NotRequired[float]


class Meta(TypedDict):
    qoe_analysis_version: str
    n_ratings: int
    n_raters: int
    n_sessions: int
    n_ratings_analysed: int
    acceptable_from: float
    reliable_only: bool
    reliability_cutoff: float
    min_reliable_raters: int
    min_reliable_share: float
    n_reliable_raters: int
    reliable_share: float
    seed: int
    games: dict[str, str]
    factors: list[str]
    network_factors: list[str]
    constant_factors: dict[str, float | str]
    factor_info: dict[str, FactorInfo]
    #: {"both_X": ["ds_X", "us_X"]}: factors whose two directions are equal in every rating,
    #: analysed as one factor both_X (qoe_analysis.study_factors.merged_factor_pairs)
    merged_factors: dict[str, list[str]]
    primary_item: str
    acceptance: Acceptance
    min_response_ms: int
    agent_backends: dict[str, int] | None
    n_ratings_dry_run: int | None
    #: how a dataset read by a descriptor became this table (absent for a tidy CSV)
    dataset: NotRequired[DatasetSummary]


class SosHypothesis(SosSection):
    """The fit used (reliable raters when ``reliable_only``) and both groups' fits."""

    formula: str
    fitted_on: str
    all_raters: SosSection
    reliable_raters: SosSection | None


class Reliability(TypedDict):
    cutoff: float
    scenario_groups: dict[str, dict[str, float] | None]
    intra: list[IntraRater]
    reliable_raters: list[str]
    inter: list[InterRater]
    screening: Screening
    rejected_by_rule: ByRule
    not_assessable_by_rule: ByRule
    rater_status: list[RaterStatusRow]


class SubjectModel(ItemSubjectModel):
    model: str
    method: str
    fitted_on: str


#: ``{section: reason}`` for each section that is (partly) not computable.
Notes = TypedDict(
    "Notes",
    {
        "sos_hypothesis": str,
        "reliability.intra": str,
        "reliability.inter": str,
        "weights": str,
        "tree": str,
        "thresholds": str,
        "subject_model": str,
        "provenance": str,
    },
    total=False,
)


class PooledMos(TypedDict):
    """The ratings of several conditions pooled: MOS ± t(0.975, n − 1)·s/√n clipped to the
    scale (``ci95_status``; "n_too_small" also for an untested level, n = 0)."""

    n: int
    mos: float | None
    ci95_low: float | None
    ci95_high: float | None
    ci95_status: CiStatus
    scenarios: list[str]


class FactorPoint(PooledMos):
    level: Level


class FactorSeries(TypedDict):
    """MOS per level of ``factor`` for one game ("all": every game) and hold mode."""

    factor: str
    game: str
    hold: HoldMode
    points: list[FactorPoint]


class GridCell(PooledMos):
    a: Level
    b: Level


class FactorGrid(TypedDict):
    """MOS per (level of a, level of b), a-major; untested pairs have n = 0."""

    factors: list[str]
    game: str
    hold: HoldMode
    cells: list[GridCell]


class MosByFactor(TypedDict):
    method: str
    baseline_scenario: str | None
    hold_modes: list[HoldMode]
    single: list[FactorSeries]
    pairs: list[FactorGrid]
    notes: dict[str, str]


SdBasis = Literal["pooled_within_condition", "sos_fitted", "sos_prior"]


class Planning(TypedDict):
    """Raters per condition a design needs (:mod:`qoe_analysis.evidence.planning`): the
    smallest n with t(1 − (1 − confidence)/2, n − 1)·sd_assumed/√n ≤ half_width, and the
    screens' minimums, beside the study's median raters per condition."""

    half_width: float
    confidence: float
    sd_assumed: float
    sd_basis: SdBasis
    sd_source: str
    raters_per_condition_for_interval: int
    raters_per_condition_for_p913: int
    ratings_per_group_for_intra: int
    levels_per_group_for_intra: int
    median_raters_per_condition: float | None
    note: str


class ItemSections(TypedDict):
    """The sections about the rating items (``item_report.item_report_sections``)."""

    items: list[Item]
    per_item: dict[str, PerItem]
    item_correlations: ItemCorrelations
    response_times: dict[str, ResponseTimes]
    fast_raters: list[FastRater]
    training: Training


class AnalysisDocument(ItemSections):
    """The whole analysis document: the primary item's sections and the items' sections."""

    meta: Meta
    conditions: list[Condition]
    mos_by_factor: MosByFactor
    #: MOS by factor level or bin, per item and game (:mod:`qoe_analysis.stats.marginals`)
    marginals: Marginals
    sos_hypothesis: SosHypothesis
    reliability: Reliability
    subject_model: SubjectModel
    weights: Weights
    tree: Tree
    thresholds: Thresholds
    joint_model: JointModel
    notes: Notes
    warnings: list[DocWarning]
    planning: Planning
