"""MOS with its 95 % CI per factor level or bin, per rating item, per game and over all
games: the ``marginals`` section (docs/methods.md §2c).

For each analysed network factor (``both_X`` for a merged one) and each per-rater or
per-session column, the factor's points are its tested levels or bins
(:mod:`qoe_analysis.stats.marginal_bins`, made once from the values of every item's
ratings, so each item and game has the same points). A point pools the ratings whose value
falls in it, whatever the other factors were (a marginal: with randomised conditions most
conditions have one or two ratings, and the other factors average out over the draws):

* n ratings, n distinct raters;
* MOS = Σrᵢ/n, SOS = √(Σ(rᵢ − MOS)²/(n − 1));
* 95 % CI = MOS ± t(0.975, n − 1)·SOS/√n (Student t, ITU-T P.1401 §7.3) clipped to the
  item's scale with ``ci95_status`` "ok" / "clipped" / "n_too_small" — the interval and
  status of the conditions table (:func:`qoe_analysis.stats.conditions.bounded_interval`);
  MOS and SOS are None for n = 0, SOS and the CI for n < 2.

A rating without a value of the factor (a questionnaire gap; in a dataset's table the
answer "(missing)", given as ``missing_texts``) is in no point and counted in the series'
``n_missing``. A per-rater column with fewer than two distinct values is
given no view (a note says so): its one point would be the item's overall MOS.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from qoe_analysis.scales import scale_points
from qoe_analysis.schema.marginal_types import (
    MarginalFactor,
    MarginalPoint,
    Marginals,
    MarginalSeries,
    MarginalSource,
)
from qoe_analysis.stats.conditions import (
    ALL_GAMES,
    Bounds,
    bounded_interval,
    t_quantile,
)
from qoe_analysis.stats.marginal_bins import (
    MAX_LEVELS,
    N_BINS,
    FactorBins,
    factor_points,
    rater_values,
)
from qoe_analysis.study_factors import factor_of, select_factors
from qoe_analysis.tabular import column_codes
from qoe_analysis.tidy.design import GAME, RATER, RATING

__all__ = ["BINNING", "METHOD", "marginals_section"]

METHOD = (
    "the ratings whose factor value falls in a point pooled, whatever the other factors: "
    "n ratings, n distinct raters, MOS, SOS (ddof 1), 95 % CI = MOS +- t(0.975, n - 1) * "
    "SOS / sqrt(n) (Student t, ITU-T P.1401) clipped to the item's scale (ci95_status, as "
    "in conditions); per item, factor and game, and over all games"
)
BINNING = (
    f"at most {MAX_LEVELS} distinct values: one point per tested value; a numeric factor "
    f"with more: {N_BINS} equal-count bins [e0, e1], (e1, e2] ..., inner edges the "
    "20/40/60/80 % quantiles of the ratings' values rounded to two significant digits of "
    "the factor's range (e0: min rounded down, last: max rounded up), empty bins merged, "
    "and a minimum that holds >= 1/5 of the ratings a point of its own (the values above "
    f"it in {N_BINS - 1} bins); a nominal factor with more: its {MAX_LEVELS - 1} most-rated "
    "values and 'other'; missing values in no point (n_missing)"
)
#: Cells × raters up to which distinct raters are counted on a bitmap (64 MiB of bools).
_BITMAP_LIMIT = 1 << 26
_NO_VIEW = "fewer than two distinct values among the ratings: no marginal view"


@dataclass(frozen=True)
class _Ratings:
    """One item's ratings as arrays: rating, rater code, game code (games sorted) and, on a
    discrete scale, each rating's point index (the statistics then come from histograms)."""

    rating: np.ndarray[Any, np.dtype[np.float64]]
    rater: np.ndarray[Any, np.dtype[np.int64]]
    n_raters: int
    game: np.ndarray[Any, np.dtype[np.int64]]
    games: list[str]
    bounds: Bounds
    points: np.ndarray[Any, np.dtype[np.float64]] | None
    point_of: np.ndarray[Any, np.dtype[np.int64]] | None

    @classmethod
    def of(cls, table: pd.DataFrame, scale: Mapping[str, Any]) -> _Ratings:
        raters, rater_names = column_codes(table[RATER])
        codes, names = column_codes(table[GAME])
        # sorted by name; a category without ratings is no game of the data
        used = sorted({int(c) for c in np.unique(codes) if c >= 0}, key=lambda c: str(names[c]))
        remap = np.full(len(names) + 1, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        rating = table[RATING].to_numpy(dtype=np.float64)
        points = scale_points(scale)
        return cls(
            rating=rating,
            rater=np.asarray(raters, dtype=np.int64),
            n_raters=max(len(rater_names), 1),
            game=remap[np.asarray(codes, dtype=np.int64)],
            games=[str(names[c]) for c in used],
            bounds=(float(scale["min"]), float(scale["max"])),
            points=None if points is None else np.asarray(points, dtype=np.float64),
            point_of=None if points is None else (rating - points[0]).astype(np.int64),
        )


def _number(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


@dataclass(frozen=True)
class _Pooled:
    """Per cell: n, n raters, MOS, SOS and the clipped interval with its status."""

    n: np.ndarray[Any, Any]
    n_raters: np.ndarray[Any, Any]
    mos: np.ndarray[Any, Any]
    sos: np.ndarray[Any, Any]
    low: np.ndarray[Any, Any]
    high: np.ndarray[Any, Any]
    status: np.ndarray[Any, Any]


@dataclass(frozen=True)
class _Moments:
    """Per cell: n, MOS (NaN for n = 0) and the sum of squared deviations M2."""

    n: np.ndarray[Any, Any]
    mos: np.ndarray[Any, Any]
    m2: np.ndarray[Any, Any]

    @classmethod
    def of_histogram(cls, counts: np.ndarray[Any, Any], points: np.ndarray[Any, Any]) -> _Moments:
        c = counts.astype(np.float64)
        n = c.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mos = (c @ points) / n
            m2 = (c * (points[None, :] - mos[:, None]) ** 2).sum(axis=1)
        return cls(n, mos, m2)


def _summary(
    n: np.ndarray[Any, Any],
    mos: np.ndarray[Any, Any],
    m2: np.ndarray[Any, Any],
    n_raters: np.ndarray[Any, Any],
    bounds: Bounds,
) -> _Pooled:
    """SOS and the clipped t interval from n, MOS and the sum of squared deviations."""
    with np.errstate(invalid="ignore", divide="ignore"):
        sos = np.where(n > 1, np.sqrt(m2 / np.maximum(n - 1, 1)), np.nan)
        t = np.where(n > 1, t_quantile(0.975, np.maximum(n - 1, 1)), np.nan)
        half = t * sos / np.sqrt(n)
    low, high, status = bounded_interval(mos, half, n, bounds)
    return _Pooled(n, n_raters, mos, sos, low, high, status)


def _moments(
    ratings: _Ratings, cell: np.ndarray[Any, Any], used: np.ndarray[Any, Any] | None, size: int
) -> _Moments:
    """n, MOS and the sum of squared deviations M2 per cell code of the ``used`` ratings:
    from the histogram of the scale points per cell on a discrete scale (one pass, as
    :func:`~qoe_analysis.stats.conditions.summarise_histograms`), else in two passes."""
    if ratings.points is not None and ratings.point_of is not None:
        points = ratings.points
        index = ratings.point_of if used is None else ratings.point_of[used]
        counts = np.bincount(cell * len(points) + index, minlength=size * len(points))
        return _Moments.of_histogram(counts.reshape(size, len(points)), points)
    rating = ratings.rating if used is None else ratings.rating[used]
    n = np.bincount(cell, minlength=size).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mos = np.bincount(cell, weights=rating, minlength=size) / n
    m2 = np.bincount(cell, weights=(rating - mos[cell]) ** 2, minlength=size)
    return _Moments(n, mos, m2)


def _pooled(ratings: _Ratings, codes: np.ndarray[Any, Any], k: int) -> tuple[_Pooled, _Pooled]:
    """The ratings pooled per (game, point) — cell game·k + point — and per point over all
    games (−1: in no point); the games are merged exactly (Chan, Golub & LeVeque 1979:
    M2 = Σ M2_g + Σ n_g·(MOS_g − MOS)²)."""
    g = len(ratings.games)
    used = codes >= 0
    mask = None if used.all() else used  # copy only then: most factors have every value
    rater, game = (
        (ratings.rater, ratings.game) if mask is None else (ratings.rater[used], ratings.game[used])
    )
    cell = game * k + (codes if mask is None else codes[used])
    per_game = _moments(ratings, cell, mask, g * k)
    n, mos, m2 = per_game.n, per_game.mos, per_game.m2
    with np.errstate(invalid="ignore", divide="ignore"):
        n_all = n.reshape(g, k).sum(axis=0)
        mos_all = np.nansum((n * mos).reshape(g, k), axis=0) / n_all
        spread = np.nan_to_num(n * (mos - np.tile(mos_all, g)) ** 2).reshape(g, k)
    m2_all = np.nan_to_num(m2).reshape(g, k).sum(axis=0) + spread.sum(axis=0)
    raters, raters_all = _distinct_raters(cell, rater, ratings.n_raters, g, k)
    return (
        _summary(n, mos, m2, raters, ratings.bounds),
        _summary(n_all, mos_all, m2_all, raters_all, ratings.bounds),
    )


def _distinct_raters(
    cell: np.ndarray[Any, Any], rater: np.ndarray[Any, Any], n_raters: int, g: int, k: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Distinct raters per (game, point) cell and per point over all games: on a (cell ×
    rater) bitmap when it is small (one pass, no sort), else from the sorted distinct
    (cell, rater) keys."""
    key = cell * n_raters + rater
    if g * k * n_raters <= _BITMAP_LIMIT:
        seen = np.zeros(g * k * n_raters, dtype=bool)
        seen[key] = True
        grid = seen.reshape(g, k, n_raters)
        return grid.sum(axis=2).ravel(), grid.any(axis=0).sum(axis=1)
    distinct = _sorted_distinct(key)
    per_point = _sorted_distinct((distinct // n_raters) % k * n_raters + distinct % n_raters)
    return (
        np.bincount(distinct // n_raters, minlength=g * k),
        np.bincount(per_point // n_raters, minlength=k),
    )


def _sorted_distinct(keys: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    ordered = np.sort(keys)
    first = np.ones(ordered.size, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return ordered[first]


def _points(bins: FactorBins, pooled: _Pooled, offset: int = 0) -> list[MarginalPoint]:
    """The factor's points with the pooled numbers of cells ``offset``, ``offset + 1``…"""
    out: list[MarginalPoint] = []
    for i, p in enumerate(bins.points):
        k = offset + i
        out.append(
            {
                "label": p.label,
                "level": p.level,
                "low": p.low,
                "high": p.high,
                "n": int(pooled.n[k]),
                "n_raters": int(pooled.n_raters[k]),
                "mos": _number(pooled.mos[k]),
                "sos": _number(pooled.sos[k]),
                "ci95_low": _number(pooled.low[k]),
                "ci95_high": _number(pooled.high[k]),
                "ci95_status": pooled.status[k],
            }
        )
    return out


def _series(
    item: str, factor: str, ratings: _Ratings, codes: np.ndarray[Any, Any], bins: FactorBins
) -> list[MarginalSeries]:
    """The series of one item and factor: per game (sorted), then over all games."""
    k = len(bins.points)
    per_game, pooled = _pooled(ratings, codes, k)
    missing = codes < 0
    n_missing = np.bincount(ratings.game[missing], minlength=len(ratings.games))
    games = [(game, int(n_missing[i]), per_game, i * k) for i, game in enumerate(ratings.games)]
    games.append((ALL_GAMES, int(missing.sum()), pooled, 0))
    return [
        {
            "item": item,
            "factor": factor,
            "game": game,
            "n_missing": lacking,
            "points": _points(bins, numbers, offset),
        }
        for game, lacking, numbers, offset in games
    ]


def _values(table: pd.DataFrame, column: str) -> pd.Series:
    """The column (a merged ``both_X``: its downstream column)."""
    return select_factors(table, [column]).iloc[:, 0]


def _describe(column: str, source: MarginalSource, bins: FactorBins) -> MarginalFactor:
    label, unit = column, ""
    if source == "network":
        direction, factor = factor_of(column)
        label = f"{factor.label}, {'both directions' if direction == 'both' else direction}"
        unit = factor.unit
    kind: Literal["numeric", "nominal"] = "numeric" if bins.numeric else "nominal"
    return {
        "factor": column,
        "label": label,
        "source": source,
        "kind": kind,
        "unit": unit,
        "binning": bins.binning,
        "n_levels": bins.n_levels,
    }


def marginals_section(
    tables: Mapping[str, pd.DataFrame],
    scales: Mapping[str, Mapping[str, Any]],
    network: Sequence[str],
    rater_columns: Sequence[str],
    *,
    raters: Literal["all", "reliable"] = "all",
    missing_texts: Collection[str] = (),
) -> Marginals:
    """The ``marginals`` section from the ratings of each item (``tables``: item key →
    table with ``rater_id``, ``game``, ``rating`` and the factor columns), each item's
    scale (``scales``: the intervals are clipped to its ends), the analysed network
    factors (registry order, ``both_X`` for a merged pair) and the per-rater or per-session
    columns, whose ``missing_texts`` are gaps
    (:func:`~qoe_analysis.stats.marginal_bins.rater_values`). ``raters`` says whose
    ratings the tables hold."""
    sources: list[tuple[str, MarginalSource]] = [
        *((c, "network") for c in network),
        *((c, "rater") for c in rater_columns),
    ]
    factors: list[MarginalFactor] = []
    made: list[tuple[str, FactorBins, dict[str, np.ndarray[Any, Any]]]] = []
    notes: dict[str, str] = {}
    for column, source in sources:
        columns = [_values(table, column) for table in tables.values()]
        numeric = factor_of(column)[1].kind == "numeric" if source == "network" else False
        if source == "rater":
            columns, numeric = rater_values(columns, missing_texts)
        bins, codes = factor_points(columns, numeric)
        if source == "rater" and bins.n_levels < 2:
            notes[column] = _NO_VIEW
            continue
        factors.append(_describe(column, source, bins))
        made.append((column, bins, dict(zip(tables, codes, strict=True))))
    series: list[MarginalSeries] = []
    for key, table in tables.items():
        ratings = _Ratings.of(table, scales[key])
        for column, bins, codes_of in made:
            series.extend(_series(key, column, ratings, codes_of[key], bins))
    return {
        "method": METHOD,
        "binning": BINNING,
        "max_levels": MAX_LEVELS,
        "n_bins": N_BINS,
        "raters": raters,
        "factors": factors,
        "series": series,
        "notes": notes,
    }
