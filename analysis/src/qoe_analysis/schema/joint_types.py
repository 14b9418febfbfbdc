"""The typed ``joint_model`` section of the analysis document: the cluster-robust logistic
model of acceptability on all varying factors at once and, per pace class, the corner of
the region where every bound is reached together (producer:
:mod:`qoe_analysis.models.joint_model`)."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

JointStatus = Literal["ok", "not_estimable"]


class JointTerm(TypedDict):
    """A coefficient on the logit scale with its cluster-robust SE, Wald 95 % CI and p,
    and the odds ratio exp(coef) with its CI (per unit of the factor; per ms·% for a
    delay × loss product). A coefficient the design does not identify (factors always varied
    together in one proportion) has ``identifiable`` false and null numbers."""

    term: str
    identifiable: bool
    coef: float | None
    se: float | None
    ci95_low: float | None
    ci95_high: float | None
    odds_ratio: float | None
    or_ci95_low: float | None
    or_ci95_high: float | None
    p: float | None


class JointCorner(TypedDict):
    """The joint corner of one pace class (null values when it has no bound)."""

    status: Literal["ok", "no_bound"]
    reason: str
    target: float
    corner: dict[str, float] | None
    tested_max: dict[str, float]
    scale: float | None
    predicted: float | None
    predicted_ci95: list[float] | None
    observed_share: float | None
    observed_n: int
    extrapolated: bool | None


class JointModel(TypedDict):
    """The joint acceptability model (``status`` "not_estimable": no terms, ``reason``)."""

    method: str
    formula: str
    status: JointStatus
    reason: str
    n_ratings: int
    n_raters: int
    n_parameters: int
    n_events: int
    interactions: list[str]
    interaction_rule: str
    corner_rule: str
    terms: list[JointTerm]
    by_pace: dict[str, JointCorner]
