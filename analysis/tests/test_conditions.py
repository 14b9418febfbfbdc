"""MOS, SOS, t-based CI, %GoB and %PoW against hand computation and SciPy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_analysis.stats.conditions import (
    bounded_interval,
    condition_table,
    mos_confidence_interval,
    rating_histograms,
    summarise_histograms,
    summarise_values,
    t_quantile,
)
from scipy import stats

# Hand-computed case: ratings 1, 3, 4, 4, 5 (n = 5)
#   MOS = 17/5 = 3.4; squared deviations 5.76, 0.16, 0.36, 0.36, 2.56 -> sum 9.2
#   SOS = sqrt(9.2 / 4) = sqrt(2.3) = 1.516575...; t(0.975, 4) = 2.776445...
#   half width = 2.776445 * 1.516575 / sqrt(5) = 1.883076...
HAND = [1, 3, 4, 4, 5]


def test_hand_computed_case() -> None:
    mos, low, high = mos_confidence_interval(HAND)
    assert mos == pytest.approx(3.4)
    assert high - mos == pytest.approx(2.7764451051977987 * np.sqrt(2.3) / np.sqrt(5))
    assert (high - mos) == pytest.approx(1.883076, abs=1e-6)
    assert low == pytest.approx(3.4 - 1.883076, abs=1e-6)


def test_matches_scipy_t_interval() -> None:
    rng = np.random.default_rng(1)
    for n in (2, 3, 7, 30, 200):
        x = rng.integers(1, 6, n)
        x[:2] = (1, 5)  # non-constant: SciPy's interval needs a positive scale
        mos, low, high = mos_confidence_interval(x)
        ref = stats.t.interval(0.95, n - 1, loc=x.mean(), scale=stats.sem(x))
        assert mos == pytest.approx(x.mean())
        assert (low, high) == pytest.approx(ref, rel=1e-12)


def test_t_quantile_by_hand() -> None:
    # tabled Student t 0.975 quantiles (df 1, 4, 9, 29) and the normal limit
    assert t_quantile(0.975, 1) == pytest.approx(12.7062047, rel=1e-7)
    assert t_quantile(0.975, 4) == pytest.approx(2.7764451, rel=1e-7)
    assert t_quantile(0.975, 9) == pytest.approx(2.2621572, rel=1e-7)
    assert t_quantile(0.975, 29) == pytest.approx(2.0452296, rel=1e-7)
    assert t_quantile(0.975, 1e9) == pytest.approx(1.9599640, rel=1e-7)
    np.testing.assert_allclose(
        t_quantile(0.975, np.array([4.0, 9.0])), [2.7764451, 2.2621572], rtol=1e-7
    )


def test_student_t_is_wider_than_bt500_normal_for_small_n() -> None:
    x = [2, 3, 3, 4, 4, 5]
    mos, _, high = mos_confidence_interval(x)
    normal_half = 1.96 * np.std(x, ddof=1) / np.sqrt(len(x))
    assert high - mos > 1.2 * normal_half


def test_undefined_for_single_rating() -> None:
    mos, low, high = mos_confidence_interval([4])
    assert mos == 4 and np.isnan(low) and np.isnan(high)


def test_histogram_summary_matches_direct_computation() -> None:
    df = pd.DataFrame(
        {
            "scenario": ["B"] * 5 + ["D1"] * 4,
            "game": ["g"] * 9,
            "rating": [*HAND, 2, 2, 4, 5],
        }
    )
    table = condition_table(df).set_index(["scenario", "game"])
    b = table.loc[("B", "g")]
    assert b["n"] == 5
    assert b["mos"] == pytest.approx(3.4)
    assert b["sos"] == pytest.approx(np.std(HAND, ddof=1))
    assert b["gob_pct"] == pytest.approx(60.0)  # 4, 4, 5
    assert b["pow_pct"] == pytest.approx(20.0)  # 1
    d1 = table.loc[("D1", "g")]
    assert (d1["gob_pct"], d1["pow_pct"]) == (50.0, 50.0)
    pooled = table.loc[("B", "all")]
    assert pooled["n"] == 5 and pooled["mos"] == pytest.approx(3.4)
    assert [int(b[f"n_{k}"]) for k in range(1, 6)] == [1, 0, 1, 2, 1]


def test_condition_table_on_study_agrees_with_groupby(study: pd.DataFrame) -> None:
    table = condition_table(study)
    per_game = table[table["game"] != "all"].set_index(["scenario", "game"])
    ref = study.astype({"scenario": str, "game": str}).groupby(["scenario", "game"])["rating"]
    assert np.allclose(per_game["mos"], ref.mean().loc[per_game.index])
    assert np.allclose(per_game["sos"], ref.std(ddof=1).loc[per_game.index])
    assert int(table.loc[table["game"] == "all", "n"].sum()) == len(study)


ratings = st.lists(st.integers(1, 5), min_size=2, max_size=60)


@given(ratings)
def test_mos_lies_on_the_scale(x: list[int]) -> None:
    mos, low, high = mos_confidence_interval(x)
    assert 1 <= mos <= 5
    assert low <= mos <= high


@settings(max_examples=50)
@given(ratings, st.integers(2, 6))
def test_ci_shrinks_with_n(x: list[int], k: int) -> None:
    """Replicating the same sample k times (same MOS and spread) narrows the CI."""
    if len(set(x)) == 1:
        return  # zero spread: width 0 for every n
    _, low1, high1 = mos_confidence_interval(x)
    _, low_k, high_k = mos_confidence_interval(x * k)
    assert high_k - low_k < high1 - low1


def test_rating_histograms_sorted_keys() -> None:
    df = pd.DataFrame({"scenario": ["b", "a", "b"], "game": ["x", "x", "x"], "rating": [1, 5, 2]})
    h = rating_histograms(df, ["scenario", "game"])
    assert list(h.index) == [("a", "x"), ("b", "x")]
    s = summarise_histograms(h)
    assert s.loc[("b", "x"), "mos"] == 1.5


# Intervals inside the scale (docs/methods.md, "Intervals"): clipped to [L, H] and flagged.
#   1, 2 (n = 2): MOS 1.5, SOS = sqrt(0.5), half = t(0.975, 1) * sqrt(0.5) / sqrt(2)
#   = 12.7062047 / 2 = 6.3531 -> [-4.853, 7.853], both ends clipped to [1, 5].
#   4, 5, 5, 5, 5 (n = 5): MOS 4.8, SOS = sqrt(0.8 / 4) = 0.4472, half = 2.7764451 *
#   0.4472136 / sqrt(5) = 0.5552890 -> [4.2447, 5.3553]: only the upper end clipped.
#   2, 3, 3, 4, 4, 5 (n = 6): MOS 3.5, SOS = sqrt(5.5 / 5), half = 2.5705818 * 1.0488088 /
#   sqrt(6) = 1.1006574 -> [2.3993, 4.6007] inside; HAND's 3.4 + 1.883 = 5.283 is clipped.
INSIDE = [2, 3, 3, 4, 4, 5]


def test_bounded_interval_by_hand() -> None:
    mos, low, high = mos_confidence_interval([1, 2], bounds=(1, 5))
    assert (mos, low, high) == (1.5, 1.0, 5.0)
    assert mos_confidence_interval([1, 2])[1] == pytest.approx(1.5 - 6.3531024, abs=1e-6)
    mos, low, high = mos_confidence_interval([4, 5, 5, 5, 5], bounds=(1, 5))
    assert mos == pytest.approx(4.8) and high == 5.0
    assert low == pytest.approx(4.8 - 0.5552890, abs=1e-6)
    # inside the scale: the very same numbers as without bounds
    assert mos_confidence_interval(INSIDE, bounds=(1, 5)) == mos_confidence_interval(INSIDE)
    assert mos_confidence_interval(INSIDE)[2] == pytest.approx(3.5 + 1.1006574, abs=1e-6)
    assert bounded_interval(3.4, 1.883076, 5, (1, 5)) == (3.4 - 1.883076, 5.0, "clipped")
    assert bounded_interval(3.5, 1.1006574, 6, (1, 5)) == (3.5 - 1.1006574, 3.5 + 1.1006574, "ok")
    low, high, status = bounded_interval(4.0, 0.0, 1, (1, 5))
    assert np.isnan(low) and np.isnan(high) and status == "n_too_small"
    # an end exactly on the scale's end is not clipped
    assert bounded_interval(4.0, 1.0, 3, (1, 5)) == (3.0, 5.0, "ok")
    assert bounded_interval(4.0, 2.0, 3, None) == (2.0, 6.0, "ok")


def test_condition_table_clips_and_flags() -> None:
    df = pd.DataFrame(
        {
            "scenario": ["A"] * 2 + ["B"] * 5 + ["C"] * 6 + ["D"],
            "game": ["g"] * 14,
            "rating": [1, 2, 4, 5, 5, 5, 5, *INSIDE, 3],
        }
    )
    table = condition_table(df).set_index(["scenario", "game"])
    rows = {s: table.loc[(s, "g")] for s in "ABCD"}
    assert (rows["A"]["ci95_low"], rows["A"]["ci95_high"], rows["A"]["ci95_status"]) == (
        1.0,
        5.0,
        "clipped",
    )
    assert rows["B"]["ci95_high"] == 5.0 and rows["B"]["ci95_status"] == "clipped"
    assert rows["B"]["ci95_low"] == pytest.approx(4.8 - 0.5552890, abs=1e-6)
    _, low, high = mos_confidence_interval(INSIDE)
    assert (rows["C"]["ci95_low"], rows["C"]["ci95_high"], rows["C"]["ci95_status"]) == (
        low,
        high,
        "ok",
    )
    assert np.isnan(rows["D"]["ci95_low"]) and rows["D"]["ci95_status"] == "n_too_small"
    assert list(table.columns[:6]) == ["n", "mos", "sos", "ci95_low", "ci95_high", "ci95_status"]


def test_continuous_values_are_clipped_to_the_given_bounds() -> None:
    df = pd.DataFrame({"scenario": ["A", "A", "B"], "game": "g", "rating": [6.5, 7.0, 3.2]})
    out = summarise_values(df, ["scenario", "game"], bounds=(1.0, 7.0))
    a, b = out.loc[("A", "g")], out.loc[("B", "g")]
    assert (a["ci95_high"], a["ci95_status"]) == (7.0, "clipped")
    assert a["ci95_low"] == pytest.approx(6.75 - 12.7062047 * np.sqrt(0.125) / np.sqrt(2))
    assert b["ci95_status"] == "n_too_small"
    assert summarise_values(df, ["scenario", "game"]).loc[("A", "g"), "ci95_high"] > 7.0


@given(ratings)
def test_clipped_interval_lies_on_the_scale(x: list[int]) -> None:
    mos, low, high = mos_confidence_interval(x, bounds=(1, 5))
    _, raw_low, raw_high = mos_confidence_interval(x)
    assert 1 <= low <= mos <= high <= 5
    assert (low, high) == (max(raw_low, 1.0), min(raw_high, 5.0))


def test_an_estimate_off_the_scale_gets_an_interval_at_its_end() -> None:
    # the subject model's quality can lie off the scale: -1 +- 0.5 on 0..6 -> [0, 0]
    assert bounded_interval(-1.0, 0.5, 5, (0, 6)) == (0.0, 0.0, "clipped")
    low, high, status = bounded_interval(
        np.array([6.8, 3.0, 5.0]), np.array([0.5, 1.0, np.nan]), np.array([3, 3, 1]), (0, 6)
    )
    np.testing.assert_array_equal(low, [6.0, 2.0, np.nan])
    np.testing.assert_array_equal(high, [6.0, 4.0, np.nan])
    assert list(status) == ["clipped", "ok", "n_too_small"]
