"""Pearson r within groups, for many groups at once (rater screening and Spearman ρ).

r = Sxy / √(Sxx·Syy) with sums of the centred values over each group's rows, each sum one
``numpy.bincount`` pass; NaN where a variance is 0 (within 1e-12 per row).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["GroupedPearson", "grouped_pearson"]


def grouped_pearson(
    codes: np.ndarray[Any, Any],
    x: np.ndarray[Any, Any],
    y: np.ndarray[Any, Any],
    n_groups: int,
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Pearson r of (x, y) within each group code 0..n_groups−1 (NaN if a variance is 0).

    r = Sxy / √(Sxx·Syy) with centred sums; computed with one bincount pass per moment.
    """
    return GroupedPearson(codes, x, n_groups).against(y)


class GroupedPearson:
    """:func:`grouped_pearson` of a fixed ``x`` against several ``y``: the group sizes and
    the centred x and its Sxx are computed once (the P.913 passes correlate the same
    ratings with new means each pass); each ``against(y)`` does the same operations as
    a call of :func:`grouped_pearson`, so its result is the same bit for bit."""

    def __init__(self, codes: np.ndarray[Any, Any], x: np.ndarray[Any, Any], n_groups: int) -> None:
        self.codes, self.n_groups = codes, n_groups
        self.w = np.bincount(codes, minlength=n_groups).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mx = np.bincount(codes, x, n_groups) / self.w
            self.dx = x - mx[codes]
            self.sxx = np.bincount(codes, self.dx * self.dx, n_groups)

    def against(self, y: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.float64]]:
        codes, n_groups, w, dx, sxx = self.codes, self.n_groups, self.w, self.dx, self.sxx
        with np.errstate(invalid="ignore", divide="ignore"):
            my = np.bincount(codes, y, n_groups) / w
            dy = y - my[codes]
            sxy = np.bincount(codes, dx * dy, n_groups)
            syy = np.bincount(codes, dy * dy, n_groups)
            tol = 1e-12 * np.maximum(w, 1.0)
            defined = (sxx > tol) & (syy > tol)
            r = np.where(defined, sxy / np.sqrt(sxx * syy), np.nan)
        return np.clip(r, -1.0, 1.0)
