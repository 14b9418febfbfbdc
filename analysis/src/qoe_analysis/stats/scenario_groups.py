"""One-factor-at-a-time scenario groups, derived from the factors that vary.

For each numeric factor of the registry that varies (delay, jitter, loss, burst-loss
parameters, rate, …; not the correlation modifiers, which do nothing alone), the group
``<factor>_only`` holds the scenarios where every *other* varying factor column is at its
baseline (:func:`qoe_analysis.study_factors.baseline_levels`, normally the neutral value:
0 ms, 0 %) and the factor has the same value in each direction where it varies; the
impairment level of a scenario is that value. In the dissertation's table 4.1 this gives
*delay_only* (B, D1–D3) and *loss_only* (B, L1, L2), as in its ch. 4.2.2 (Hoßfeld et al.).
A group is kept only with >= 3 scenarios and >= 2 distinct levels. A randomised-conditions
design (every scenario a new mix) has none: its raters cannot be assessed by the
intra-rater rule (:mod:`qoe_analysis.stats.reliability`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from qoe_analysis.study_factors import (
    MODIFIER_KEYS,
    baseline_levels,
    factor_of,
    varying_factor_columns,
)
from qoe_analysis.tidy.design import SCENARIO

__all__ = ["FACTOR_GROUPS", "ScenarioGroup", "group_name", "no_group_reason", "scenario_groups"]

#: The groups of the reference design (table 4.1).
FACTOR_GROUPS = ("delay_only", "loss_only")
_UNIT_SUFFIXES = ("_ms", "_pct", "_kbit")


@dataclass(frozen=True)
class ScenarioGroup:
    """Scenarios of one group and the impairment level of each (None for group 'all')."""

    name: str
    levels: dict[str, float] | None

    @property
    def scenarios(self) -> list[str]:
        return sorted(self.levels) if self.levels is not None else []


def group_name(factor_key: str) -> str:
    """``delay_ms`` → ``delay_only``, ``ge_p_pct`` → ``ge_p_only`` (unit suffix dropped)."""
    for suffix in _UNIT_SUFFIXES:
        if factor_key.endswith(suffix):
            factor_key = factor_key[: -len(suffix)]
            break
    return f"{factor_key}_only"


def scenario_groups(df: pd.DataFrame) -> dict[str, ScenarioGroup]:
    """The one-factor-at-a-time groups implied by the factors that vary in ``df``.

    See the module docstring for the rule. A group is kept only when it has at least
    three scenarios with at least two distinct impairment levels (otherwise a rank
    correlation says nothing). Groups follow the registry's order.
    """
    varying = varying_factor_columns(df)
    cond = df.drop_duplicates(SCENARIO)[[SCENARIO, *varying]]
    base = baseline_levels(cond, varying)
    at_base = {c: (cond[c].astype(object) == base[c]).to_numpy() for c in varying}
    by_key: dict[str, list[str]] = {}
    for column in varying:
        _, factor = factor_of(column)
        if factor.kind == "numeric" and factor.key not in MODIFIER_KEYS:
            by_key.setdefault(factor.key, []).append(column)
    groups: dict[str, ScenarioGroup] = {}
    for key, own in by_key.items():
        others = [c for c in varying if c not in own]
        mask = np.ones(len(cond), dtype=bool)
        for column in others:
            mask &= at_base[column]
        values = cond[own].to_numpy(dtype=np.float64)
        mask &= (values == values[:, :1]).all(axis=1)
        rows = cond[mask]
        levels = dict(zip(rows[SCENARIO].astype(str), rows[own[0]].astype(float), strict=True))
        if len(levels) >= 3 and len(set(levels.values())) >= 2:
            name = group_name(key)
            groups[name] = ScenarioGroup(name, levels)
    return groups


def no_group_reason(df: pd.DataFrame) -> str:
    """Plain words: why a design has no one-factor-at-a-time group (see scenario_groups)."""
    varying = varying_factor_columns(df)
    if not varying:
        return "no impairment factor varies in the data"
    names = ", ".join(varying)
    return (
        "the design has no one-factor-at-a-time group: no factor (of "
        f"{names}) is varied alone over >= 3 scenarios with >= 2 levels while the other "
        "factors stay at their baseline (e.g. baseline + 2 delay-only levels)"
    )
