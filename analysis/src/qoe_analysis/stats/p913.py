"""ITU-T P.913 subject screening (r1 and r2, iterated), as a per-rater status with reasons.

The rule (ITU-T P.913, clause "Subject screening" — 11.4 in the 03/2016 edition; the
number was not re-checked against the 06/2021 text. The rule comes from the VQEG
Multimedia test plan, Annex VI; the numbers and the "and" below were checked against its
reference implementation: M. Pinson, NTIA/ITS, ``screening.m`` method 3 "Pearson and
Pearson per HRC"):

* r1 = Pearson r between a subject's ratings and the mean rating of the same PVS over all
  subjects. Here a PVS is a condition = scenario × game.
* r2 = Pearson r between the subject's mean rating per HRC and the mean rating per HRC over
  all subjects, i.e. averaged over the sources (SRC). Here HRC = the network scenario and
  SRC = the game: r2 forgives a subject who judges the games differently but orders the
  network conditions like everybody else.
* A subject is rejected when r1 < 0.75 **and** r2 < 0.8.

The procedure is repeated without the rejected subjects (the means are recomputed over the
remaining ones) until a pass rejects nobody. A subject whose r1 or r2 is undefined (constant
ratings, or fewer than two conditions / scenarios) and who is not kept by the other
correlation cannot be judged: status ``not_assessable``, never ``unreliable``; such subjects
stay in the means.

Evidence (issue 31): a mean over one or two raters correlates a subject mostly with their
own ratings (a condition rated once gives r1 = 1). So only conditions rated by at least
:data:`MIN_RATERS_PER_CONDITION` (4) distinct raters are used (the set is fixed before the
first pass), and a subject with fewer than :data:`MIN_CONDITIONS_PER_RATER` (4) such
conditions is ``not_assessable`` (never rejected; their ratings on the used conditions stay
in the means). The summary reports how many conditions remained; its ``status`` is
``not_assessable`` when no subject can be judged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.number_text import fixed3
from qoe_analysis.stats.reliability import GroupedPearson
from qoe_analysis.tabular import Grouping, column_codes, group_codes
from qoe_analysis.text_order import sort_by_text
from qoe_analysis.tidy.design import GAME, RATER, RATING, SCENARIO

__all__ = [
    "MIN_CONDITIONS_PER_RATER",
    "MIN_RATERS_PER_CONDITION",
    "R1_THRESHOLD",
    "R2_THRESHOLD",
    "p913_iterated_screening",
]

R1_THRESHOLD = 0.75
R2_THRESHOLD = 0.8
#: A condition is used only when this many distinct raters rated it …
MIN_RATERS_PER_CONDITION = 4
#: … and a rater is judged only with this many used conditions.
MIN_CONDITIONS_PER_RATER = 4


def screening_reasons(
    r1: np.ndarray[Any, Any],
    r2: np.ndarray[Any, Any],
    rejected_in: np.ndarray[Any, Any],
    r1_threshold: float,
    r2_threshold: float,
) -> list[str]:
    """The reason of each rater's P.913 status, in words: rejected in pass k (r1 and r2
    below their thresholds), kept by r1, kept by r2, or undecided (a correlation
    undefined). Strings are built per case for all raters of that case at once."""
    a, b = fixed3(r1), fixed3(r2)
    rejected = rejected_in > 0
    with np.errstate(invalid="ignore"):  # NaN compares False: not kept by that r
        by_r1 = ~rejected & (r1 >= r1_threshold)
        by_r2 = ~rejected & ~by_r1 & (r2 >= r2_threshold)
    undecided = ~(rejected | by_r1 | by_r2)
    lo1, lo2 = f" < {r1_threshold:g}", f" < {r2_threshold:g}"
    hi1, hi2 = f" >= {r1_threshold:g}", f" >= {r2_threshold:g}"
    reasons = [""] * len(a)
    for i, k in zip(np.flatnonzero(rejected).tolist(), rejected_in[rejected].tolist(), strict=True):
        reasons[i] = f"pass {k}: r1 = {a[i]}{lo1} and r2 = {b[i]}{lo2}"
    for i in np.flatnonzero(by_r1).tolist():
        reasons[i] = f"r1 = {a[i]}{hi1}"
    for i in np.flatnonzero(by_r2).tolist():
        reasons[i] = f"r1 = {a[i]}{lo1} but r2 = {b[i]}{hi2}"
    for i in np.flatnonzero(undecided).tolist():
        reasons[i] = (
            f"r1 = {a[i]}, r2 = {b[i]}: a correlation is undefined (constant ratings or fewer "
            "than two conditions/scenarios), so the rule cannot decide"
        )
    return reasons


def sorted_distinct(
    keys: np.ndarray[Any, Any], size: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """``np.unique(keys, return_inverse=True)`` for integer keys in 0..size−1: the sorted
    distinct keys and each key's index among them, from a bitmap of the keys when it is
    small enough (a pass over the keys instead of sorting them)."""
    if size > 50_000_000:
        distinct, inverse = np.unique(keys, return_inverse=True)
        return distinct, inverse
    seen = np.zeros(size, dtype=bool)
    seen[keys] = True
    rank = np.cumsum(seen) - 1
    return np.flatnonzero(seen), rank[keys]


def _pass(
    rater: np.ndarray[Any, Any],
    cond: np.ndarray[Any, Any],
    scen: np.ndarray[Any, Any],
    u: np.ndarray[Any, Any],
    active: np.ndarray[Any, Any],
    n_raters: int,
    n_conds: int,
    n_scens: int,
    pairs: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]],
    pearson: tuple[GroupedPearson, GroupedPearson],
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """r1 and r2 of every rater against the means over the active raters' ratings.

    ``pairs`` = (rater of each (rater, scenario) pair, its scenario, the rater's mean
    rating there): one point per pair for r2; fixed across passes. ``pearson`` = the
    rater's ratings and the rater's pair means, prepared for correlating (fixed too).
    """
    on = active[rater]
    if on.all():  # the first pass: every rating counts (no copies needed)
        cond_on, scen_on, u_on = cond, scen, u
    else:
        cond_on, scen_on, u_on = cond[on], scen[on], u[on]
    with np.errstate(invalid="ignore", divide="ignore"):
        pvs_mean = np.bincount(cond_on, u_on, n_conds) / np.bincount(cond_on, None, n_conds)
        hrc_mean = np.bincount(scen_on, u_on, n_scens) / np.bincount(scen_on, None, n_scens)
        # nan_to_num per condition, then spread over the ratings: the same values as
        # nan_to_num of the spread means, for a pass over the conditions instead of ratings
        r1 = pearson[0].against(np.nan_to_num(pvs_mean)[cond])
        r2 = pearson[1].against(np.nan_to_num(hrc_mean)[pairs[1]])
    # a mean over no active rating (a condition only rejected raters saw) makes r undefined
    if np.isnan(pvs_mean).any():
        r1[np.bincount(rater, np.isnan(pvs_mean[cond]), n_raters) > 0] = np.nan
    return r1, r2


def _usable(
    rater: np.ndarray[Any, Any], cond: np.ndarray[Any, Any], n: int, n_conds: int, min_raters: int
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(distinct raters per condition, row mask of the used conditions, used conditions per
    rater), counted on the distinct (rater, condition) pairs."""
    pairs, _ = sorted_distinct(rater * n_conds + cond, n * n_conds)
    raters_per_cond = np.bincount(pairs % n_conds, minlength=n_conds)
    used_cond = raters_per_cond >= min_raters
    per_rater = np.bincount(pairs // n_conds, used_cond[pairs % n_conds], n).astype(np.int64)
    return raters_per_cond, used_cond[cond], per_rater


def p913_iterated_screening(
    df: pd.DataFrame,
    *,
    r1_threshold: float = R1_THRESHOLD,
    r2_threshold: float = R2_THRESHOLD,
    max_passes: int = 100,
    conditions: Grouping | None = None,
    min_raters_per_condition: int = MIN_RATERS_PER_CONDITION,
    min_conditions_per_rater: int = MIN_CONDITIONS_PER_RATER,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """P.913 screening of every rater (module doc), on the conditions with >=
    ``min_raters_per_condition`` distinct raters.

    Returns the per-rater table ``rater_id, r, r1, r2, status, reason, rejected_in_pass``
    (``r`` = r1 of the first pass, over all raters; r1/r2 of the pass that rejected the
    rater, else of the last pass; all None for a rater not judged) and a summary
    (thresholds, passes, rejected per pass, status, reason and the conditions used).
    """
    rater, raters = column_codes(df[RATER])
    cond, conds = group_codes(df, [SCENARIO, GAME]) if conditions is None else conditions
    scen, scens = column_codes(df[SCENARIO])
    n = len(raters)
    present = np.bincount(rater, minlength=n) > 0
    raters_per_cond, rows, used_per_rater = _usable(
        rater, cond, n, len(conds), min_raters_per_condition
    )
    judged = present & (used_per_rater >= min_conditions_per_rater)
    u = df[RATING].to_numpy(dtype=np.float64)
    if not rows.all():  # only the used conditions' ratings enter the means and correlations
        rater, cond, scen, u = rater[rows], cond[rows], scen[rows], u[rows]
    active = present.copy()
    rejected_in = np.zeros(n, dtype=np.int64)  # 0 = never rejected
    r1_final = np.full(n, np.nan)
    r2_final = np.full(n, np.nan)
    first_r1 = np.full(n, np.nan)
    per_pass: list[list[str]] = []
    names = np.array([str(x) for x in raters], dtype=object)
    # the rater's mean per HRC (scenario), one point per (rater, scenario) pair
    keys, pair_code = sorted_distinct(rater * len(scens) + scen, n * len(scens))
    with np.errstate(invalid="ignore", divide="ignore"):
        own = np.bincount(pair_code, u) / np.bincount(pair_code)
    pairs = (keys // len(scens), keys % len(scens), own)
    pearson = (GroupedPearson(rater, u, n), GroupedPearson(pairs[0], own, n))
    for k in range(1, max_passes + 1 if judged.any() else 1):
        r1, r2 = _pass(rater, cond, scen, u, active, n, len(conds), len(scens), pairs, pearson)
        if k == 1:
            first_r1 = r1.copy()
        r1_final[active] = r1[active]
        r2_final[active] = r2[active]
        # NaN compares False; a rater with too few used conditions is never rejected
        fail = active & judged & (r1 < r1_threshold) & (r2 < r2_threshold)
        if not fail.any():
            break
        active &= ~fail
        rejected_in[fail] = k
        per_pass.append(sorted(names[fail].tolist()))
    for values in (first_r1, r1_final, r2_final):
        values[~judged] = np.nan  # r over < 4 conditions says nothing: not shown
    kept_by = (r1_final >= r1_threshold) | (r2_final >= r2_threshold)
    status = np.where(
        rejected_in > 0, "unreliable", np.where(kept_by, "reliable", "not_assessable")
    )
    reasons = screening_reasons(r1_final, r2_final, rejected_in, r1_threshold, r2_threshold)
    for i in np.flatnonzero(present & ~judged).tolist():
        reasons[i] = (
            f"{used_per_rater[i]} condition(s) rated by >= {min_raters_per_condition} raters, "
            f"fewer than the {min_conditions_per_rater} needed to correlate with the others"
        )
    table = pd.DataFrame(
        {
            RATER: names,
            "r": first_r1,
            "r1": r1_final,
            "r2": r2_final,
            "status": status,
            "reason": np.array(reasons, dtype=object),
            "rejected_in_pass": pd.array(
                np.where(rejected_in > 0, rejected_in, 0), dtype="Int64"
            ).astype(object),
        }
    )
    table.loc[rejected_in == 0, "rejected_in_pass"] = None
    table = sort_by_text(table[present], RATER)
    evidence = _evidence(
        raters_per_cond,
        int(judged.sum()),
        int(present.sum()),
        min_raters_per_condition,
        min_conditions_per_rater,
    )
    summary = {
        "rule": f"reject when r1 < {r1_threshold:g} and r2 < {r2_threshold:g}; repeat until "
        "a pass rejects nobody",
        "source": "ITU-T P.913, subject screening (clause 11.4 of the 03/2016 edition); "
        "VQEG Multimedia test plan Annex VI",
        "r1": "Pearson r of the rater's ratings with the per-condition (scenario x game) means",
        "r2": "Pearson r of the rater's per-scenario means with the per-scenario means over "
        "all ratings (averaged over the games)",
        "r1_threshold": r1_threshold,
        "r2_threshold": r2_threshold,
        "passes": len(per_pass) + 1,
        "rejected_per_pass": per_pass,
        **evidence,
    }
    return table, summary


def _evidence(
    raters_per_cond: np.ndarray[Any, Any],
    n_judged: int,
    n_raters: int,
    min_raters: int,
    min_conditions: int,
) -> dict[str, Any]:
    """The summary's evidence keys: status, reason and the conditions used."""
    present = raters_per_cond[raters_per_cond > 0]
    used, total = int((present >= min_raters).sum()), int(present.size)
    most = int(present.max()) if present.size else 0
    counts = (
        f"{used} of {total} conditions (scenario x game) are rated by >= {min_raters} "
        f"distinct raters (the most raters on one condition: {most})"
    )
    if n_judged:
        status = "ok"
        reason = f"{counts}; {n_judged} of {n_raters} raters have >= {min_conditions} of them"
    else:
        status = "not_assessable"
        reason = f"{counts}; no rater has >= {min_conditions} of them, so nobody is judged"
    return {
        "status": status,
        "reason": reason,
        "min_raters_per_condition": min_raters,
        "min_conditions_per_rater": min_conditions,
        "n_conditions_used": used,
        "n_conditions_total": total,
    }
