"""Supervised discretisation by the MDL criterion of Fayyad & Irani (IJCAI 1993).

This reproduces Weka's ``weka.filters.supervised.attribute.Discretize`` (default Fayyad–Irani
mode, as called by ``InfoGainAttributeEval`` with ``useBetterEncoding = true``):

1. On a subset of instances sorted by value, candidate cuts are the midpoints between
   adjacent distinct values; the cut minimising the class entropy conditioned on the two
   sides is chosen (the first one on ties).
2. The cut is accepted iff Gain > (log₂(N − 1) + Δ) / N with
   Δ = log₂(3ᵏ − 2) − (k·Ent(S) − k₁·Ent(S₁) − k₂·Ent(S₂)), k = number of classes present.
   Weka's "better encoding" replaces N − 1 inside the log by the number of candidate cut
   points of the subset (distinct values − 1).
3. Accepted cuts are refined recursively on both sides.

The work is done on sorted distinct values with per-class (weighted) counts, so one call
costs O(n log n) for sorting plus O(u · depth) for u distinct values.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["class_counts_by_value", "mdl_cut_points", "mdl_cut_points_from_counts"]

_LOG2 = np.log(2.0)


def _ln_func(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Weka's ContingencyTables.lnFunc: x·ln x, and 0 for x < 1e-6."""
    x = np.asarray(x, dtype=np.float64)
    safe = np.where(x < 1e-6, 1.0, x)
    return np.where(x < 1e-6, 0.0, x * np.log(safe))


def entropy_bits(counts: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Entropy in bits of count vectors along the last axis (Weka ContingencyTables.entropy).

    H = (−Σ cᵢ ln cᵢ + N ln N) / (N ln 2); 0 when N = 0.
    """
    c = np.asarray(counts, dtype=np.float64)
    ret = np.zeros(c.shape[:-1])
    total = np.zeros(c.shape[:-1])
    for j in range(c.shape[-1]):
        ret = ret - _ln_func(c[..., j])
        total = total + c[..., j]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (ret + _ln_func(total)) / (total * _LOG2)
    return np.where(np.abs(total) < 1e-6, 0.0, out)


def conditional_entropy_bits(table: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Class entropy in bits conditioned on the rows of contingency table(s) [..., rows, classes].

    Weka ContingencyTables.entropyConditionedOnRows: −(Σᵢⱼ cᵢⱼ ln cᵢⱼ − Σᵢ Nᵢ ln Nᵢ)/(N ln 2).
    """
    t = np.asarray(table, dtype=np.float64)
    ret = np.zeros(t.shape[:-2])
    total = np.zeros(t.shape[:-2])
    for i in range(t.shape[-2]):
        row_sum = np.zeros(t.shape[:-2])
        for j in range(t.shape[-1]):
            ret = ret + _ln_func(t[..., i, j])
            row_sum = row_sum + t[..., i, j]
        ret = ret - _ln_func(row_sum)
        total = total + row_sum
    with np.errstate(invalid="ignore", divide="ignore"):
        out = -ret / (total * _LOG2)
    return np.where(np.abs(total) < 1e-6, 0.0, out)


def class_counts_by_value(
    values: np.ndarray[Any, Any],
    classes: np.ndarray[Any, Any],
    n_classes: int,
    weights: np.ndarray[Any, Any] | None = None,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Sorted distinct values and the (weighted) class counts of each: (u,), (u, n_classes)."""
    codes, uniques = pd.factorize(np.asarray(values), sort=False)
    order = np.argsort(np.asarray(uniques), kind="stable")
    remap = np.empty_like(order)
    remap[order] = np.arange(order.size)
    sorted_codes = remap[codes]
    flat = np.bincount(
        sorted_codes * n_classes + np.asarray(classes, dtype=np.int64),
        weights=weights,
        minlength=order.size * n_classes,
    )
    return np.asarray(uniques)[order], flat.reshape(order.size, n_classes).astype(np.float64)


def _fayyad_irani_accepts(
    prior: np.ndarray[Any, Any],
    left: np.ndarray[Any, Any],
    right: np.ndarray[Any, Any],
    n_instances: float,
    n_cut_points: int,
) -> bool:
    prior_entropy = float(entropy_bits(prior))
    entropy = float(conditional_entropy_bits(np.stack([left, right])))
    gain = prior_entropy - entropy
    k = int((prior > 0).sum())
    k1 = int((left > 0).sum())
    k2 = int((right > 0).sum())
    delta = np.log2(3.0**k - 2.0) - (
        k * prior_entropy - k2 * float(entropy_bits(right)) - k1 * float(entropy_bits(left))
    )
    return bool(gain > (np.log2(n_cut_points) + delta) / n_instances)


def mdl_cut_points_from_counts(
    uniques: np.ndarray[Any, Any],
    counts: np.ndarray[Any, Any],
    *,
    better_encoding: bool = True,
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """MDL cut points given sorted distinct values and their class counts (see module doc)."""
    u = np.asarray(uniques, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    cuts: list[float] = []
    stack = [(0, u.size)]
    while stack:
        first, last = stack.pop()
        sub = c[first:last]
        n_instances = float(sub.sum())
        if last - first < 2 or n_instances < 2:
            continue
        prior = sub.sum(axis=0)
        prior_entropy = float(entropy_bits(prior))
        left = np.cumsum(sub[:-1], axis=0)
        right = prior[None, :] - left
        cand = conditional_entropy_bits(np.stack([left, right], axis=1))
        best = int(np.argmin(cand))
        if not cand[best] < prior_entropy:
            continue
        n_cut_points = (last - first - 1) if better_encoding else round(n_instances) - 1
        if not _fayyad_irani_accepts(prior, left[best], right[best], n_instances, n_cut_points):
            continue
        cuts.append((u[first + best] + u[first + best + 1]) / 2.0)
        stack.append((first, first + best + 1))
        stack.append((first + best + 1, last))
    return np.array(sorted(cuts), dtype=np.float64)


def mdl_cut_points(
    values: np.ndarray[Any, Any],
    classes: np.ndarray[Any, Any],
    *,
    n_classes: int | None = None,
    weights: np.ndarray[Any, Any] | None = None,
    better_encoding: bool = True,
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Fayyad–Irani MDL cut points of a numeric attribute for integer class labels 0..k−1."""
    y = np.asarray(classes, dtype=np.int64)
    k = int(n_classes if n_classes is not None else (y.max() + 1 if y.size else 1))
    uniques, counts = class_counts_by_value(np.asarray(values, dtype=np.float64), y, k, weights)
    return mdl_cut_points_from_counts(uniques, counts, better_encoding=better_encoding)
