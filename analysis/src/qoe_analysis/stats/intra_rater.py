"""Intra-rater reliability: Spearman ρ between a rater's ratings and the impairment level.

Following Hoßfeld et al. (as used in the dissertation, ch. 4.2.2): for each session and
each factor group of :func:`qoe_analysis.stats.scenario_groups.scenario_groups`, Spearman ρ
between the ratings and the impairment level (ties get average ranks). A rater's ρ is the
unweighted mean of the defined per-(session, group) values; ρ is undefined when the
ratings are constant. The rater is reliable when |ρ| > cutoff (0.6 in the dissertation),
unreliable when |ρ| ≤ cutoff, and *not assessable* when ρ is undefined: the design has no
varying group (a randomised-conditions design), the rater's sessions cover fewer than two
levels of every group, or their ratings are constant within every group.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.number_text import fixed3
from qoe_analysis.stats.grouped_pearson import grouped_pearson
from qoe_analysis.stats.scenario_groups import ScenarioGroup
from qoe_analysis.stats.sessions import Sessions, session_codes
from qoe_analysis.tabular import column_codes
from qoe_analysis.text_order import text_order
from qoe_analysis.tidy.design import RATER, RATING, SCENARIO

__all__ = ["intra_rater_reliability", "rho_reasons"]


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
