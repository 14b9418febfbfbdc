"""Response times of the ratings: their distribution per item and the raters who answer
implausibly fast.

``response_ms`` is the client-measured time from the rating screen's first appearance to
the submission, one value per rating slot (repeated on each item row of the slot). Per item:
n, 10th percentile, median and 90th percentile of the slots that rated the item (linear
interpolation between order statistics, Hyndman & Fan type 7, NumPy's default). A rater is
*fast* when the median of their slots' response times is below ``min_response_ms`` (the
study's floor; P.808-style crowdsourcing screening uses the same idea of a minimum
plausible time); ``share_fast`` is the share of their slots answered below the floor.
Missing response times (not measured, imported data) are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.tidy.columns import ITEM, RESPONSE_MS
from qoe_analysis.tidy.design import RATER, SCENARIO, SESSION

__all__ = ["fast_raters", "response_time_summary", "response_times_by_item"]


def response_time_summary(values: Sequence[float] | np.ndarray[Any, Any]) -> dict[str, Any]:
    """{n, p10, median, p90} of the finite values (None when there are none)."""
    x = np.asarray(values, dtype=np.float64)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return {"n": 0, "p10": None, "median": None, "p90": None}
    p10, median, p90 = np.percentile(x, [10.0, 50.0, 90.0])
    return {"n": int(x.size), "p10": float(p10), "median": float(median), "p90": float(p90)}


def response_times_by_item(long: pd.DataFrame, keys: Sequence[str]) -> dict[str, Any]:
    """Per item key the summary of the response times of the slots that rated it."""
    if RESPONSE_MS not in long.columns:
        return {key: response_time_summary([]) for key in keys}
    items = long[ITEM].astype(str).to_numpy()
    values = long[RESPONSE_MS].to_numpy(dtype=np.float64)
    return {key: response_time_summary(values[items == key]) for key in keys}


def fast_raters(long: pd.DataFrame, min_response_ms: float) -> list[dict[str, Any]]:
    """Raters whose median response time per slot is below ``min_response_ms``:
    [{rater_id, n, median_ms, share_fast}] sorted by rater id."""
    if RESPONSE_MS not in long.columns:
        return []
    slots = long[[RATER, SESSION, SCENARIO, RESPONSE_MS]].dropna(subset=[RESPONSE_MS])
    slots = slots.astype({RATER: str, SESSION: str, SCENARIO: str})
    slots = slots.drop_duplicates(subset=[RATER, SESSION, SCENARIO])
    out = []
    for rater, rows in slots.groupby(RATER, sort=True):
        ms = rows[RESPONSE_MS].to_numpy(dtype=np.float64)
        median = float(np.median(ms))
        if median < min_response_ms:
            out.append(
                {
                    RATER: str(rater),
                    "n": int(ms.size),
                    "median_ms": median,
                    "share_fast": float(np.mean(ms < min_response_ms)),
                }
            )
    return out
