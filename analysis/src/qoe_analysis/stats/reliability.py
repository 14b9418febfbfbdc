"""Rater reliability: intra-rater and inter-rater Spearman ρ, P.913 screening, straight-lining.

Following Hoßfeld et al. (as used in the dissertation, ch. 4.2.2):

* **Scenario groups** are derived from the factors that vary, not from scenario ids: for
  each numeric factor of the registry that varies (delay, jitter, loss, burst-loss
  parameters, rate, …; not the correlation modifiers, which do nothing alone), the group
  ``<factor>_only`` holds the scenarios where every *other* varying factor column is at
  its baseline (:func:`qoe_analysis.study_factors.baseline_levels`, normally the neutral
  value: 0 ms, 0 %) and the factor has the same value in each direction where it varies;
  impairment level = that value. In table 4.1 this gives *delay_only* (B, D1–D3) and
  *loss_only* (B, L1, L2). *all* = every scenario (inter-rater only).
* **Intra-rater**: for each session and each factor group, Spearman ρ between the ratings
  and the impairment level (ties get average ranks). A rater's ρ is the unweighted mean of
  the defined per-(session, group) values; ρ is undefined when the ratings are constant.
  The rater is reliable when |ρ| > cutoff (0.6 in the dissertation), unreliable when
  |ρ| ≤ cutoff, and *not assessable* when ρ is undefined: the design has no varying
  group (a randomised-conditions design), the rater's sessions cover fewer than two
  levels of every group, or their ratings are constant within every group.
* **Inter-rater**: for each game (and all games pooled) and each group, every session's
  rating vector over the group's scenarios is ranked once; the Spearman ρ of two sessions
  is the dot product of their centred, unit-norm rank vectors. The mean over all pairs is
  exact: (‖Σ zᵢ‖² − n) / (n(n − 1)); quantiles use all pairs up to ``max_exact_sessions``
  sessions and a seeded random sample of 100,000 pairs beyond.
* **P.913 screening, r1 only** (:func:`p913_screening`): Pearson r between each rater's
  ratings and the MOS of the same conditions (scenario × game, all raters included),
  single pass; r < 0.75 or undefined. The full rule (r1 and r2, iterated) is in
  :mod:`qoe_analysis.stats.p913`; this function gives its first-pass r1.
* **Straight-lining**: a session whose ratings all equal one value (zero variance).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.number_text import fixed3
from qoe_analysis.stats.scenario_groups import (
    FACTOR_GROUPS,
    ScenarioGroup,
    group_name,
    no_group_reason,
    scenario_groups,
)
from qoe_analysis.tabular import column_codes, group_codes
from qoe_analysis.text_order import sort_by_text, text_order
from qoe_analysis.tidy.design import GAME, RATER, RATING, SCENARIO, SESSION

# Ranks are computed with numpy (average_ranks), not scipy.stats.rankdata: importing
# scipy.stats costs ~0.6 s, see docs/performance.md.

__all__ = [
    "FACTOR_GROUPS",
    "GroupedPearson",
    "ScenarioGroup",
    "average_ranks",
    "group_name",
    "grouped_pearson",
    "inter_rater_agreement",
    "intra_rater_reliability",
    "no_group_reason",
    "p913_screening",
    "pairwise_spearman_summary",
    "scenario_groups",
    "session_codes",
    "spearman_summary_from_unit_vectors",
    "straight_lining",
    "straight_lining_status",
    "unit_rank_vectors",
]

_QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)


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


Sessions = tuple[np.ndarray[Any, Any], pd.DataFrame]


def session_codes(df: pd.DataFrame) -> Sessions:
    """Integer code per row for (rater_id, session_id) and the table of sessions (+ game).

    The game is constant within a session (validated), so adding it does not split
    sessions: the codes are those of (rater_id, session_id) alone. The reliability
    functions take them as ``sessions=`` so that one grouping serves them all."""
    return group_codes(df, [RATER, SESSION, GAME])


def intra_rater_reliability(
    df: pd.DataFrame,
    groups: dict[str, ScenarioGroup],
    cutoff: float = 0.6,
    *,
    sessions: Sessions | None = None,
) -> pd.DataFrame:
    """Per rater: mean Spearman ρ between ratings and impairment level (see module doc).

    Returns columns ``rater_id, rho, rho_<group>`` (one per group of ``groups``, e.g.
    ``rho_delay_only, rho_loss_only``), ``n_correlations, reliable, status, reason`` (one
    row per rater, sorted by rater_id); status is ``reliable`` / ``unreliable`` /
    ``not_assessable`` (ρ undefined; the reason says why).
    """
    session_code, session_table = session_codes(df) if sessions is None else sessions
    n_sessions = len(session_table)
    names = [n for n, g in groups.items() if g.levels]
    per_group: dict[str, np.ndarray[Any, Any]] = {}
    covered = np.zeros(n_sessions, dtype=bool)  # a session saw >= 2 levels of some group
    for name in names:
        group = groups[name]
        rho = np.full(n_sessions, np.nan)
        if group.levels:
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
            lo = np.full(n_sessions, np.inf)
            hi = np.full(n_sessions, -np.inf)
            np.minimum.at(lo, sub_codes, level)
            np.maximum.at(hi, sub_codes, level)
            covered |= hi > lo
        per_group[name] = rho
    table = pd.DataFrame({RATER: session_table[RATER].astype(str).to_numpy(), "_covered": covered})
    for name in names:
        table[f"rho_{name}"] = per_group[name]
    agg = table.groupby(RATER, sort=False).agg(
        _covered=("_covered", "any"),
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
    rho_all = (sums / counts.where(counts > 0)).astype(np.float64)
    out = pd.DataFrame(
        {
            RATER: agg.index.astype(str),
            "rho": rho_all.to_numpy(),
            **{f"rho_{n}": agg[f"rho_{n}"].to_numpy() for n in names},
            "n_correlations": counts.to_numpy().astype(np.int64),
        }
    )
    out["reliable"] = (out["rho"].abs() > cutoff).to_numpy() & out["rho"].notna().to_numpy()
    # ρ undefined (no group where both the ratings and the levels vary): the rule cannot
    # judge the rater, which is not the same as judging them unreliable
    undefined = out["rho"].isna().to_numpy()
    out["status"] = np.where(
        undefined, "not_assessable", np.where(out["reliable"], "reliable", "unreliable")
    )
    no_groups = (
        "no varying scenario group in this design (no factor is varied alone over >= 3 "
        "scenarios), so Spearman rho cannot be computed"
    )
    uncovered = (
        "this rater's sessions cover fewer than two levels of every scenario group "
        f"({', '.join(names)}), so Spearman rho cannot be computed"
    )
    constant = "Spearman rho undefined: constant ratings in every scenario group"
    out["reason"] = rho_reasons(
        out["rho"].to_numpy(),
        out["reliable"].to_numpy(),
        agg["_covered"].to_numpy(),
        cutoff,
        constant=constant if names else no_groups,
        uncovered=uncovered if names else no_groups,
    )
    return out


def rho_reasons(
    rho: np.ndarray[Any, Any],
    reliable: np.ndarray[Any, Any],
    covered: np.ndarray[Any, Any],
    cutoff: float,
    *,
    constant: str,
    uncovered: str,
) -> list[str]:
    """The intra-rater reason per rater: ``|rho| = 0.xyz > cutoff`` (``<=`` when not
    reliable) where ρ is defined; where it is not, ``constant`` for a rater whose sessions
    covered two levels of a group (so their ratings were constant there), else
    ``uncovered``. The numbers are formatted for all raters at once."""
    texts = fixed3(np.abs(rho))  # "undefined" where ρ is NaN: replaced below
    above, below = f" > {cutoff:g}", f" <= {cutoff:g}"
    reasons = [
        f"|rho| = {t}{above if ok else below}"
        for t, ok in zip(texts, reliable.tolist(), strict=True)
    ]
    undefined = np.isnan(rho)
    for i, cov in zip(np.flatnonzero(undefined).tolist(), covered[undefined].tolist(), strict=True):
        reasons[i] = constant if cov else uncovered
    return reasons


def average_ranks(matrix: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Ranks 1..m within each row of a 2-D array, ties given the mean of their ranks.

    The rule of ``scipy.stats.rankdata(matrix, axis=1)`` (``method="average"``; a row with a
    NaN becomes all NaN, its ``nan_policy="propagate"``), computed with numpy so that the
    analysis does not import scipy.stats. A tie group occupying sorted positions s..e
    (0-based) gets rank (s + e)/2 + 1, a multiple of ½, so the result is exact and equal to
    SciPy's bit for bit (tests/test_reliability.py compares them).
    """
    values = np.asarray(matrix, dtype=np.float64)
    n_rows, m = values.shape
    ranks = np.empty((n_rows, m), dtype=np.float64)
    if m == 0:
        return ranks
    # any sort order will do: tied values get the same (average) rank
    order = np.argsort(values, axis=1)
    ordered = np.take_along_axis(values, order, axis=1)
    new_group = np.empty((n_rows, m), dtype=bool)
    new_group[:, 0] = True
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=new_group[:, 1:])
    positions = np.arange(m, dtype=np.float64)
    # first and last sorted position of each element's tie group
    start = np.maximum.accumulate(np.where(new_group, positions, 0.0), axis=1)
    ends_group = np.empty((n_rows, m), dtype=bool)
    ends_group[:, -1] = True
    ends_group[:, :-1] = new_group[:, 1:]
    last = np.where(ends_group, positions, m - 1.0)[:, ::-1]
    end = np.minimum.accumulate(last, axis=1)[:, ::-1]
    np.put_along_axis(ranks, order, (start + end) / 2.0 + 1.0, axis=1)
    ranks[np.isnan(values).any(axis=1)] = np.nan
    return ranks


def unit_rank_vectors(
    matrix: np.ndarray[Any, Any],
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, np.dtype[np.bool_]]]:
    """Rows ranked (average ties), centred and scaled to unit norm; mask of usable rows.

    The Spearman ρ of rows i and j is then the dot product zᵢ·zⱼ. Constant rows (ρ
    undefined) are not usable.
    """
    if matrix.size == 0:
        return np.zeros(matrix.shape), np.zeros(matrix.shape[0], dtype=bool)
    ranks = average_ranks(matrix)
    centred = ranks - ranks.mean(axis=1, keepdims=True)
    norm = np.sqrt((centred**2).sum(axis=1))
    usable = norm > 1e-12
    z = np.zeros_like(centred)
    z[usable] = centred[usable] / norm[usable, None]
    return z, usable


def spearman_summary_from_unit_vectors(
    z: np.ndarray[Any, Any],
    *,
    n_constant: int,
    rng: np.random.Generator,
    max_exact_sessions: int = 1500,
    n_sampled_pairs: int = 100_000,
) -> dict[str, Any]:
    """Summary of ρ = zᵢ·zⱼ over all pairs of rows of ``z`` (see module doc)."""
    n = int(z.shape[0])
    result: dict[str, Any] = {
        "n_raters": n,
        "n_constant": n_constant,
        "n_pairs": n * (n - 1) // 2,
        "mean": None,
        "mean_abs": None,
        "sd": None,
        "quantiles": None,
        "sampled": False,
    }
    if n < 2:
        return result
    total = z.sum(axis=0)
    result["mean"] = float((total @ total - n) / (n * (n - 1)))
    if n <= max_exact_sessions:
        gram = z @ z.T
        values = gram[np.triu_indices(n, k=1)]
    else:
        i = rng.integers(0, n, size=n_sampled_pairs)
        j = rng.integers(0, n - 1, size=n_sampled_pairs)
        j = j + (j >= i)  # skip i: a uniform pair of distinct rows
        # np.take copies the same rows as z[i] at a fraction of the cost of fancy indexing
        values = np.einsum("ij,ij->i", np.take(z, i, axis=0), np.take(z, j, axis=0))
        result["sampled"] = True
    values = np.clip(values, -1.0, 1.0)
    result["mean_abs"] = float(np.abs(values).mean())
    result["sd"] = float(values.std(ddof=1)) if values.size > 1 else None
    quantiles = np.quantile(values, _QUANTILES)
    result["quantiles"] = {
        f"q{round(q * 100):02d}": float(v) for q, v in zip(_QUANTILES, quantiles, strict=True)
    }
    return result


def pairwise_spearman_summary(
    matrix: np.ndarray[Any, Any],
    *,
    rng: np.random.Generator,
    max_exact_sessions: int = 1500,
    n_sampled_pairs: int = 100_000,
) -> dict[str, Any]:
    """Summary of Spearman ρ over all pairs of rows of ``matrix`` (rows = raters).

    Rows with a constant vector (ρ undefined) are excluded and counted. Returns n_raters,
    n_constant, n_pairs, mean, mean_abs (over the pairs used for quantiles), sd,
    quantiles and whether the quantiles come from a random sample of pairs.
    """
    z, usable = unit_rank_vectors(matrix)
    return spearman_summary_from_unit_vectors(
        z[usable],
        n_constant=int((~usable).sum()),
        rng=rng,
        max_exact_sessions=max_exact_sessions,
        n_sampled_pairs=n_sampled_pairs,
    )


def inter_rater_agreement(
    df: pd.DataFrame,
    groups: dict[str, ScenarioGroup],
    *,
    seed: int = 0,
    max_exact_sessions: int = 1500,
    sessions: Sessions | None = None,
) -> list[dict[str, Any]]:
    """Pairwise Spearman agreement between sessions per game (and "all") and group.

    Groups: the factor groups of :func:`scenario_groups` plus "all" (every scenario).
    Sessions missing a scenario of the group are left out of that group (counted).
    """
    rng = np.random.default_rng(seed)
    session_code, session_table = session_codes(df) if sessions is None else sessions
    scen_codes, scen_names = column_codes(df[SCENARIO])
    scen_names = np.array([str(n) for n in scen_names], dtype=object)
    full = np.full((len(session_table), len(scen_names)), np.nan)
    full[session_code, scen_codes] = df[RATING].to_numpy(dtype=np.float64)
    game_of_session = session_table[GAME].astype(str).to_numpy()
    group_columns: dict[str, np.ndarray[Any, Any]] = {
        name: np.flatnonzero(np.isin(scen_names, g.scenarios)) for name, g in groups.items()
    }
    group_columns["all"] = np.arange(len(scen_names))
    games = [*sorted(set(game_of_session.tolist())), "all"]
    ranked = {}
    for name, cols in group_columns.items():  # rank every session once per group
        sub = full[:, cols]
        complete = ~np.isnan(sub).any(axis=1)
        z = np.zeros(sub.shape)
        usable = np.zeros(len(sub), dtype=bool)
        z[complete], usable[complete] = unit_rank_vectors(sub[complete])
        ranked[name] = (z, usable, complete)
    out = []
    for game in games:
        rows = np.ones(len(session_table), bool) if game == "all" else game_of_session == game
        for name, cols in group_columns.items():
            z, usable, complete = ranked[name]
            summary = spearman_summary_from_unit_vectors(
                np.compress(rows & usable, z, axis=0),
                n_constant=int((rows & complete & ~usable).sum()),
                rng=rng,
                max_exact_sessions=max_exact_sessions,
            )
            out.append(
                {
                    "game": str(game),
                    "group": name,
                    "scenarios": [str(s) for s in scen_names[cols]],
                    "n_incomplete": int((rows & ~complete).sum()),
                    **summary,
                }
            )
    return out


def p913_screening(df: pd.DataFrame, threshold: float = 0.75) -> pd.DataFrame:
    """Pearson r of each rater's ratings with the condition MOS (scenario × game).

    Returns ``rater_id, r, rejected`` (rejected: r < threshold or r undefined).
    """
    cond_codes, _ = group_codes(df, [SCENARIO, GAME])
    rating = df[RATING].to_numpy(dtype=np.float64)
    mos = np.bincount(cond_codes, rating) / np.bincount(cond_codes)
    rater_codes, raters = column_codes(df[RATER])
    r = grouped_pearson(rater_codes, rating, mos[cond_codes], len(raters))
    out = pd.DataFrame(
        {
            RATER: np.array([str(x) for x in raters], dtype=object),
            "r": r,
            "rejected": ~(r >= threshold),
        }
    )
    present = np.bincount(rater_codes, minlength=len(raters)) > 0
    return out[present].sort_values(RATER, kind="stable").reset_index(drop=True)


def sessions_by_rater(flat: pd.DataFrame) -> dict[Any, list[Any]]:
    """``{rater: [session, …]}`` of the flagged sessions, each rater's in table order
    (``flat.groupby(RATER)[SESSION].apply(list)``, in one pass over the rows)."""
    out: dict[Any, list[Any]] = {}
    for rater, session in zip(flat[RATER].tolist(), flat[SESSION].tolist(), strict=True):
        sessions = out.get(rater)
        if sessions is None:
            out[rater] = [session]
        else:
            sessions.append(session)
    return out


def straight_lining_status(
    df: pd.DataFrame, flat: pd.DataFrame, *, sessions: Sessions | None = None
) -> pd.DataFrame:
    """Per rater: ``unreliable`` if a session of theirs is flat (see :func:`straight_lining`),
    ``not_assessable`` if no session has two ratings, else ``reliable``; with the reason."""
    codes, session_table = group_codes(df, [RATER, SESSION]) if sessions is None else sessions
    rater_codes, raters = column_codes(session_table[RATER].astype(str))
    largest = np.zeros(len(raters), dtype=np.int64)
    np.maximum.at(largest, rater_codes, np.bincount(codes, minlength=len(session_table)))
    flat_by = sessions_by_rater(flat)
    names = [str(r) for r in raters]
    status = np.where(largest < 2, "not_assessable", "reliable").astype(object)
    reason = np.where(
        largest < 2, "no session with two or more ratings", "ratings vary within every session"
    ).astype(object)
    for k, rater in enumerate(names):
        if rater in flat_by:  # few: only the flagged raters
            status[k] = "unreliable"
            reason[k] = "same rating for every scenario in session(s) " + ", ".join(
                map(str, flat_by[rater])
            )
    out = pd.DataFrame({RATER: names, "status": status, "reason": reason})
    return sort_by_text(out, RATER)


def straight_lining(df: pd.DataFrame, *, sessions: Sessions | None = None) -> pd.DataFrame:
    """Sessions whose ratings all have the same value (zero variance).

    Returns ``rater_id, session_id, n, value`` for the flagged sessions only.
    """
    codes, session_table = group_codes(df, [RATER, SESSION]) if sessions is None else sessions
    stats_ = pd.Series(df[RATING].to_numpy()).groupby(codes).agg(["min", "max", "size"])
    flat = ((stats_["min"] == stats_["max"]) & (stats_["size"] > 1)).to_numpy()
    out = pd.DataFrame(
        {
            RATER: session_table[RATER].astype(str).to_numpy()[flat],
            SESSION: session_table[SESSION].astype(str).to_numpy()[flat],
            "n": stats_["size"].to_numpy()[flat],
            "value": stats_["min"].to_numpy()[flat],
        }
    )
    return out.sort_values([RATER, SESSION], kind="stable").reset_index(drop=True)
