"""Intra-rater reliability: Spearman ρ between a rater's ratings and the impairment level.

Following Hoßfeld et al. (as used in the dissertation, ch. 4.2.2): for each session and
each factor group of :func:`qoe_analysis.stats.scenario_groups.scenario_groups`, Spearman ρ
between the ratings and the impairment level (ties get average ranks). Issue 31 adds the
evidence the rule needs:

* a (session, group) correlation **counts** only with >= 4 ratings over >= 3 distinct
  levels (:data:`MIN_RATINGS`, :data:`MIN_LEVELS`): ρ of two or three ratings is ±1 or
  ±0.5 by construction;
* a rater's ρ is the unweighted mean of their counted, defined correlations (undefined
  when the ratings are constant in each), and **its sign matters**: the rater passes when
  ρ < −cutoff (0.6 in the dissertation): the rating falls as the impairment rises;
  ρ >= −cutoff is ``unreliable`` (ρ > 0: "ratings rise with the impairment");
* a verdict, either way, is **evidence** only when a rater who rates uniformly at random
  on the item's scale would pass on this rater's own counted design with probability
  ``p_random_pass`` <= 0.01 (:mod:`qoe_analysis.stats.random_pass`, seeded Monte Carlo):
  on a design where chance passes the rule, failing it says as little as passing it.
  Otherwise the rater is ``not_assessable`` and the reason gives the number.

``not_assessable`` also covers a design without a varying group (randomised conditions), a
rater with no counted correlation, and constant ratings in every counted correlation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.scales import scale_points
from qoe_analysis.stats.grouped_pearson import grouped_pearson
from qoe_analysis.stats.random_pass import EVIDENCE_LEVEL, N_DRAWS, Pattern, p_random_pass
from qoe_analysis.stats.scenario_groups import ScenarioGroup
from qoe_analysis.stats.sessions import Sessions, session_codes
from qoe_analysis.tabular import column_codes, first_positions, row_keys
from qoe_analysis.text_order import text_order
from qoe_analysis.tidy.design import RATER, RATING, SCENARIO

__all__ = ["MIN_LEVELS", "MIN_RATINGS", "intra_rater_reliability", "rho_reasons"]

#: A (session, group) correlation counts with at least this many ratings …
MIN_RATINGS = 4
#: … over at least this many distinct impairment levels.
MIN_LEVELS = 3
_ACR5 = {"kind": "discrete", "min": 1, "max": 5, "step": 1}


def _group_correlations(
    df: pd.DataFrame, group: ScenarioGroup, session_code: np.ndarray[Any, Any], n_sessions: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Per session: ρ (NaN unless counted), ratings, distinct levels, and the level pattern
    (ratings per level code, a row of an n_sessions × n_levels matrix) of one group."""
    assert group.levels is not None
    scen_codes, scen_names = column_codes(df[SCENARIO])
    level_of = np.array([group.levels.get(str(n), np.nan) for n in scen_names])
    level_all = level_of[scen_codes]
    mask = ~np.isnan(level_all)
    sub_codes = session_code[mask]
    level = level_all[mask]
    rating = df[RATING].to_numpy(dtype=np.float64)[mask]
    keys = pd.Series(sub_codes)
    rank_level = pd.Series(level).groupby(keys).rank(method="average").to_numpy()
    rank_rating = pd.Series(rating).groupby(keys).rank(method="average").to_numpy()
    rho = grouped_pearson(sub_codes, rank_level, rank_rating, n_sessions)
    # level codes per scenario (few), spread over the rows: no sort of the rows
    distinct_levels, scen_level_code = np.unique(level_of, return_inverse=True)
    level_code = scen_level_code.ravel()[scen_codes][mask]
    n_levels = max(len(distinct_levels), 1)
    pattern = np.bincount(
        sub_codes * n_levels + level_code, minlength=n_sessions * n_levels
    ).reshape(n_sessions, n_levels)
    n = pattern.sum(axis=1)
    levels = (pattern > 0).sum(axis=1)
    counted = (n >= MIN_RATINGS) & (levels >= MIN_LEVELS)
    return np.where(counted, rho, np.nan), n, levels, pattern


def _distinct_rows(
    matrix: np.ndarray[Any, Any],
) -> tuple[np.ndarray[Any, np.dtype[np.intp]], np.ndarray[Any, np.dtype[np.intp]]]:
    """(code per row, first row of each code) of the distinct rows of a 2-D array, by hashing
    (:func:`qoe_analysis.tabular.row_keys`), not sorting."""
    frame = pd.DataFrame(matrix)
    codes = np.asarray(pd.factorize(row_keys(frame, list(frame.columns)))[0], dtype=np.intp)
    return codes, first_positions(codes)


def intra_rater_reliability(
    df: pd.DataFrame,
    groups: dict[str, ScenarioGroup],
    cutoff: float = 0.6,
    *,
    sessions: Sessions | None = None,
    scale: Mapping[str, Any] | None = None,
    seed: int = 0,
    n_draws: int = N_DRAWS,
) -> pd.DataFrame:
    """Per rater: mean Spearman ρ between ratings and impairment level (see module doc).

    Returns columns ``rater_id, rho, rho_<group>`` (one per group of ``groups``, e.g.
    ``rho_delay_only``; the mean of that group's counted correlations), ``n_correlations``
    (counted correlations with a defined ρ), ``n_ratings`` (ratings in the counted
    correlations), ``p_random_pass``, ``reliable, status, reason`` (one row per rater,
    sorted by rater_id); status is ``reliable`` / ``unreliable`` / ``not_assessable``.
    ``scale``: the item's scale (default ACR 1..5), for the random rater of the null model.
    """
    session_code, session_table = session_codes(df) if sessions is None else sessions
    n_sessions = len(session_table)
    names = [n for n, g in groups.items() if g.levels]
    per_group: dict[str, np.ndarray[Any, Any]] = {}
    largest = np.zeros((n_sessions, 2), dtype=np.int64)  # best (ratings, levels) of a session
    counted_cells: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []
    n_counted_ratings = np.zeros(n_sessions, dtype=np.int64)
    patterns: dict[Pattern, int] = {}
    for name in names:
        rho, n, levels, pattern = _group_correlations(df, groups[name], session_code, n_sessions)
        per_group[name] = rho
        better = (n > largest[:, 0]) | ((n == largest[:, 0]) & (levels > largest[:, 1]))
        largest[better] = np.column_stack([n, levels])[better]
        counted = (n >= MIN_RATINGS) & (levels >= MIN_LEVELS)
        n_counted_ratings += np.where(counted, n, 0)
        rows = np.flatnonzero(counted)
        if rows.size:
            inverse, first = _distinct_rows(pattern[rows])
            distinct = pattern[rows][first]
            ids = np.array(
                [
                    patterns.setdefault(tuple(int(v) for v in r if v), len(patterns))
                    for r in distinct
                ]
            )
            counted_cells.append((rows, ids[inverse]))
    rater_of_session = session_table[RATER].astype(str).to_numpy()
    table = pd.DataFrame(
        {
            RATER: rater_of_session,
            "_n": largest[:, 0],
            "_levels": largest[:, 1],
            "_ratings": n_counted_ratings,
        }
    )
    for name in names:
        table[f"rho_{name}"] = per_group[name]
    agg = table.groupby(RATER, sort=False).agg(
        _n=("_n", "max"),
        _levels=("_levels", "max"),
        _ratings=("_ratings", "sum"),
        **{f"rho_{name}": (f"rho_{name}", "mean") for name in names},
        **{f"n_{name}": (f"rho_{name}", "count") for name in names},
    )
    # sorted by rater_id as groupby(sort=True) sorts, with str comparisons (text_order)
    agg = agg.take(text_order(agg.index.tolist()))
    sums = sum(
        (agg[f"rho_{n}"].fillna(0.0) * agg[f"n_{n}"] for n in names),
        start=pd.Series(0.0, index=agg.index),
    )
    counts = sum((agg[f"n_{n}"] for n in names), start=pd.Series(0, index=agg.index))
    rho_all = (sums / counts.where(counts > 0)).astype(np.float64).to_numpy()
    raters = agg.index.astype(str)
    p_pass = _p_random_pass(
        raters, rater_of_session, counted_cells, patterns, scale or _ACR5, cutoff, seed, n_draws
    )
    reliable = (rho_all < -cutoff) & (p_pass <= EVIDENCE_LEVEL)  # NaN compares False
    out = pd.DataFrame(
        {
            RATER: raters,
            "rho": rho_all,
            **{f"rho_{n}": agg[f"rho_{n}"].to_numpy() for n in names},
            "n_correlations": counts.to_numpy().astype(np.int64),
            "n_ratings": agg["_ratings"].to_numpy().astype(np.int64),
            "p_random_pass": p_pass,
            "reliable": reliable,
        }
    )
    counted_any = out["n_ratings"].to_numpy() > 0
    status = np.where(
        reliable,
        "reliable",
        np.where(
            # a verdict either way needs a design on which the rule tells a careful rater
            # from a random one: no "unreliable" from four ratings either
            np.isnan(rho_all) | (p_pass > EVIDENCE_LEVEL),
            "not_assessable",
            "unreliable",
        ),
    )
    out["status"] = status
    out["reason"] = rho_reasons(
        rho_all,
        p_pass,
        cutoff,
        counted=counted_any,
        largest=agg[["_n", "_levels"]].to_numpy(),
        n_ratings=out["n_ratings"].to_numpy(),
        group_names=names,
    )
    return out


def _p_random_pass(
    raters: pd.Index,
    rater_of_session: np.ndarray[Any, Any],
    counted_cells: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]],
    patterns: dict[Pattern, int],
    scale: Mapping[str, Any],
    cutoff: float,
    seed: int,
    n_draws: int,
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """p_random_pass of each rater's counted design (NaN without counted correlations).
    Raters with the same design share one simulation (cached in random_pass)."""
    out = np.full(len(raters), np.nan)
    if not counted_cells:
        return out
    position = pd.Index(raters).get_indexer(rater_of_session)
    sess = np.concatenate([rows for rows, _ in counted_cells])
    pattern_id = np.concatenate([ids for _, ids in counted_cells])
    rater = position[sess]
    n_patterns = len(patterns)
    key, copies = np.unique(rater * n_patterns + pattern_id, return_counts=True)
    # one design per rater: the (pattern, copies) pairs, as rows of (rater, pattern) keys;
    # raters with equal rows share a design, so each distinct design is simulated once
    owner, pattern_of = key // n_patterns, key % n_patterns
    starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
    bounds = np.r_[starts, owner.size]
    by_id = {i: p for p, i in patterns.items()}
    points = scale_points(scale)
    done: dict[tuple[int, ...], float] = {}
    pairs = np.column_stack([pattern_of, copies]).ravel().tolist()
    for k, start in enumerate(starts.tolist()):
        design = tuple(pairs[2 * start : 2 * int(bounds[k + 1])])
        p = done.get(design)
        if p is None:
            counted = [
                by_id[i] for i, c in zip(design[::2], design[1::2], strict=True) for _ in range(c)
            ]
            p = done[design] = p_random_pass(
                counted, points=points, cutoff=cutoff, n_draws=n_draws, seed=seed
            )
        out[int(owner[start])] = p
    return out


def _p_text(p: float) -> str:
    return f"{p:.4f}" if p >= 0.0001 else "< 0.0001"


def rho_reasons(
    rho: np.ndarray[Any, Any],
    p_pass: np.ndarray[Any, Any],
    cutoff: float,
    *,
    counted: np.ndarray[Any, Any],
    largest: np.ndarray[Any, Any],
    n_ratings: np.ndarray[Any, Any],
    group_names: list[str],
) -> list[str]:
    """The intra-rater reason per rater, in words with the numbers (module doc): no varying
    group; no counted correlation (with the largest (ratings, levels) of one session in one
    group); constant ratings; ``p_random_pass`` > 0.01 (not assessable, whatever ρ); then
    ρ > 0 (ratings rise); −cutoff <= ρ <= 0; ρ < −cutoff (reliable). Each distinct
    (case, numbers) is formatted once: many raters share a design and a ρ."""
    n = len(rho)
    rho = np.asarray(rho, dtype=np.float64)
    p_pass = np.asarray(p_pass, dtype=np.float64)
    largest = np.asarray(largest, dtype=np.int64).reshape(n, 2)
    with np.errstate(invalid="ignore"):
        case = np.select(
            [
                np.full(n, not group_names),
                ~np.asarray(counted, dtype=bool),
                np.isnan(rho),
                ~(p_pass <= EVIDENCE_LEVEL),
                rho > 0,
                rho >= -cutoff,
            ],
            [0, 1, 2, 6, 3, 4],
            default=5,
        )
    # the numbers each case quotes; the others are blanked so that the keys repeat
    uses_rho = case >= 3
    keys = np.column_stack(
        [
            case,
            np.where(uses_rho, rho, 0.0),
            np.where(case >= 5, p_pass, 0.0),
            np.where(case == 6, n_ratings, 0),
            np.where(case == 1, largest[:, 0], 0),
            np.where(case == 1, largest[:, 1], 0),
        ]
    ).astype(np.float64)
    inverse, first = _distinct_rows(keys)
    texts = [
        _reason(int(c), r, p, int(k), (int(m), int(lv)), cutoff, group_names)
        for c, r, p, k, m, lv in keys[first].tolist()
    ]
    return list(np.array(texts, dtype=object)[inverse]) if n else []


def _reason(
    case: int,
    rho: float,
    p: float,
    n_ratings: int,
    largest: tuple[int, int],
    cutoff: float,
    group_names: list[str],
) -> str:
    """One reason of :func:`rho_reasons` (``case`` as numbered there)."""
    t, lim = f"{rho:.3f}", f"{cutoff:g}"  # finite here: as number_text.fixed3
    if case == 0:
        return (
            "no varying scenario group in this design (no factor is varied alone over >= 3 "
            "scenarios), so Spearman rho cannot be computed"
        )
    if case == 1:
        return (
            f"no session has >= {MIN_RATINGS} ratings over >= {MIN_LEVELS} levels of one "
            f"scenario group ({', '.join(group_names)}); the most: {largest[0]} ratings over "
            f"{largest[1]} levels, too few for a rank correlation"
        )
    if case == 2:
        return "Spearman rho undefined: constant ratings in every counted group"
    if case == 3:
        return f"rho = +{t} > 0: ratings rise with the impairment"
    if case == 4:
        return f"rho = {t} >= -{lim}: ratings do not fall clearly with the impairment"
    if case == 5:
        return (
            f"rho = {t} < -{lim}; a rater rating at random passes on this design with "
            f"p = {_p_text(p)} <= {EVIDENCE_LEVEL:g}"
        )
    return (
        f"rho = {t} (the rule needs < -{lim}), but a rater rating at random would pass on "
        f"this design ({n_ratings} ratings in counted groups) with p = {_p_text(p)} > "
        f"{EVIDENCE_LEVEL:g}: too little evidence to judge the rater either way"
    )
