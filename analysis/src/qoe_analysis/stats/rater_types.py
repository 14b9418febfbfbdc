"""Raters with the same observations as one type of rater, for the subject model.

Why a module of its own: in a large study many raters give the same ratings to the same
conditions (few conditions each, a 5-point scale), and raters with the same observations
have the same estimates at every step of the fit. Fitting each type once, weighted by its
number of raters, shrinks the sums of every iteration; the fit is that of the raters one by
one up to the order of floating-point sums (tests/test_subject_model_rater_types.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from qoe_analysis.stats.design_blocks import Array, IntArray
from qoe_analysis.tabular import first_positions

__all__ = ["RaterTypes", "rater_types"]


@dataclass(frozen=True)
class RaterTypes:
    """Raters grouped by their observations (:func:`rater_types`)."""

    of_rater: IntArray  # the type of each rater, −1 for a rater without observations
    first_rater: IntArray  # the first rater of each type
    weight: Array  # raters of each type
    r: IntArray  # the first raters' observations, r = their type
    c: IntArray
    u: Array

    def expand(self, per_type: Array) -> Array:
        """A value per rater from one per type (NaN for raters without observations)."""
        return np.where(self.of_rater >= 0, per_type[self.of_rater], np.nan)


def rater_types(r: IntArray, c: IntArray, u: Array, n_r: int) -> RaterTypes | None:
    """The raters with the same multiset of (condition, rating) observations as one type,
    or ``None`` when every rater's is different.

    Raters of a type have the same terms in the subject model's likelihood, hence the same
    Δ and υ at every step of its fit
    (:func:`~qoe_analysis.stats.subject_model_ascent.maximise_likelihood`): it updates each
    type once, weighting the sums over raters by the type's size. A study of a million
    ratings by 100,000 raters of 10 ratings on a 5-point scale has about 25,000 types.
    Types are numbered in the order of their first raters, so the design's blocks keep
    their order. Each rater's observations become one padded row as wide as the most
    ratings of a rater: when that exceeds both 16 and 4× the mean, no rater is grouped
    (``None``; the padding would not pay)."""
    counts = np.bincount(r, minlength=n_r)
    present = np.flatnonzero(counts)
    width = int(counts.max(initial=0))
    if present.size < 2 or width > max(16, 4 * r.size // present.size):
        return None
    if np.any(r[1:] < r[:-1]):
        order = np.argsort(r, kind="stable")
        r, c, u = r[order], c[order], u[order]
    values, value_code = np.unique(u, return_inverse=True)
    observation = c * np.int64(values.size) + value_code.astype(np.int64)
    row = np.full(n_r, -1, dtype=np.int64)
    row[present] = np.arange(present.size)
    first = np.cumsum(counts) - counts
    padded = np.full((present.size, width), -1, dtype=np.int64)
    padded[row[r], np.arange(r.size) - first[r]] = observation
    padded.sort(axis=1)
    # each sorted row as one opaque value: equal rows, equal bytes
    rows = padded.view(np.dtype((np.void, padded.dtype.itemsize * width))).ravel()
    type_of_present, firsts = pd.factorize(rows)
    if len(firsts) == present.size:
        return None
    of_rater = np.full(n_r, -1, dtype=np.int64)
    of_rater[present] = type_of_present
    n_types = len(firsts)
    # type numbers follow the first appearance among the raters in order
    first_rater = present[first_positions(np.asarray(type_of_present))]
    is_first = np.zeros(n_r, dtype=bool)
    is_first[first_rater] = True
    mine = is_first[r]
    return RaterTypes(
        of_rater=of_rater,
        first_rater=first_rater,
        weight=np.bincount(type_of_present, minlength=n_types).astype(np.float64),
        r=of_rater[r[mine]],
        c=c[mine],
        u=u[mine],
    )
