"""Warnings about the amount and the origin of the evidence: raters and ratings per game
and condition, raters the screening cannot judge, a few raters giving most ratings, dry-run
ratings (the rules are listed in docs/methods.md, "Warnings").

Pure functions of the analysis document (and, for rater counts, of the analysed table's
ratings per rater and raters per game); every message states the numbers it rests on.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from qoe_analysis.evidence.warning_text import (
    as_map,
    count_range,
    counted,
    listed,
    make,
    num,
    pct,
    rows,
)
from qoe_analysis.schema.document import DocWarning
from qoe_analysis.stats.conditions import ALL_GAMES

__all__ = [
    "DOMINANT_MAX_RATERS",
    "DOMINANT_MAX_SHARE_OF_RATERS",
    "DOMINANT_SHARE_OF_RATERS",
    "MIN_RATERS_PER_GAME",
    "MIN_SOS_CONDITIONS",
    "dominant_raters",
    "dry_run",
    "few_reliable_raters",
    "not_assessable",
    "thin_evidence",
]

#: inter-rater agreement compares pairs of raters of one game
MIN_RATERS_PER_GAME = 2
#: the SOS parameter a is one least-squares coefficient; fewer points fit any a
MIN_SOS_CONDITIONS = 3
#: "dominant": the fewest raters giving >= half the ratings are at most this many ...
DOMINANT_MAX_RATERS = 2
#: ... or at most this share of the raters ...
DOMINANT_SHARE_OF_RATERS = 0.10
#: ... and never more than this share of the raters (4 raters with equal shares: 2 give half)
DOMINANT_MAX_SHARE_OF_RATERS = 0.25


def thin_evidence(
    doc: Mapping[str, Any], raters_per_game: Mapping[str, int] | None = None
) -> list[DocWarning]:
    """Statistics resting on fewer raters, ratings or conditions than they need:
    games with < 2 raters (no inter-rater agreement), conditions with fewer ratings than a
    ±half-width MOS interval needs (``planning.raters_per_condition_for_interval``, when the
    document has it), and the SOS fit on < 3 conditions (overall or per game)."""
    out: list[DocWarning] = []
    if raters_per_game:
        single = sorted(g for g, n in raters_per_game.items() if n < MIN_RATERS_PER_GAME)
        if single:
            have = ", ".join(f"{g} ({raters_per_game[g]})" for g in single)
            out.append(
                make(
                    "thin_evidence",
                    "reliability.inter",
                    f"{len(single)} of {len(raters_per_game)} games have fewer than "
                    f"{MIN_RATERS_PER_GAME} raters, so agreement between raters cannot be "
                    f"measured there: {have} (need >= {MIN_RATERS_PER_GAME} per game)",
                )
            )
    out.extend(_thin_conditions(doc))
    out.extend(_thin_sos(as_map(doc.get("sos_hypothesis"))))
    return out


def _thin_conditions(doc: Mapping[str, Any]) -> list[DocWarning]:
    planning = as_map(doc.get("planning"))
    need = planning.get("raters_per_condition_for_interval")
    if not isinstance(need, int | float) or need <= 0:
        return []
    half = planning.get("half_width", 0.5)
    conditions = rows(doc.get("conditions"))
    # scenario x game; the pooled "all" rows only when there are no others
    per_game = [c for c in conditions if c.get("game") != ALL_GAMES] or conditions
    rated = [c for c in per_game if isinstance(c.get("n"), int) and c["n"] > 0]
    thin = sorted(
        (c for c in rated if c["n"] < need), key=lambda c: (c["n"], str(c.get("scenario")))
    )
    if not thin:
        return []
    named = [f"{c.get('scenario')}/{c.get('game')} ({c['n']})" for c in thin]
    return [
        make(
            "thin_evidence",
            "conditions",
            f"{len(thin)} of {len(rated)} conditions have fewer ratings than a MOS interval "
            f"of ±{num(half)} needs (need >= {int(need)} per condition, have "
            f"{count_range(c['n'] for c in thin)}): {listed(named)}",
        )
    ]


def _thin_sos(sos: Mapping[str, Any]) -> list[DocWarning]:
    if not sos:
        return []
    out: list[DocWarning] = []
    n_all = sos.get("n_conditions")
    if isinstance(n_all, int) and n_all < MIN_SOS_CONDITIONS:
        out.append(
            make(
                "thin_evidence",
                "sos_hypothesis",
                f"the SOS parameter a is fitted on {n_all} conditions (need >= "
                f"{MIN_SOS_CONDITIONS})",
            )
        )
        return out  # every game has fewer still
    by_game = as_map(sos.get("by_game"))
    thin = sorted(
        g
        for g, fit in by_game.items()
        if isinstance(as_map(fit).get("n_conditions"), int)
        and as_map(fit)["n_conditions"] < MIN_SOS_CONDITIONS
    )
    if thin:
        have = [f"{g} ({as_map(by_game[g])['n_conditions']})" for g in thin]
        out.append(
            make(
                "thin_evidence",
                "sos_hypothesis",
                f"the SOS parameter a of {counted(len(thin), 'game', 'games')} is fitted on "
                f"fewer than {MIN_SOS_CONDITIONS} conditions: {listed(have)} (need >= "
                f"{MIN_SOS_CONDITIONS} per game)",
            )
        )
    return out


#: a rater's own correlation in a reason ("rho = -0.949", "r1 = undefined")
_OWN_VALUE = re.compile(r"\b(rho|r1|r2|r) = (-?\d+(?:\.\d+)?|undefined)")


def _reasons(rows_: Sequence[Mapping[str, Any]], most: int = 2) -> str:
    """The most frequent reasons with their counts ("reason (3); other reasons (1)"); each
    rater's own correlation value is left out, so equal reasons on one design count
    together (the design's numbers, such as p or a minimum, stay)."""
    raw = Counter(str(r.get("reason") or "no reason given") for r in rows_)
    counts: Counter[str] = Counter()
    for reason, n in raw.items():  # the distinct texts only: 10^5 raters share few
        counts[_OWN_VALUE.sub(r"\1 = …", reason)] += n
    top = counts.most_common(most)
    text = "; ".join(f"{reason} ({n})" for reason, n in top)
    rest = sum(counts.values()) - sum(n for _, n in top)
    return text + (f"; other reasons ({rest})" if rest else "")


def _rule_not_assessable(
    where: str, per_rater: Sequence[Mapping[str, Any]], of: int, rule: str
) -> list[DocWarning]:
    """One warning for the raters a rule's table marks not assessable, with their reasons."""
    na = [r for r in per_rater if r.get("status") == "not_assessable"]
    if not na:
        return []
    text = f"{len(na)} of {of} raters are not assessable {rule}: {_reasons(na)}"
    return [make("not_assessable", where, text)]


def not_assessable(doc: Mapping[str, Any]) -> list[DocWarning]:
    """Per screening rule, how many raters it cannot judge and why (intra-rater ρ, P.913,
    straight-lining), and a P.913 screening that as a whole is not assessable."""
    reliability = as_map(doc.get("reliability"))
    screening = as_map(reliability.get("screening"))
    out: list[DocWarning] = []
    intra = rows(reliability.get("intra"))
    # a rule's table may list only the raters it did not pass: count against all raters
    n_raters = as_map(doc.get("meta")).get("n_raters")
    of = n_raters if isinstance(n_raters, int) else len(intra)
    out += _rule_not_assessable(
        "reliability.intra",
        intra,
        of,
        "by the intra-rater rule (neither reliable nor unreliable)",
    )
    p913 = as_map(screening.get("p913"))
    per_rater = rows(p913.get("per_rater"))
    na = [r for r in per_rater if r.get("status") == "not_assessable"]
    used, total = p913.get("n_conditions_used"), p913.get("n_conditions_total")
    minimum = p913.get("min_raters_per_condition")
    basis = (
        f" (conditions with >= {minimum} raters: {used} of {total})"
        if used is not None and total is not None and minimum is not None
        else ""
    )
    if p913.get("status") == "not_assessable":
        reason = p913.get("reason") or "too few usable conditions"
        out.append(
            make(
                "not_assessable",
                "reliability.screening.p913",
                f"the P.913 screening is not assessable: {reason}; "
                f"{len(na)} of {of} raters not assessable",
            )
        )
    else:
        out += _rule_not_assessable(
            "reliability.screening.p913", per_rater, of, f"by the P.913 screening{basis}"
        )
    flat = as_map(screening.get("straight_lining"))
    per_rater = rows(flat.get("per_rater"))
    minimum = flat.get("min_ratings_per_session")
    need = f" (a session needs >= {minimum} ratings)" if minimum is not None else ""
    out += _rule_not_assessable(
        "reliability.screening.straight_lining", per_rater, of, f"for straight-lining{need}"
    )
    return out


def few_reliable_raters(doc: Mapping[str, Any]) -> list[DocWarning]:
    """With ``reliable_only``: the kept raters' share of all raters is below
    ``meta.min_reliable_share`` (the analysis runs, on few raters)."""
    meta = as_map(doc.get("meta"))
    if not meta.get("reliable_only"):
        return []
    n_raters = meta.get("n_raters")
    kept = meta.get("n_reliable_raters")
    if kept is None:
        kept = len(as_map(doc.get("reliability")).get("reliable_raters") or [])
    minimum = meta.get("min_reliable_share", 0.5)
    if not isinstance(n_raters, int) or n_raters <= 0 or not isinstance(minimum, int | float):
        return []
    share = meta.get("reliable_share")
    if not isinstance(share, int | float):
        share = kept / n_raters
    if share >= minimum:
        return []
    return [
        make(
            "few_reliable_raters",
            "meta",
            f"reliable_only analyses {kept} of {n_raters} raters ({pct(share)}), below the "
            f"minimum share {pct(minimum)} (min_reliable_share); the results describe these "
            f"{kept} raters only",
        )
    ]


def dominant_raters(counts: Sequence[int] | np.ndarray[Any, Any]) -> list[DocWarning]:
    """A few raters give most ratings. k = the fewest raters whose ratings make up >= 50 %
    of all (largest counts first); warns when k <= 2 or k <= 10 % of the raters, and k is at
    most a quarter of the raters (4 raters with equal shares are not dominated by 2)."""
    per_rater = np.sort(np.asarray(counts, dtype=np.int64))[::-1]
    per_rater = per_rater[per_rater > 0]
    n_raters, total = len(per_rater), int(per_rater.sum())
    if n_raters < 2:
        return []
    k = int(np.searchsorted(np.cumsum(per_rater), total / 2)) + 1
    few = k <= DOMINANT_MAX_RATERS or k <= DOMINANT_SHARE_OF_RATERS * n_raters
    if not few or k > DOMINANT_MAX_SHARE_OF_RATERS * n_raters:
        return []
    given = int(per_rater[:k].sum())
    return [
        make(
            "dominant_raters",
            "meta",
            f"{k} of {n_raters} raters give {given} of {total} ratings ({pct(given / total)}); "
            f"the results mostly describe them, and the tree's cross-validated accuracy "
            f"is their accuracy, likely higher than for new raters (rule: the fewest raters "
            f"giving >= 50 % of "
            f"the ratings are <= {DOMINANT_MAX_RATERS} or <= "
            f"{pct(DOMINANT_SHARE_OF_RATERS)} of the raters, and <= "
            f"{pct(DOMINANT_MAX_SHARE_OF_RATERS)} of them)",
        )
    ]


def dry_run(doc: Mapping[str, Any]) -> list[DocWarning]:
    """Ratings played through a dry-run agent (no impairment applied to a kernel)."""
    meta = as_map(doc.get("meta"))
    n_dry, n_all = meta.get("n_ratings_dry_run"), meta.get("n_ratings")
    if not isinstance(n_dry, int) or n_dry <= 0 or not isinstance(n_all, int) or n_all <= 0:
        return []
    return [
        make(
            "dry_run",
            "meta",
            f"{n_dry} of {n_all} ratings ({pct(n_dry / n_all)}) come from dry-run sessions: "
            "the agent applied no impairment, so these ratings are of unimpaired play "
            "whatever their scenario says",
        )
    ]
