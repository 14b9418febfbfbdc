"""Information-gain weights of factors for a binary target (e.g. "acceptable" = rating ≥ 3).

Two conventions, reported side by side:

* **Weka** (``weka.attributeSelection.InfoGainAttributeEval``, defaults): numeric factors are
  discretised with Fayyad–Irani MDL (:mod:`qoe_analysis.models.mdl_discretize`, better encoding);
  nominal factors keep their values. Weight = IG = H(C) − H(C | A) in bits, unnormalised.
  A numeric factor without an accepted cut point becomes a single bin and gets IG = 0.
* **RapidMiner** ("Weight by Information Gain", ``normalize_weights = true``): numeric
  factors are scored by their best binary split (threshold at a midpoint between adjacent
  distinct values, maximum IG), nominal factors by the multi-way split on their values;
  weights are then min–max normalised, w' = (w − min)/(max − min), so the strongest factor
  gets 1 and the weakest 0 (the convention of table 4.2 of the dissertation).

Entropies follow Weka's ``ContingencyTables`` formulas exactly (see mdl_discretize).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.models.mdl_discretize import (
    class_counts_by_value,
    conditional_entropy_bits,
    entropy_bits,
    mdl_cut_points_from_counts,
)
from qoe_analysis.tabular import column_codes

__all__ = [
    "best_binary_split_gain",
    "class_weighted_profiles",
    "info_gain_from_table",
    "minmax_normalise",
    "rapidminer_weights",
    "weka_info_gain",
    "weka_weights",
]


def info_gain_from_table(table: np.ndarray[Any, Any]) -> float:
    """IG = H(column totals) − H(C | rows) in bits for a contingency table [values, classes]."""
    t = np.asarray(table, dtype=np.float64)
    return float(entropy_bits(t.sum(axis=0)) - conditional_entropy_bits(t))


def _nominal_table(
    values: np.ndarray[Any, Any] | pd.Series,
    y: np.ndarray[Any, Any],
    weights: np.ndarray[Any, Any] | None,
) -> np.ndarray[Any, Any]:
    codes, uniques = column_codes(
        pd.Series(values) if not isinstance(values, pd.Series) else values
    )
    flat = np.bincount(codes * 2 + y, weights=weights, minlength=len(uniques) * 2)
    table: np.ndarray[Any, Any] = flat.reshape(len(uniques), 2).astype(np.float64)
    used: np.ndarray[Any, Any] = table[table.sum(axis=1) > 0]  # unused categories: no value
    return used


def weka_info_gain(
    values: np.ndarray[Any, Any] | pd.Series,
    y: np.ndarray[Any, Any],
    *,
    numeric: bool,
    weights: np.ndarray[Any, Any] | None = None,
) -> tuple[float, list[float]]:
    """Weka InfoGainAttributeEval gain (bits) of one factor, and its MDL cut points."""
    target = np.asarray(y, dtype=np.int64)
    if not numeric:
        return info_gain_from_table(_nominal_table(values, target, weights)), []
    uniques, counts = class_counts_by_value(np.asarray(values, np.float64), target, 2, weights)
    cuts = mdl_cut_points_from_counts(uniques, counts, better_encoding=True)
    if cuts.size == 0:
        return 0.0, []
    bins = np.searchsorted(cuts, uniques, side="left")  # value <= cut -> lower bin (Weka)
    table = np.zeros((cuts.size + 1, 2))
    np.add.at(table, bins, counts)
    return info_gain_from_table(table), [float(c) for c in cuts]


def best_binary_split_gain(
    values: np.ndarray[Any, Any],
    y: np.ndarray[Any, Any],
    weights: np.ndarray[Any, Any] | None = None,
) -> tuple[float, float | None]:
    """Largest IG (bits) over binary splits x ≤ t / x > t, t a midpoint; (gain, t)."""
    target = np.asarray(y, dtype=np.int64)
    uniques, counts = class_counts_by_value(np.asarray(values, np.float64), target, 2, weights)
    if uniques.size < 2:
        return 0.0, None
    prior = counts.sum(axis=0)
    left = np.cumsum(counts[:-1], axis=0)
    right = prior[None, :] - left
    gains = entropy_bits(prior) - conditional_entropy_bits(np.stack([left, right], axis=1))
    best = int(np.argmax(gains))
    return float(max(gains[best], 0.0)), float((uniques[best] + uniques[best + 1]) / 2.0)


def minmax_normalise(weights: Mapping[str, float]) -> dict[str, float]:
    """(w − min)/(max − min) (RapidMiner ``normalize_weights``).

    Degenerate case max = min: every weight becomes 1.0 if max > 0, else 0.0.
    """
    if not weights:
        return {}
    w = np.array(list(weights.values()), dtype=np.float64)
    lo, hi = float(w.min()), float(w.max())
    if hi - lo <= 1e-15:
        fill = 1.0 if hi > 0 else 0.0
        return dict.fromkeys(weights, fill)
    return {k: float((v - lo) / (hi - lo)) for k, v in weights.items()}


def _is_numeric(series: pd.Series) -> bool:
    return bool(
        pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype)
    )


def weka_weights(
    factors: pd.DataFrame, y: np.ndarray[Any, Any], weights: np.ndarray[Any, Any] | None = None
) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Weka-convention gains (bits) for every column of ``factors``, and the MDL cut points."""
    gains: dict[str, float] = {}
    cuts: dict[str, list[float]] = {}
    for column in factors.columns:
        series = factors[column]
        values = series.to_numpy() if _is_numeric(series) else series
        gain, cut = weka_info_gain(values, y, numeric=_is_numeric(series), weights=weights)
        gains[str(column)] = gain
        if _is_numeric(series):
            cuts[str(column)] = cut
    return gains, cuts


def rapidminer_weights(
    factors: pd.DataFrame,
    y: np.ndarray[Any, Any],
    weights: np.ndarray[Any, Any] | None = None,
) -> tuple[dict[str, float], dict[str, float]]:
    """RapidMiner-convention (normalised weights, raw gains in bits) for every column."""
    raw: dict[str, float] = {}
    target = np.asarray(y, dtype=np.int64)
    for column in factors.columns:
        series = factors[column]
        if _is_numeric(series):
            raw[str(column)] = best_binary_split_gain(series.to_numpy(), target, weights)[0]
        else:
            raw[str(column)] = info_gain_from_table(_nominal_table(series, target, weights))
    return minmax_normalise(raw), raw


def class_weighted_profiles(
    profile_code: np.ndarray[Any, Any], profiles: pd.DataFrame, y: np.ndarray[Any, Any]
) -> tuple[pd.DataFrame, np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The rows of a table as its distinct (factor profile, class) pairs with their counts.

    ``profile_code``, ``profiles``: ``group_codes(factors, factors.columns)``. Returns
    (factors, y, weights) with a row per profile and class that occurs, in profile order,
    class 0 first. The weights are whole numbers, so every weighted class count, and with it
    every gain and MDL cut point of :func:`weka_weights` and :func:`rapidminer_weights`, is
    the one of the rows themselves; and the values keep their order of first appearance.
    """
    target = np.asarray(y, dtype=np.int64)
    n = len(profiles)
    counts = np.bincount(profile_code * 2 + target, minlength=2 * n).astype(np.float64)
    present = np.flatnonzero(counts > 0)
    rows = profiles.take(present // 2).reset_index(drop=True)
    return rows, present % 2, counts[present]


def factor_columns(columns: Sequence[str], exclude: Sequence[str]) -> list[str]:
    """Columns used as factors: everything not in ``exclude``, in the given order."""
    return [c for c in columns if c not in set(exclude)]
