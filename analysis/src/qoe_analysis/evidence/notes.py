"""Plain-words reasons for what the analysis cannot compute yet (the document's ``notes``).

A pilot study — one session, one rater per game, a factor with one level — is the normal
first state of every study. :func:`analyze` then still returns a document; each section
that has nothing to show (or only part of it) is named in ``notes`` with the reason, so
the results explorer and the CLI can say *why* instead of showing an empty figure.

Sections: ``sos_hypothesis``, ``reliability.intra``, ``reliability.inter``, ``weights``,
``tree``, ``thresholds``, ``subject_model``. Pure functions; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.stats.reliability import ScenarioGroup, Sessions, no_group_reason, session_codes
from qoe_analysis.tabular import column_codes
from qoe_analysis.tidy.design import GAME, RATER
from qoe_analysis.tidy.validation import RatingsValidationError

__all__ = ["NoReliableRatersError", "no_reliable_message", "pilot_notes"]

_KPI_WORDS = "delay, jitter or loss"


class NoReliableRatersError(RatingsValidationError):
    """``reliable_only`` was asked for, but fewer raters pass the intra-rater rule than
    ``min_reliable_raters``."""


def _evidence_gap(intra: pd.DataFrame) -> str:
    """Why the raters that passed on ρ are still not assessable: the smallest chance of a
    random rater passing on any rater's design (random_pass)."""
    column = intra["p_random_pass"] if "p_random_pass" in intra.columns else pd.Series([])
    p = pd.to_numeric(column, errors="coerce").dropna()
    if p.empty:
        return (
            "no rater's sessions have >= 4 ratings over >= 3 levels of a scenario group, so "
            "no Spearman rho counts"
        )
    return (
        f"on every rater's design a rater rating at random would pass with p >= "
        f"{float(p.min()):.4f} > 0.01 (more sessions per rater, or groups with more levels, "
        "give the rule evidence)"
    )


def no_reliable_message(
    intra: pd.DataFrame, cutoff: float, design_gap: str | None, min_raters: int = 1
) -> str:
    """Why ``reliable_only`` refuses: how many raters it would keep against the
    ``min_raters`` needed, the intra-rater statuses, and what the design lacks when nobody
    can be assessed."""
    status = intra["status"].astype(str)
    n_reliable = int((status == "reliable").sum())
    n_unreliable = int((status == "unreliable").sum())
    n_na = int((status == "not_assessable").sum())
    n = len(status)
    keep = (
        f"reliable_only would keep {n_reliable} of {n} raters, fewer than "
        f"min_reliable_raters = {min_raters}"
    )
    if n_reliable == 0 and n_unreliable == 0:
        lacking = design_gap or _evidence_gap(intra)
        return (
            f"no rater can be assessed by the intra-rater rule (all {n_na} not assessable): "
            f"{lacking}; {keep}, so analyse all raters or add a one-factor-at-a-time group "
            "(baseline + >= 2 levels of one factor) with enough sessions per rater"
        )
    counts = f"{n_reliable} reliable, {n_unreliable} unreliable, {n_na} not assessable"
    if n_reliable == 0:
        return (
            f"no rater passes the intra-rater reliability rule (rho < -{cutoff:g} on enough "
            f"evidence): {counts}; {keep}"
        )
    return f"too few raters pass the intra-rater rule (rho < -{cutoff:g}): {counts}; {keep}"


def _sessions_per_game(table: pd.DataFrame, sessions: Sessions | None = None) -> dict[str, int]:
    """Distinct (rater, session) pairs per game, games in text order. Counted on integer
    codes: no row becomes text (a game's text names one game in a validated table).
    ``sessions``: :func:`~qoe_analysis.stats.reliability.session_codes` of ``table`` when the
    caller has it."""
    _, triples = session_codes(table) if sessions is None else sessions
    game_of_triple, games = column_codes(triples[GAME])
    counts: dict[str, int] = {}
    for game, n in zip(games, np.bincount(game_of_triple, minlength=len(games)), strict=True):
        if n:  # an unused category of a categorical column is no game of this table
            counts[str(game)] = counts.get(str(game), 0) + int(n)
    return dict(sorted(counts.items()))


def pilot_notes(
    table: pd.DataFrame,
    groups: Mapping[str, ScenarioGroup],
    subject: Any,
    thresholds: Mapping[str, Any],
    varying: Sequence[str],
    sos_a: float | None,
    scale: Mapping[str, Any] | None = None,
    *,
    sessions: Sessions | None = None,
) -> dict[str, str]:
    """``{section: reason}`` for each section that is (partly) not computable.
    ``sessions``: :func:`~qoe_analysis.stats.reliability.session_codes` of ``table``, if made."""
    notes: dict[str, str] = {}
    low, high = (1, 5) if scale is None else (scale["min"], scale["max"])
    per_game = _sessions_per_game(table, sessions)
    if sos_a is None or not np.isfinite(sos_a):
        notes["sos_hypothesis"] = (
            "needs conditions (scenario x game) with >= 2 ratings whose MOS is not at a scale "
            "end; so far every condition has one rating or all ratings agree on "
            f"{low:g} or {high:g}"
        )
    if not groups:
        notes["reliability.intra"] = (
            no_group_reason(table) + "; every rater is not assessable (neither reliable "
            "nor unreliable)"
        )
    single = sorted(g for g, n in per_game.items() if n < 2)
    if single and len(single) == len(per_game) and table[RATER].nunique() < 2:
        notes["reliability.inter"] = "needs >= 2 raters per game (there is one rater so far)"
    elif single:
        notes["reliability.inter"] = (
            f"needs >= 2 raters per game; only one so far for: {', '.join(single)}"
        )
    if not varying:
        notes["weights"] = (
            "no impairment factor varies yet (needs >= 2 levels of a factor); weights cover "
            "the game and per-rater columns only"
        )
        notes["tree"] = "no impairment factor varies yet: the tree cannot split on one"
    elif len(table) < 2:
        notes["tree"] = "one rating: the tree is a single leaf, grown without a pruning set"
    if not thresholds.get("by_pace"):
        notes["thresholds"] = (
            f"no KPI factor ({_KPI_WORDS}) varies in this design, so no threshold can be "
            "located; vary one over >= 2 levels"
        )
    status = getattr(subject, "status", "ok")
    if status != "ok":
        issues = getattr(subject, "not_identifiable", []) or []
        reasons = "; ".join(sorted({str(i.get("reason")) for i in issues if i.get("reason")}))
        notes["subject_model"] = f"{status.replace('_', ' ')}" + (f": {reasons}" if reasons else "")
    return notes
