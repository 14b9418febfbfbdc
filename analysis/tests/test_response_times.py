"""Response-time summaries and fast raters against hand-computed values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.stats.response_times import (
    fast_raters,
    response_time_summary,
    response_times_by_item,
)


def test_summary_by_hand() -> None:
    # sorted 400, 800, 1200, 2000, 5000: linear percentiles at rank p (n - 1)
    # p10: rank 0.4 -> 400 + 0.4 * 400 = 560; median 1200; p90: rank 3.6 -> 2000 + 0.6 * 3000
    summary = response_time_summary([1200, 400, 5000, 800, 2000, float("nan")])
    assert summary == {"n": 5, "p10": 560.0, "median": 1200.0, "p90": 3800.0}
    assert response_time_summary([]) == {"n": 0, "p10": None, "median": None, "p90": None}


def _long() -> pd.DataFrame:
    rows = []
    # rater a: slots at 500, 700, 3000 ms -> median 700 < 1000, 2 of 3 fast
    # rater b: 900, 1500, 2500, NaN -> median 1500, not flagged (1 of 3 fast)
    # rater c: 999, 1000 -> median 999.5 < 1000, 1 of 2 fast (1000 is not below the floor)
    times = {"a": [500, 700, 3000], "b": [900, 1500, 2500, np.nan], "c": [999, 1000]}
    for rater, values in times.items():
        for i, ms in enumerate(values):
            for item in ("overall", "acceptance"):  # the slot's time repeats on each item
                rows.append(
                    {
                        "rater_id": rater,
                        "session_id": f"s{rater}",
                        "scenario": f"S{i}",
                        "item": item,
                        "response_ms": ms,
                    }
                )
    return pd.DataFrame(rows)


def test_fast_raters_by_hand() -> None:
    flagged = fast_raters(_long(), 1000)
    assert flagged == [
        {"rater_id": "a", "n": 3, "median_ms": 700.0, "share_fast": pytest.approx(2 / 3)},
        {"rater_id": "c", "n": 2, "median_ms": 999.5, "share_fast": 0.5},
    ]
    assert fast_raters(_long(), 500) == []
    assert fast_raters(_long().drop(columns=["response_ms"]), 1000) == []


def test_per_item_summary_counts_the_slots_that_rated_the_item() -> None:
    long = _long()
    long = long[~((long["rater_id"] == "a") & (long["item"] == "acceptance"))]
    by_item = response_times_by_item(long, ["overall", "acceptance", "unrated"])
    assert by_item["overall"]["n"] == 8 and by_item["acceptance"]["n"] == 5
    # acceptance: 900, 1500, 2500, 999, 1000 -> median 1000
    assert by_item["acceptance"]["median"] == 1000.0
    assert by_item["unrated"]["n"] == 0
