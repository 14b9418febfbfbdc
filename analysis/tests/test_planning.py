"""The planning hint: raters per condition for a MOS interval of +-0.5, and its sd rule."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.evidence import planning
from qoe_analysis.evidence.planning import (
    PRIOR_SOS_A,
    planning_section,
    pooled_within_sd,
    raters_for_interval,
    sos_sd,
)
from qoe_analysis.scales import default_scale
from qoe_analysis.stats.conditions import condition_table
from scipy import stats

ACR5 = default_scale("acr5")

# Hand table (t(0.975, df) from printed tables; half width h = 0.5):
#   sd = 1:   n = 17: t(16) / sqrt(17) = 2.1199 / 4.1231 = 0.5142 > 0.5
#             n = 18: t(17) / sqrt(18) = 2.1098 / 4.2426 = 0.4973 <= 0.5  -> 18
#   sd = 0.5: n = 6:  0.5 * 2.5706 / 2.4495 = 0.5247 > 0.5
#             n = 7:  0.5 * 2.4469 / 2.6458 = 0.4624                    -> 7
#   sd = 1.5: n = 37: 1.5 * 2.0281 / 6.0828 = 0.50013 > 0.5
#             n = 38: 1.5 * 2.0262 / 6.1644 = 0.49305                   -> 38
#   sd = 0:   an interval needs two ratings                             -> 2
HAND = [(1.0, 18), (0.5, 7), (1.5, 38), (0.0, 2)]


@pytest.mark.parametrize(("sd", "n"), HAND)
def test_raters_for_interval_by_hand(sd: float, n: int) -> None:
    assert raters_for_interval(sd) == n


def _brute_force(sd: float, half_width: float, confidence: float) -> int:
    """The first n >= 2 whose SciPy t interval (scale sd / sqrt(n)) is no wider than +-h."""
    n = 2
    while True:
        low, high = stats.t.interval(confidence, n - 1, loc=0.0, scale=sd / math.sqrt(n))
        if (high - low) / 2 <= half_width:
            return n
        n += 1


@pytest.mark.parametrize("sd", [0.3, 0.8, 1.0, 1.2, 2.0])
@pytest.mark.parametrize(("half_width", "confidence"), [(0.5, 0.95), (0.25, 0.95), (0.5, 0.99)])
def test_raters_for_interval_matches_scipy(sd: float, half_width: float, confidence: float) -> None:
    n = raters_for_interval(sd, half_width, confidence)
    assert n == _brute_force(sd, half_width, confidence)
    q = 1 - (1 - confidence) / 2
    assert stats.t.ppf(q, n - 1) * sd / math.sqrt(n) <= half_width
    if n > 2:
        assert stats.t.ppf(q, n - 2) * sd / math.sqrt(n - 1) > half_width


@pytest.mark.parametrize("bad", [(-1.0, 0.5, 0.95), (float("nan"), 0.5, 0.95), (1.0, 0.0, 0.95)])
def test_raters_for_interval_rejects_bad_input(bad: tuple[float, float, float]) -> None:
    with pytest.raises(ValueError):
        raters_for_interval(*bad)
    with pytest.raises(ValueError):
        raters_for_interval(1.0, 0.5, 1.0)


def test_sos_sd_at_mid_scale() -> None:
    # a (MOS - L)(H - MOS) at MOS = 3 on 1..5: 0.25 * 2 * 2 = 1; on 0..6: 0.25 * 9 = 2.25
    assert sos_sd(0.25, 1, 5) == pytest.approx(1.0)
    assert sos_sd(0.25, 0, 6) == pytest.approx(1.5)
    assert sos_sd(0.25, 1, 5, mos=4.0) == pytest.approx(math.sqrt(0.75))
    assert sos_sd(0.3, 1, 5, mos=5.0) == 0.0


def _table(rows: list[tuple[str, str, str, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["scenario", "game", "rater_id", "rating"])


def test_pooled_within_condition_sd_by_hand() -> None:
    # A: 1, 3 (SS 2, df 1); B: 2, 3, 4 (SS 2, df 2); C: 5 (n = 1, left out)
    # pooled SD = sqrt((2 + 2) / (1 + 2)) = sqrt(4/3) = 1.1547
    ratings = _table(
        [
            ("A", "g", "r1", 1),
            ("A", "g", "r2", 3),
            ("B", "g", "r1", 2),
            ("B", "g", "r2", 3),
            ("B", "g", "r3", 4),
            ("C", "g", "r1", 5),
        ]
    )
    conditions = condition_table(ratings)
    sd, used = pooled_within_sd(conditions)
    assert used == 2 and sd == pytest.approx(math.sqrt(4 / 3))
    section = planning_section(conditions, ACR5, 0.3, ratings=ratings)
    assert section["sd_basis"] == "pooled_within_condition"
    assert section["sd_assumed"] == pytest.approx(math.sqrt(4 / 3))
    # sqrt(4/3) = 1.1547: n = 23 gives 2.0739 * 1.1547 / 4.7958 = 0.4993, n = 22 0.5120
    assert section["raters_per_condition_for_interval"] == 23
    assert section["median_raters_per_condition"] == 2.0  # A 2, B 3, C 1 distinct raters
    assert section["raters_per_condition_for_p913"] == 4
    assert section["ratings_per_group_for_intra"] == 4
    assert section["levels_per_group_for_intra"] == 3
    assert (section["half_width"], section["confidence"]) == (0.5, 0.95)
    assert "23 raters" in section["note"] and "median of 2" in section["note"]


def test_repeated_ratings_count_one_rater() -> None:
    ratings = _table([("A", "g", "r1", 1), ("A", "g", "r1", 3), ("A", "g", "r2", 2)])
    section = planning_section(condition_table(ratings), ACR5, None, ratings=ratings)
    assert section["median_raters_per_condition"] == 2.0  # r1 twice, r2 once
    without = planning_section(condition_table(ratings), ACR5, None)
    assert without["median_raters_per_condition"] == 3.0  # ratings per condition


def test_distinct_raters_by_bitmap_and_by_sorting(monkeypatch: pytest.MonkeyPatch) -> None:
    # A: r1 three times; B: r1, r2, r2; C: r3 twice -> distinct 1, 2, 1 (median 1), n 3, 3, 2
    ratings = _table(
        [("A", "g", "r1", 3)] * 3
        + [("B", "g", "r1", 2), ("B", "g", "r2", 4), ("B", "g", "r2", 5)]
        + [("C", "g", "r3", 1)] * 2
    )
    conditions = condition_table(ratings)
    assert planning_section(conditions, ACR5, None)["median_raters_per_condition"] == 3.0
    bitmap = planning_section(conditions, ACR5, None, ratings=ratings)
    monkeypatch.setattr(planning, "BITMAP_LIMIT", 0)
    by_sorting = planning_section(conditions, ACR5, None, ratings=ratings)
    assert bitmap["median_raters_per_condition"] == 1.0
    assert by_sorting["median_raters_per_condition"] == 1.0


def test_without_two_ratings_the_sos_hypothesis_gives_the_sd() -> None:
    ratings = _table([("A", "g", "r1", 2), ("B", "g", "r1", 4)])
    conditions = condition_table(ratings)
    fitted = planning_section(conditions, ACR5, 0.16, ratings=ratings)
    assert fitted["sd_basis"] == "sos_fitted"
    assert fitted["sd_assumed"] == pytest.approx(0.4 * 2)  # sqrt(0.16) * (5 - 1) / 2
    assert fitted["raters_per_condition_for_interval"] == raters_for_interval(0.8)
    prior = planning_section(conditions, {**ACR5, "min": 0, "max": 6}, float("nan"))
    assert prior["sd_basis"] == "sos_prior" and PRIOR_SOS_A == 0.25
    assert prior["sd_assumed"] == pytest.approx(1.5)
    assert prior["raters_per_condition_for_interval"] == 38
    assert "0.25" in prior["sd_source"]


def test_the_example_study(study: pd.DataFrame) -> None:
    """The example study: pooled SD 1.0965 over its 30 scenario x game conditions; n = 21
    gives t(20) * 1.0965 / sqrt(21) = 2.0860 * 1.0965 / 4.5826 = 0.4991, n = 20 0.5132."""
    conditions = condition_table(study)
    per_game = conditions[conditions["game"] != "all"]
    ref = study.astype({"scenario": str, "game": str}).groupby(["scenario", "game"])["rating"]
    within = np.sqrt((ref.var(ddof=1) * (ref.size() - 1)).sum() / (ref.size() - 1).sum())
    section = planning_section(conditions, ACR5, None, ratings=study)
    assert section["sd_assumed"] == pytest.approx(within, rel=1e-12)
    assert section["sd_assumed"] == pytest.approx(1.0965, abs=1e-4)
    assert section["raters_per_condition_for_interval"] == 21
    assert section["median_raters_per_condition"] == float(np.median(per_game["n"]))
