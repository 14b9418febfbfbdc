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

Factors varied together are one factor: when a study always sets a factor's two directions
to the same value (``ds_X`` equal to ``us_X`` in every rating, and varying), its effect
cannot be split between the directions, so the analysis models one factor ``both_X``
(direction "both") in their place (:func:`merged_factor_pairs`, :func:`analysed_factors`).

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
    "BOTH_PREFIX",
    "MODIFIER_KEYS",
    "analysed_factors",
    "baseline_levels",
    "constant_factors",
    "factor_columns_in",
    "factor_info",
    "factor_of",
    "kpi_columns",
    "merged_factor_pairs",
    "merged_in",
    "select_factors",
    "varying_factor_columns",
]

#: Name prefix of a merged factor: ``both_`` + factor key (e.g. ``both_jitter_ms``).
BOTH_PREFIX = "both_"

#: Factors that shape another factor's impairment and do nothing alone (a correlation
#: needs a delay, loss or reordering to correlate); they get no one-factor group.
MODIFIER_KEYS = frozenset(
    {"delay_correlation_pct", "loss_correlation_pct", "reorder_correlation_pct"}
)
_ORDER = {c: i for i, c in enumerate(FACTOR_COLUMNS)}


def factor_of(column: str) -> tuple[str, Factor]:
    """``(direction, factor)`` of a registry column, or ``("both", factor)`` of a merged
    factor ``both_X``; KeyError for any other column."""
    if column.startswith(BOTH_PREFIX):
        parsed = parse_column(f"ds_{column[len(BOTH_PREFIX) :]}")
        if parsed is not None:
            return "both", parsed[1]
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


def _equal(a: pd.Series, b: pd.Series) -> bool:
    """Equal in every row (NaN equal to NaN; numbers by value, anything else as text)."""
    x, y = a.to_numpy(), b.to_numpy()
    if x.dtype.kind in "biuf" and y.dtype.kind in "biuf":
        return bool(np.array_equal(x.astype(np.float64), y.astype(np.float64), equal_nan=True))
    return bool((a.astype(str).to_numpy() == b.astype(str).to_numpy()).all())


def merged_factor_pairs(
    table: pd.DataFrame, varying: Iterable[str] | None = None
) -> dict[str, list[str]]:
    """``{"both_X": ["ds_X", "us_X"]}`` for every registry factor X whose downstream and
    upstream columns both vary (``varying``, default :func:`varying_factor_columns`) and
    are equal in every rating of ``table``: a design that always sets both directions to
    the same level varies one factor, not two (registry order)."""
    varies = set(varying_factor_columns(table) if varying is None else varying)
    out: dict[str, list[str]] = {}
    for factor in FACTORS:
        ds, us = f"ds_{factor.key}", f"us_{factor.key}"
        if ds in varies and us in varies and _equal(table[ds], table[us]):
            out[f"{BOTH_PREFIX}{factor.key}"] = [ds, us]
    return out


def analysed_factors(varying: Iterable[str], merged: dict[str, list[str]]) -> list[str]:
    """``varying`` with each merged pair replaced by its ``both_X`` (at the place of its
    downstream column): the factor columns the models and figures analyse."""
    replaced = {pair[0]: both for both, pair in merged.items()}
    dropped = {pair[1] for pair in merged.values()}
    return [replaced.get(c, c) for c in varying if c not in dropped]


def merged_in(columns: Iterable[str]) -> dict[str, list[str]]:
    """``{"both_X": ["ds_X", "us_X"]}`` for the merged factors named in ``columns``."""
    out: dict[str, list[str]] = {}
    for column in columns:
        if column.startswith(BOTH_PREFIX):
            key = column[len(BOTH_PREFIX) :]
            out[column] = [f"ds_{key}", f"us_{key}"]
    return out


def select_factors(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``table[columns]`` where a merged ``both_X`` is the ``ds_X`` column under that name
    (equal to ``us_X`` by :func:`merged_factor_pairs`)."""
    merged = merged_in(columns)
    frame = table[[merged[c][0] if c in merged else c for c in columns]]
    return frame.set_axis(columns, axis=1) if merged else frame


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
    """Registry description of each factor column: direction, key, label, unit, kind.
    A merged ``both_X`` among ``columns`` has direction "both" (after the registry
    columns)."""
    out: dict[str, dict[str, Any]] = {}
    columns = list(columns)
    for column in [*factor_columns_in(columns), *merged_in(columns)]:
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
    that varies in one direction only it equals that direction. A merged factor
    ``both_X`` (:func:`merged_factor_pairs`) is the "both" direction alone. Registry order.
    """
    varying = set(varying)
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for factor in FACTORS:
        if factor.kpi is None:
            continue
        if f"{BOTH_PREFIX}{factor.key}" in varying:
            out[factor.kpi] = {"both": (f"{BOTH_PREFIX}{factor.key}",)}
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
