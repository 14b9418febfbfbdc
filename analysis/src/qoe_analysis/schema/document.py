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

from qoe_analysis.schema.model_types import Thresholds, Tree, Weights
from qoe_analysis.schema.stats_types import (
    ByRule,
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


class FactorInfo(TypedDict):
    """A factor column's registry entry (netem_profile.factors)."""

    direction: Literal["downstream", "upstream"]
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
    seed: int
    games: dict[str, str]
    factors: list[str]
    network_factors: list[str]
    constant_factors: dict[str, float | str]
    factor_info: dict[str, FactorInfo]
    primary_item: str
    acceptance: Acceptance
    min_response_ms: int
    agent_backends: dict[str, int] | None
    n_ratings_dry_run: int | None


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
    """The ratings of several conditions pooled: MOS ± t(0.975, n − 1)·s/√n."""

    n: int
    mos: float | None
    ci95_low: float | None
    ci95_high: float | None
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
    sos_hypothesis: SosHypothesis
    reliability: Reliability
    subject_model: SubjectModel
    weights: Weights
    tree: Tree
    thresholds: Thresholds
    notes: Notes
