"""A study's impairment factors, read from the table: which registry columns it has, which
vary, their baseline levels and what they mean.

The factors are data, not code: every column of the registry (:mod:`netem_profile.factors`,
``ds_``/``us_`` + factor key, e.g. ``ds_jitter_ms``) that a ratings table carries is a
factor of the study. A factor column that takes two or more values *varies* and is
analysed (weights, tree, thresholds, reliability groups); one with a single value is
*constant*: reported with its value, not analysed (it carries no information about the
ratings). The dissertation's table 4.1 is one instance (its four columns all vary).

The *baseline* of a column is the level the other factors are held at when one factor is
examined alone (thresholds, one-factor-at-a-time reliability groups): the registry's
neutral value (no impairment: 0 ms, 0 %, p = 0, r = 100 %…) when the design tested it,
else the tested level nearest to it (for a nominal factor: the neutral choice when tested,
else the first tested level in sorted order).

Pure functions over a pandas table; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
from netem_profile.factors import FACTORS, Factor, parse_column

from qoe_analysis.tidy.columns import FACTOR_COLUMNS

__all__ = [
    "MODIFIER_KEYS",
    "baseline_levels",
    "constant_factors",
    "factor_columns_in",
    "factor_info",
    "factor_of",
    "kpi_columns",
    "varying_factor_columns",
]

#: Factors that shape another factor's impairment and do nothing alone (a correlation
#: needs a delay, loss or reordering to correlate); they get no one-factor group.
MODIFIER_KEYS = frozenset(
    {"delay_correlation_pct", "loss_correlation_pct", "reorder_correlation_pct"}
)
_ORDER = {c: i for i, c in enumerate(FACTOR_COLUMNS)}


def factor_of(column: str) -> tuple[str, Factor]:
    """``(direction, factor)`` of a registry column; KeyError for any other column."""
    parsed = parse_column(column)
    if parsed is None:
        raise KeyError(f"{column!r} is not an impairment factor column")
    return parsed


def factor_columns_in(columns: Iterable[Any]) -> list[str]:
    """The registry's factor columns among ``columns``, in registry order."""
    return sorted((str(c) for c in columns if str(c) in _ORDER), key=_ORDER.__getitem__)


def _varies(series: pd.Series) -> bool:
    """At least two distinct values, NaN counting as one (``nunique(dropna=False) > 1``).

    A number column is compared with its first value (one pass, no hash table: the factor
    columns of a million ratings are checked several times per analysis); NaN ≠ NaN, so a
    column with NaN varies exactly when it is not all NaN.
    """
    values = series.to_numpy()
    if values.dtype.kind not in "biuf":
        return bool(series.nunique(dropna=False) > 1)
    if values.size < 2:
        return False
    if values.dtype.kind == "f":
        missing = np.isnan(values)
        if missing.any():
            return not bool(missing.all())
    return bool((values != values[0]).any())


def varying_factor_columns(table: pd.DataFrame) -> list[str]:
    """Factor columns of ``table`` with at least two distinct values (registry order)."""
    return [c for c in factor_columns_in(table.columns) if _varies(table[c])]


def _plain(value: Any) -> float | str:
    if isinstance(value, str):
        return value
    if isinstance(value, np.generic):
        value = value.item()
    return value if isinstance(value, str) else float(value)


def constant_factors(table: pd.DataFrame) -> dict[str, float | str]:
    """``{column: value}`` for the factor columns of ``table`` that never change."""
    return {
        c: _plain(table[c].iloc[0])
        for c in factor_columns_in(table.columns)
        if len(table) > 0 and not _varies(table[c])
    }


def factor_info(columns: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Registry description of each factor column: direction, key, label, unit, kind."""
    out: dict[str, dict[str, Any]] = {}
    for column in factor_columns_in(columns):
        direction, factor = factor_of(column)
        out[column] = {
            "direction": direction,
            "key": factor.key,
            "label": factor.label,
            "unit": factor.unit,
            "kind": factor.kind,
        }
    return out


def baseline_levels(table: pd.DataFrame, columns: Iterable[str]) -> dict[str, float | str]:
    """The baseline level of each factor column (see module docstring)."""
    out: dict[str, float | str] = {}
    for column in columns:
        _, factor = factor_of(column)
        values = pd.unique(table[column].to_numpy())
        if factor.kind == "nominal":
            names = sorted(str(v) for v in values)
            out[column] = str(factor.neutral) if str(factor.neutral) in names else names[0]
            continue
        numbers = np.asarray(values, dtype=np.float64)
        neutral = float(factor.neutral)
        out[column] = float(numbers[np.argmin(np.abs(numbers - neutral))])
    return out


def kpi_columns(varying: Iterable[str]) -> dict[str, dict[str, tuple[str, ...]]]:
    """``{kpi: {direction: columns}}`` for the KPI factors (registry ``kpi``) that vary.

    ``downstream``/``upstream`` take the direction's column when it varies; ``both``
    takes every varying column of the factor (the same value on each), so for a factor
    that varies in one direction only it equals that direction. Registry order.
    """
    varying = set(varying)
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for factor in FACTORS:
        if factor.kpi is None:
            continue
        per_direction: dict[str, tuple[str, ...]] = {}
        both: list[str] = []
        for direction, prefix in (("downstream", "ds"), ("upstream", "us")):
            column = f"{prefix}_{factor.key}"
            if column in varying:
                per_direction[direction] = (column,)
                both.append(column)
        if both:
            per_direction["both"] = tuple(both)
            out[factor.kpi] = per_direction
    return out
