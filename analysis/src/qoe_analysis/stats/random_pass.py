"""How often a rater who rates at random would pass the intra-rater rule on a given design.

The intra-rater rule (:mod:`qoe_analysis.stats.intra_rater`) calls a rater reliable when the
unweighted mean of their counted per-(session, group) Spearman ρ is below −cutoff. On a
small design a rater who ignores the conditions passes this often: with four ratings over
four levels on ACR-5, about one random rater in seven has ρ < −0.6. So the rule's verdict
is evidence only when the design makes passing by chance rare.

Null model. The rater rates every rating slot independently and uniformly at random on the
item's scale: each of the scale's points with equal probability (a discrete scale, e.g.
ACR 1..5: P = 1/5 each), or uniform on [min, max] (a continuous scale: no ties). The
design is the rater's own: the impairment levels of the ratings in each of their counted
(session, group) correlations. Only the ranks of the levels matter to Spearman ρ, and the
null ratings are exchangeable, so a correlation's design is its *pattern*: the number of
ratings at each distinct level, in level order (``(1, 1, 1, 1)`` = four ratings at four
levels). ρ is Pearson r of the average ranks (ties share ranks); it is undefined (NaN)
when the ratings are constant, as in the rule, and the rater's mean is over the defined
ones. The rater "passes by chance" when that mean is < −cutoff.

``p_random_pass`` = P(pass | null) is estimated by seeded Monte Carlo: for each pattern, a
bank of ``n_draws`` null ρ values (a numpy Generator seeded by ``seed`` and the pattern);
for each rater design (the multiset of their patterns), ``n_draws`` null raters, each
taking for every counted correlation an independent draw from its pattern's bank (seeded
by ``seed`` and the design). Banks and designs are cached (:func:`functools.lru_cache`),
so a study whose raters share a design costs one simulation however many ratings it has.
The standard error of the estimate is √(p(1−p)/n_draws) (≈ 0.0007 at p = 0.01 with the
default 20 000 draws).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

__all__ = [
    "EVIDENCE_LEVEL",
    "N_DRAWS",
    "Pattern",
    "p_random_pass",
    "random_rho_bank",
]

#: A rater is judged "reliable" only when p_random_pass <= this (else "not assessable").
EVIDENCE_LEVEL = 0.01
#: Monte Carlo draws per pattern bank and per rater design.
N_DRAWS = 20_000
#: Null ratings drawn at once when a bank is made (memory bound: rows × ratings floats).
_CHUNK_CELLS = 2_000_000

Pattern = tuple[int, ...]  # ratings per distinct level, in level order
Points = tuple[float, ...] | None  # the discrete scale's points; None = continuous
Design = tuple[tuple[Pattern, int], ...]  # (pattern, number of such correlations), sorted


def _seed_words(seed: int, *parts: object) -> list[int]:
    """A seed sequence from ``seed`` and a stable digest of ``parts`` (not Python's hash,
    which changes between runs)."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return [seed & 0xFFFFFFFF, *np.frombuffer(digest[:16], dtype=np.uint32).tolist()]


def _average_ranks(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Average ranks (1-based, ties share their mean rank) along the last axis."""
    from scipy.stats import rankdata  # type: ignore[import-untyped]

    return np.asarray(rankdata(values, method="average", axis=-1), dtype=np.float64)


def _rows_pearson(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Pearson r of the fixed vector ``x`` with each row of ``y`` (NaN for a constant row;
    the same 1e-12 tolerance as :mod:`qoe_analysis.stats.grouped_pearson`)."""
    dx = x - x.mean()
    dy = y - y.mean(axis=1, keepdims=True)
    sxx = float(dx @ dx)
    syy = np.einsum("ij,ij->i", dy, dy)
    sxy = dy @ dx
    tol = 1e-12 * max(x.size, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where((syy > tol) & (sxx > tol), sxy / np.sqrt(sxx * syy), np.nan)
    return np.clip(r, -1.0, 1.0)


@lru_cache(maxsize=4096)
def random_rho_bank(
    pattern: Pattern, points: Points, n_draws: int = N_DRAWS, seed: int = 0
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """``n_draws`` Spearman ρ of null ratings (module doc) against levels with ``pattern``.

    ``points``: the discrete scale's points (None: continuous, ties have probability 0).
    NaN where the null ratings are constant. Read-only (cached)."""
    n = int(sum(pattern))
    level_ranks = _average_ranks(np.repeat(np.arange(len(pattern)), pattern).astype(np.float64))
    rng = np.random.default_rng(_seed_words(seed, "bank", pattern, points))
    out = np.empty(n_draws, dtype=np.float64)
    step = max(1, _CHUNK_CELLS // max(n, 1))
    for start in range(0, n_draws, step):
        rows = min(step, n_draws - start)
        if points is None:
            ratings = rng.random((rows, n))
        else:
            ratings = np.asarray(points, dtype=np.float64)[
                rng.integers(len(points), size=(rows, n))
            ]
        out[start : start + rows] = _rows_pearson(level_ranks, _average_ranks(ratings))
    out.flags.writeable = False
    return out


@lru_cache(maxsize=65536)
def _design_pass(design: Design, points: Points, cutoff: float, n_draws: int, seed: int) -> float:
    """P(mean null ρ < −cutoff) for one design (module doc); cached per design."""
    rng = np.random.default_rng(_seed_words(seed, "design", design, points, cutoff))
    total = np.zeros(n_draws, dtype=np.float64)
    count = np.zeros(n_draws, dtype=np.float64)
    for pattern, copies in design:
        bank = random_rho_bank(pattern, points, n_draws, seed)
        if len(design) == 1 and copies == 1:
            total += np.nan_to_num(bank)  # one correlation: the bank is the null itself
            count += ~np.isnan(bank)
            continue
        rows_per_chunk = max(1, _CHUNK_CELLS // n_draws)  # memory bound for long designs
        for start in range(0, copies, rows_per_chunk):
            rows = min(rows_per_chunk, copies - start)
            draws = bank[rng.integers(n_draws, size=(rows, n_draws))]
            defined = ~np.isnan(draws)
            total += np.where(defined, draws, 0.0).sum(axis=0)
            count += defined.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
    return float(np.mean(mean < -cutoff))  # NaN (no defined ρ) compares False: no pass


def p_random_pass(
    patterns: Sequence[Pattern],
    *,
    points: Sequence[float] | None,
    cutoff: float,
    n_draws: int = N_DRAWS,
    seed: int = 0,
) -> float:
    """P(a rater rating uniformly at random passes the intra-rater rule) on a design whose
    counted correlations have the level ``patterns`` (one entry per correlation).

    NaN without patterns (nothing counted: the rule cannot be passed nor failed)."""
    if not patterns:
        return float("nan")
    counts: dict[Pattern, int] = {}
    for pattern in patterns:
        counts[tuple(pattern)] = counts.get(tuple(pattern), 0) + 1
    design = tuple(sorted(counts.items()))
    scale = None if points is None else tuple(float(p) for p in points)
    return _design_pass(design, scale, float(cutoff), int(n_draws), int(seed))
