"""The typed sections of the analysis document that describe ratings: items and scales,
conditions, the SOS hypothesis, rater reliability, the subject model, response times and
item correlations (producers: :mod:`qoe_analysis.stats`, :mod:`qoe_analysis.item_report`).

Numbers that could not be computed are ``None`` (``null`` in JSON). ``typing_extensions``'
``TypedDict``: pydantic exports the JSON Schema from it on Python 3.11 as well.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict

RaterStatus = Literal["reliable", "unreliable", "not_assessable"]
#: A MOS interval's state (docs/methods.md, "Intervals"): inside the scale, clipped to it,
#: or none (fewer than 2 ratings).
CiStatus = Literal["ok", "clipped", "n_too_small"]
#: The subject model's quality interval: as :data:`CiStatus`, or no estimate (not fitted).
SubjectCiStatus = Literal["ok", "clipped", "n_too_small", "not_fitted"]
ScaleKind = Literal["acr5", "dcr5", "discrete", "continuous", "binary"]


class LocalText(TypedDict):
    """A text per language."""

    en: str
    de: str


class ScaleLabel(TypedDict):
    value: float
    text: LocalText


class Scale(TypedDict):
    """A rating item's scale (:func:`qoe_analysis.scales.parse_scale`); ``step`` is None on
    a continuous scale."""

    kind: ScaleKind
    min: float
    max: float
    step: float | None
    labels: list[ScaleLabel]


class Item(TypedDict):
    """A declared rating item and its number of (non-training) ratings."""

    key: str
    question: LocalText
    scale: Scale
    required: bool
    n: int


class ConditionMos(TypedDict):
    """One condition (scenario × game; game "all" pools the games): n, MOS, SOS, the
    Student-t 95 % CI of the MOS clipped to the scale (``ci95_status``), %GoB/%PoW and the
    count per scale point (None on a continuous scale)."""

    scenario: str
    game: str
    n: int
    mos: float | None
    sos: float | None
    ci95_low: float | None
    ci95_high: float | None
    ci95_status: CiStatus
    gob_pct: float | None
    pow_pct: float | None
    distribution: dict[str, int] | None


class Condition(ConditionMos):
    """A condition of the ``conditions`` section. Its other keys are the factor columns
    present in the data (``meta.factor_info``) with this scenario's value (open object,
    see :data:`qoe_analysis.schema.export.OPEN_OBJECTS`)."""


class SosFit(TypedDict):
    """SOS² = a·(−MOS² + (L+H)·MOS − L·H) fitted over ``n_conditions`` conditions."""

    a: float | None
    r2: float | None
    rmse_sos: float | None
    n_conditions: int


class SosSection(SosFit):
    by_game: dict[str, SosFit]


class IntraRater(TypedDict):
    """Intra-rater Spearman ρ (mean over the counted (session, group) correlations: >= 4
    ratings over >= 3 levels). Its other keys are ``rho_<group>``, the ρ per scenario group
    (open object). ``p_random_pass``: probability that a rater rating uniformly at random
    passes on this rater's counted design (None: nothing counted); reliable needs <= 0.01."""

    rater_id: str
    rho: float | None
    n_correlations: int
    n_ratings: int
    p_random_pass: float | None
    reliable: bool
    status: RaterStatus
    reason: str


class InterRater(TypedDict):
    game: str
    group: str
    scenarios: list[str]
    n_incomplete: int
    n_raters: int
    n_constant: int
    n_pairs: int
    mean: float | None
    mean_abs: float | None
    sd: float | None
    quantiles: dict[str, float | None] | None
    sampled: bool


class P913Summary(TypedDict):
    """The ITU-T P.913 screening's rule and passes, on the conditions rated by >=
    ``min_raters_per_condition`` distinct raters (``status`` "not_assessable": no rater
    has ``min_conditions_per_rater`` of them)."""

    rule: str
    source: str
    r1: str
    r2: str
    r2_threshold: float
    passes: int
    rejected_per_pass: list[list[str]]
    status: Literal["ok", "not_assessable"]
    reason: str
    min_raters_per_condition: int
    min_conditions_per_rater: int
    n_conditions_used: int
    n_conditions_total: int


class P913Rater(TypedDict):
    rater_id: str
    r: float | None
    r1: float | None
    r2: float | None
    status: RaterStatus
    reason: str
    rejected_in_pass: int | None


class P913Screening(P913Summary):
    threshold: float
    per_rater: list[P913Rater]
    rejected: list[str]
    not_assessable: list[str]


class FlatSession(TypedDict):
    """A session whose ratings are all the same ``value`` (straight-lining)."""

    rater_id: str
    session_id: str
    n: int
    value: float


class RuleStatus(TypedDict):
    rater_id: str
    status: RaterStatus
    reason: str


class StraightLining(TypedDict):
    """Flat sessions among those with >= ``min_ratings_per_session`` ratings."""

    min_ratings_per_session: int
    sessions: list[FlatSession]
    rejected: list[str]
    per_rater: list[RuleStatus]


class QcRater(RuleStatus):
    """A rater's quality-control verdict: reliable = passed, unreliable = failed (with every
    failed check in ``reasons``), not_assessable = no QC answers."""

    failed: bool
    reasons: list[str]
    n_traps: int
    n_hidden_references: int


class QualityControlScreening(TypedDict):
    """ITU-T P.808 traps and hidden references (qoe_analysis.evidence.quality_control);
    ``excluded``: the failed raters were left out of every statistic (default: flagged)."""

    rule: str
    source: str
    applied: bool
    excluded: bool
    n_traps: int
    n_hidden_references: int
    per_rater: list[QcRater]
    failed: list[str]


class Screening(TypedDict):
    p913: P913Screening
    straight_lining: StraightLining
    quality_control: QualityControlScreening


class ByRule(TypedDict):
    """Sorted rater ids per screening rule."""

    intra_rater: list[str]
    p913: list[str]
    straight_lining: list[str]


class RaterStatusRow(TypedDict):
    rater_id: str
    intra_rater: NotRequired[RaterStatus]
    p913: NotRequired[RaterStatus]
    straight_lining: NotRequired[RaterStatus]


class SubjectCondition(TypedDict):
    """Quality ψ of one condition beside its raw MOS (95 % CI = ψ ± 1.96 se, clipped to the
    scale: ``ci95_status``)."""

    scenario: str
    game: str
    n: int
    mos: float | None
    quality: float | None
    quality_se: float | None
    ci95_low: float | None
    ci95_high: float | None
    ci95_status: SubjectCiStatus
    block: int


class SubjectRater(TypedDict):
    """Bias Δ and inconsistency υ of one rater (block −1: not fitted)."""

    rater_id: str
    n: int
    bias: float | None
    bias_se: float | None
    bias_ci95_low: float | None
    bias_ci95_high: float | None
    inconsistency: float | None
    inconsistency_se: float | None
    inconsistency_ci95_low: float | None
    inconsistency_ci95_high: float | None
    status: Literal["fitted", "not_identifiable"]
    block: int


class SubjectIssue(TypedDict):
    kind: str
    reason: str
    raters: list[str]
    conditions: list[str]


class Convergence(TypedDict):
    method: str
    iterations: int
    total_iterations: int
    final_change: float | None
    tolerance: float
    max_iterations: int
    converged: bool
    log_likelihood: float | None
    n_ratings_used: int
    n_raters_fitted: int
    n_conditions_fitted: int


class ItemSubjectModel(TypedDict):
    """The subject model (ITU-T P.910 annex, MLE) of one item."""

    status: Literal["ok", "not_identifiable", "not_converged"]
    condition_columns: list[str]
    convergence: Convergence
    not_identifiable: list[SubjectIssue]
    conditions: list[SubjectCondition]
    raters: list[SubjectRater]


class GobPow(TypedDict):
    gob_from: float
    pow_to: float
    mapping: str
    n: int
    gob_pct: float | None
    pow_pct: float | None


class ItemSos(SosSection):
    formula: str
    bounds: tuple[float, float]
    fitted_on: str


class ItemReliability(TypedDict):
    reliable_raters: list[str]
    rejected_by_rule: ByRule
    not_assessable_by_rule: ByRule
    p913: P913Summary
    inter: list[InterRater]


class PerItem(TypedDict):
    """Every per-rating result of one item on its own scale."""

    scale: Scale
    n: int
    n_raters: int
    mos: list[ConditionMos]
    sos: ItemSos
    gob_pow: GobPow
    reliability: ItemReliability
    subject_model: ItemSubjectModel


class ResponseTimes(TypedDict):
    n: int
    p10: float | None
    median: float | None
    p90: float | None


class FastRater(TypedDict):
    rater_id: str
    n: int
    median_ms: float
    share_fast: float


class Correlation(TypedDict):
    r: float | None
    p: float | None
    n: int


class ConditionCorrelations(TypedDict):
    pearson: Correlation
    spearman: Correlation


class RatingCorrelations(TypedDict):
    spearman: Correlation


class ItemPair(TypedDict):
    items: tuple[str, str]
    conditions: ConditionCorrelations
    ratings: RatingCorrelations


class ScenarioItemMos(TypedDict):
    scenario: str
    mos: dict[str, float | None]


class ItemCorrelations(TypedDict):
    condition: str
    mos: list[ScenarioItemMos]
    pairs: list[ItemPair]


class Training(TypedDict):
    excluded_rows: int
