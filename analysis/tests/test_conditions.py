"""MOS, SOS, t-based CI, %GoB and %PoW against hand computation and SciPy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_analysis.stats.conditions import (
    condition_table,
    mos_confidence_interval,
    rating_histograms,
    summarise_histograms,
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
