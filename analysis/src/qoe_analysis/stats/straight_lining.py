"""Straight-lining: sessions whose ratings all have one value (zero variance).

Only sessions with at least :data:`MIN_RATINGS_PER_SESSION` (5) ratings are judged (issue
31): two or three equal ratings happen to careful raters too (a 5-point scale, conditions
close together), so a shorter session says nothing. A rater none of whose sessions is that
long is ``not_assessable``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.stats.sessions import Sessions
from qoe_analysis.tabular import column_codes, group_codes
from qoe_analysis.text_order import sort_by_text
from qoe_analysis.tidy.design import RATER, RATING, SESSION

__all__ = [
    "MIN_RATINGS_PER_SESSION",
    "sessions_by_rater",
    "straight_lining",
    "straight_lining_status",
]

#: A session is judged for straight-lining only with at least this many ratings.
MIN_RATINGS_PER_SESSION = 5


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
    """Per rater: ``unreliable`` if a judged session of theirs is flat (see
    :func:`straight_lining`), ``not_assessable`` if no session has
    :data:`MIN_RATINGS_PER_SESSION` ratings, else ``reliable``; with the reason."""
    codes, session_table = group_codes(df, [RATER, SESSION]) if sessions is None else sessions
    rater_codes, raters = column_codes(session_table[RATER].astype(str))
    largest = np.zeros(len(raters), dtype=np.int64)
    np.maximum.at(largest, rater_codes, np.bincount(codes, minlength=len(session_table)))
    flat_by = sessions_by_rater(flat)
    names = [str(r) for r in raters]
    short = largest < MIN_RATINGS_PER_SESSION
    status = np.where(short, "not_assessable", "reliable").astype(object)
    reason = np.array(
        [
            f"no session with >= {MIN_RATINGS_PER_SESSION} ratings (the longest has {n})"
            if s
            else f"ratings vary within every session of >= {MIN_RATINGS_PER_SESSION} ratings"
            for n, s in zip(largest.tolist(), short.tolist(), strict=True)
        ],
        dtype=object,
    )
    for k, rater in enumerate(names):
        if rater in flat_by:  # few: only the flagged raters
            status[k] = "unreliable"
            reason[k] = "same rating for every scenario in session(s) " + ", ".join(
                map(str, flat_by[rater])
            )
    out = pd.DataFrame({RATER: names, "status": status, "reason": reason})
    return sort_by_text(out, RATER)


def straight_lining(df: pd.DataFrame, *, sessions: Sessions | None = None) -> pd.DataFrame:
    """Sessions of >= :data:`MIN_RATINGS_PER_SESSION` ratings that all have the same value
    (zero variance).

    Returns ``rater_id, session_id, n, value`` for the flagged sessions only.
    """
    codes, session_table = group_codes(df, [RATER, SESSION]) if sessions is None else sessions
    stats_ = pd.Series(df[RATING].to_numpy()).groupby(codes).agg(["min", "max", "size"])
    long_enough = stats_["size"] >= MIN_RATINGS_PER_SESSION
    flat = ((stats_["min"] == stats_["max"]) & long_enough).to_numpy()
    out = pd.DataFrame(
        {
            RATER: session_table[RATER].astype(str).to_numpy()[flat],
            SESSION: session_table[SESSION].astype(str).to_numpy()[flat],
            "n": stats_["size"].to_numpy()[flat],
            "value": stats_["min"].to_numpy()[flat],
        }
    )
    return out.sort_values([RATER, SESSION], kind="stable").reset_index(drop=True)
