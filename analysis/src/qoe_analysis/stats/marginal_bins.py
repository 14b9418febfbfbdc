"""The points of a factor's marginal view: its tested levels, or bins (section ``marginals``).

Rule (docs/methods.md §2c), on the values of the ratings:

* At most :data:`MAX_LEVELS` (8) distinct values: one point per value as tested (numbers
  by value, text by text) — a designed study (table 4.1: four levels) keeps its levels,
  exactly as ``conditions`` shows them.
* A numeric factor with more: :data:`N_BINS` (5) equal-count bins, right-closed as
  ``pandas.cut(right=True, include_lowest=True)``: [e₀, e₁], (e₁, e₂] … (eₖ₋₁, eₖ]. The
  inner edges are the 20/40/60/80 % quantiles of the ratings' values (numpy's linear
  interpolation) rounded to the factor's resolution, two significant digits of its range:
  a step of 10^(⌊log10(max − min)⌋ − 1) (a range of 300 ms: 10 ms; of 3 %: 0.1 %); e₀ is
  the minimum rounded down, eₖ the maximum rounded up to that step. Edges equal after
  rounding are one, and a bin no rating falls in joins the one before, so there may be
  fewer points. When the minimum alone holds at least 1/5 of the ratings (a randomised
  design's unimpaired rounds: 0 ms, 0 %), it is a point of its own, [m, m] labelled as
  its level, and the values above it are cut into 4 equal-count bins (m, e₁] … (edges the
  25/50/75 % quantiles of those values, rounded alike): the no-impairment ratings are
  never pooled with impaired ones.
* A nominal factor with more: the ``MAX_LEVELS − 1`` values with the most ratings (ties by
  text) and one point "other (N levels)" pooling the rest.

A missing value (NaN, None: a questionnaire gap) is in no point; it is counted apart.

Why equal-count bins and not fixed-width ones: randomised datasets draw conditions from
skewed distributions (loss mostly near 0, a long tail of delay). Fixed-width bins put most
ratings into one bin and leave the tail's bins with a handful of ratings and intervals
that say nothing; equal-count bins give every point about n/5 ratings, so the intervals are
comparable and the edges show where the data lie. The edges are rounded so that they read
as an analyst's numbers (50 ms, not 47.3829 ms), and the registry states no resolution of
its own.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Literal

import numpy as np
import pandas as pd

from qoe_analysis.tabular import column_codes

__all__ = [
    "MAX_LEVELS",
    "N_BINS",
    "BinPoint",
    "FactorBins",
    "factor_bins",
    "factor_points",
    "number_text",
    "rater_values",
]

MAX_LEVELS = 8
N_BINS = 5
Binning = Literal["levels", "quantiles", "top_levels"]
Codes = np.ndarray[Any, np.dtype[np.int64]]


@dataclass(frozen=True)
class BinPoint:
    """One point: its label, tested level (None for a bin or "other") and numeric range."""

    label: str
    level: float | str | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class FactorBins:
    """The points of one factor and how to find a value's point (:meth:`codes`)."""

    binning: Binning
    numeric: bool
    points: tuple[BinPoint, ...]
    n_levels: int
    #: quantiles: the bin edges; levels: the tested numbers (sorted)
    edges: tuple[float, ...] = ()
    #: nominal: the point of each text (the "other" point for every other text)
    index: tuple[tuple[str, int], ...] = ()
    other: int = -1

    def codes(self, column: pd.Series) -> np.ndarray[Any, np.dtype[np.int64]]:
        """The point of each value; −1 for a missing value or one outside every point."""
        if not self.numeric:
            return _text_codes(column, dict(self.index), self.other)
        return self.number_codes(column.to_numpy(dtype=np.float64, na_value=np.nan))

    def number_codes(self, x: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.int64]]:
        """:meth:`codes` of numbers (NaN: missing)."""
        edges = np.asarray(self.edges, dtype=np.float64)
        if self.binning == "levels":
            at = np.minimum(np.searchsorted(edges, x), len(edges) - 1)
            return np.where(edges[at] == x, at, -1).astype(np.int64)
        # right-closed bins (a, b]; the first holds its lower edge, [e0, e1] (or [m, m])
        at = np.searchsorted(edges, x, side="left") - 1
        at[x == edges[0]] = 0
        at[at >= len(edges) - 1] = -1  # above the last edge, or NaN (sorted last)
        return at.astype(np.int64)


def number_text(value: float) -> str:
    """A number as a short text: whole numbers without a decimal point (``50``), others
    with up to six significant digits (``0.25``)."""
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.6g}"


def _text_codes(
    column: pd.Series, index: dict[str, int], other: int
) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Codes of text values: each distinct value (a category) looked up once."""
    codes, uniques = column_codes(column)
    lookup = np.array([index.get(str(u), other) for u in uniques] + [-1], dtype=np.int64)
    out: np.ndarray[Any, np.dtype[np.int64]] = lookup[codes]  # code −1: the −1 appended
    return out


def _text_counts(columns: Sequence[pd.Series]) -> dict[str, int]:
    """Ratings per text value over the columns (missing values and unused categories not
    counted)."""
    counts: dict[str, int] = {}
    for column in columns:
        codes, uniques = column_codes(column)
        per = np.bincount(codes[codes >= 0], minlength=len(uniques))
        for value, n in zip(uniques.tolist(), per.tolist(), strict=True):
            if n:
                counts[str(value)] = counts.get(str(value), 0) + n
    return counts


def _text_bins(counts: dict[str, int]) -> FactorBins:
    """Each text a point, or the most-rated ones and "other" (module docstring)."""
    if len(counts) <= MAX_LEVELS:
        texts = sorted(counts)
        points = tuple(BinPoint(t, t, None, None) for t in texts)
        index = tuple((t, i) for i, t in enumerate(texts))
        return FactorBins("levels", False, points, len(texts), index=index)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    top = sorted(t for t, _ in ranked[: MAX_LEVELS - 1])
    points_list = [BinPoint(t, t, None, None) for t in top]
    points_list.append(BinPoint(f"other ({len(ranked) - len(top)} levels)", None, None, None))
    index = tuple((t, i) for i, t in enumerate(top))
    return FactorBins(
        "top_levels", False, tuple(points_list), len(ranked), index=index, other=len(top)
    )


def _on_grid(x: float, digits: int, how: Literal["floor", "ceil", "round"]) -> float:
    """``x`` on the grid of 10^−digits (digits < 0: a grid of tens, hundreds…), by ``how``;
    the tolerance keeps a value already on the grid where binary noise would move it."""
    scaled = x * 10.0**digits if digits >= 0 else x / 10.0 ** (-digits)
    if how == "floor":
        k = math.floor(scaled + 1e-9)
    elif how == "ceil":
        k = math.ceil(scaled - 1e-9)
    else:
        k = round(scaled)
    return k / 10.0**digits if digits >= 0 else float(k * 10 ** (-digits))


def _quantile_edges(x: np.ndarray[Any, np.dtype[np.float64]], tied_min: bool) -> list[float]:
    """Rounded quantile edges (module docstring), equal ones merged; with ``tied_min`` the
    minimum itself twice (its own point [m, m]) and only the edges above it."""
    lo, hi = float(x.min()), float(x.max())
    digits = 1 - math.floor(math.log10(hi - lo))
    # The grid's tolerance may put an edge a rounding error inside the data: never cut off
    # the extreme values.
    top = max(_on_grid(hi, digits, "ceil"), hi)
    if tied_min:  # the values above the minimum in the other N_BINS − 1 bins
        above = x[x > lo]
        inner = np.quantile(above, [k / (N_BINS - 1) for k in range(1, N_BINS - 1)])
        edges = {_on_grid(float(q), digits, "round") for q in inner}
        return [lo, lo, *sorted(e for e in edges if lo < e < top), top]
    inner = np.quantile(x, [k / N_BINS for k in range(1, N_BINS)])
    edges = {_on_grid(float(q), digits, "round") for q in inner}
    bottom = min(_on_grid(lo, digits, "floor"), lo)
    return [bottom, *sorted(e for e in edges if bottom < e < top), top]


def _merged(edges: list[float], counts: list[int], tied_min: bool) -> list[float]:
    """The edges without those of empty bins: an empty bin joins the one before (after a
    point [m, m] of its own: the one after)."""
    kept = edges[:2]
    for i in range(1, len(counts)):
        if counts[i]:
            kept.append(edges[i + 1])
        elif not (tied_min and len(kept) == 2):
            kept[-1] = edges[i + 1]
    return kept


def _bin_point(a: float, b: float, first: bool) -> BinPoint:
    if a == b:
        return BinPoint(number_text(a), a, a, b)
    opening = "[" if first else "("
    return BinPoint(f"{opening}{number_text(a)}, {number_text(b)}]", None, a, b)


def _level_bins(values: np.ndarray[Any, np.dtype[np.float64]]) -> FactorBins:
    """One point per tested number (``values`` distinct and sorted)."""
    points = tuple(BinPoint(number_text(v), float(v), float(v), float(v)) for v in values)
    return FactorBins("levels", True, points, len(values), edges=tuple(values.tolist()))


def _quantile_bins(x: np.ndarray[Any, np.dtype[np.float64]], n_levels: int) -> FactorBins:
    """Equal-count bins (module docstring) of the values ``x`` (no NaN)."""
    tied_min = bool(np.count_nonzero(x == x.min()) * N_BINS >= x.size)
    edges = _quantile_edges(x, tied_min)
    trial = FactorBins("quantiles", True, (), n_levels, edges=tuple(edges))
    counts = np.bincount(trial.number_codes(x), minlength=len(edges) - 1).tolist()
    kept = _merged(edges, counts, tied_min)
    points = tuple(_bin_point(a, b, i == 0) for i, (a, b) in enumerate(pairwise(kept)))
    return FactorBins("quantiles", True, points, n_levels, edges=tuple(kept))


def _coded(factorised: tuple[Any, Any], distinct: np.ndarray[Any, Any]) -> Codes:
    """The index in ``distinct`` of each factorised value (−1 stays −1)."""
    codes, uniques = factorised
    lookup = np.append(np.searchsorted(distinct, np.asarray(uniques, dtype=np.float64)), -1)
    out: Codes = lookup[np.asarray(codes, dtype=np.int64)].astype(np.int64)
    return out


def factor_points(columns: Sequence[pd.Series], numeric: bool) -> tuple[FactorBins, list[Codes]]:
    """The points of a factor from its values in ``columns`` (each item's ratings: the
    points are made once for all of them; module docstring) and each column's point codes
    (−1: missing); ``numeric`` says whether the values are numbers (else they are told
    apart by their texts, as the labels are). Numbers are factorised once: their distinct
    values decide levels or bins, and tested levels are coded from them (one hash pass,
    no search per rating)."""
    if not numeric:
        bins = _text_bins(_text_counts(columns))
        return bins, [bins.codes(c) for c in columns]
    arrays = [c.to_numpy(dtype=np.float64, na_value=np.nan) for c in columns]
    factorised = [pd.factorize(a) for a in arrays]  # NaN: code −1
    distinct = np.unique(np.concatenate([np.asarray(u, dtype=np.float64) for _, u in factorised]))
    if len(distinct) <= MAX_LEVELS:
        return _level_bins(distinct), [_coded(f, distinct) for f in factorised]
    x = np.concatenate(arrays)
    bins = _quantile_bins(x[~np.isnan(x)], len(distinct))
    return bins, [bins.number_codes(a) for a in arrays]


def factor_bins(columns: Sequence[pd.Series], numeric: bool) -> FactorBins:
    """The points of :func:`factor_points` alone."""
    return factor_points(columns, numeric)[0]


def _is_number_column(column: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column))


def _as_numbers(column: pd.Series, missing: Collection[str]) -> pd.Series | None:
    """The text column as floats (its ``missing`` texts NaN) when every other text is a
    finite number, else None."""
    codes, uniques = column_codes(column)
    numbers = np.full(len(uniques) + 1, np.nan)  # the last: code −1, a missing cell
    for i, value in enumerate(uniques.tolist()):
        text = str(value).strip()
        if text in missing:
            continue
        try:
            numbers[i] = float(text)
        except ValueError:
            return None
        if not math.isfinite(numbers[i]):
            return None
    return pd.Series(numbers[codes], index=column.index)


def _without(column: pd.Series, missing: Collection[str]) -> pd.Series:
    """The text column with its ``missing`` texts as missing values."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        gone = [c for c in column.cat.categories if str(c) in missing]
        return column.cat.remove_categories(gone) if gone else column
    return column.mask(column.astype(object).isin(list(missing)))


def rater_values(
    columns: Sequence[pd.Series], missing: Collection[str] = ()
) -> tuple[list[pd.Series], bool]:
    """A per-rater or per-session column's values as the marginal view reads them (one
    series per item table), and whether they are numbers. A number column is read as it
    is (booleans are text); a text column with its ``missing`` texts as missing values (a
    dataset's questionnaire gap, which the models take as the level "(missing)"), and as
    numbers when every other text is one (an age with gaps keeps its order here)."""
    if all(_is_number_column(c) for c in columns):
        return list(columns), True
    numbers = [_as_numbers(c, missing) for c in columns]
    if all(n is not None for n in numbers):
        return [n for n in numbers if n is not None], True
    return [_without(c, missing) for c in columns], False
