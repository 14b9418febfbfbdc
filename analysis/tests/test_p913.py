"""ITU-T P.913 screening (r1 and r2, iterated): hand-computed cases, statuses, reasons."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.stats.p913 import (
    p913_iterated_screening,
    screening_reasons,
    sorted_distinct,
)
from scipy import stats


def table(ratings: dict[str, dict[str, list[float]]]) -> pd.DataFrame:
    """rater -> game -> ratings of scenarios s1, s2, ... in order."""
    rows = [
        (rater, game, f"s{k + 1}", value)
        for rater, games in ratings.items()
        for game, values in games.items()
        for k, value in enumerate(values)
    ]
    return pd.DataFrame(rows, columns=["rater_id", "game", "scenario", "rating"])


def test_r2_keeps_a_rater_that_r1_alone_rejects() -> None:
    # A-C: scenario effect 1 per step, g1 one point better than g2. D orders the scenarios
    # the same way but prefers g2 (a different taste in games).
    good = {"g1": [5.0, 4.0, 3.0], "g2": [3.0, 2.0, 1.0]}
    data = table({"A": good, "B": good, "C": good, "D": {"g1": [3, 2, 1], "g2": [5, 4, 3]}})
    # by hand: PVS means (all four raters) g1 = (4.5, 3.5, 2.5), g2 = (3.5, 2.5, 1.5);
    # D's per-scenario means (4, 3, 2) equal the overall per-scenario means -> r2 = 1;
    # r1: centred D = (0, −1, −2, 2, 1, 0), centred means = (1.5, .5, −.5, .5, −.5, −1.5),
    # Sxy = 1, Sxx = 10, Syy = 5.5 -> r1 = 1/√55
    r1_d = stats.pearsonr([3, 2, 1, 5, 4, 3], [4.5, 3.5, 2.5, 3.5, 2.5, 1.5])[0]
    assert r1_d == pytest.approx(1 / np.sqrt(55))
    result, summary = p913_iterated_screening(data)
    d = result.set_index("rater_id").loc["D"]
    assert d["r1"] == pytest.approx(r1_d) and d["r2"] == pytest.approx(1.0)
    assert d["status"] == "reliable" and "but r2 = 1.000 >= 0.8" in d["reason"]
    assert summary["rejected_per_pass"] == [] and summary["passes"] == 1
    # the single-pass r1 rule (r < 0.75) would reject D
    assert d["r"] == pytest.approx(r1_d) and d["r"] < 0.75


def test_second_pass_rejects_a_rater_the_first_pass_kept() -> None:
    # one game, so r2 = r1 and the rule is r1 < 0.75
    ratings = {
        "G1": [5.0, 4.0, 2.0, 1.0],
        "G2": [5.0, 3.0, 2.0, 1.0],
        "G3": [4.0, 4.0, 2.0, 1.0],
        "X": [1.0, 2.0, 4.0, 5.0],  # reversed
        "Y": [5.0, 1.0, 5.0, 1.0],
    }
    data = table({k: {"g": v} for k, v in ratings.items()})
    mean1 = np.mean(list(ratings.values()), axis=0)
    mean2 = np.mean([ratings[k] for k in ("G1", "G2", "G3", "Y")], axis=0)
    ry1 = stats.pearsonr(ratings["Y"], mean1)[0]
    ry2 = stats.pearsonr(ratings["Y"], mean2)[0]
    assert ry1 == pytest.approx(0.768221279597376) and ry1 >= 0.75
    assert ry2 == pytest.approx(0.658504607868518) and ry2 < 0.75
    result, summary = p913_iterated_screening(data)
    assert summary["rejected_per_pass"] == [["X"], ["Y"]] and summary["passes"] == 3
    by = result.set_index("rater_id")
    assert by.loc["Y", "status"] == "unreliable" and by.loc["Y", "rejected_in_pass"] == 2
    assert by.loc["Y", "r1"] == pytest.approx(ry2) and by.loc["Y", "r"] == pytest.approx(ry1)
    assert by.loc["Y", "reason"].startswith("pass 2: r1 = 0.659 < 0.75")
    assert by.loc["X", "rejected_in_pass"] == 1
    assert (by.loc[["G1", "G2", "G3"], "status"] == "reliable").all()
    assert by.loc["G1", "rejected_in_pass"] is None
    # the single-pass r1 rule (r < 0.75) would keep Y
    assert by.loc["Y", "r"] >= 0.75


def test_constant_rater_is_not_assessable() -> None:
    good = {"g1": [5.0, 4.0, 3.0], "g2": [4.0, 3.0, 1.0]}
    data = table({"A": good, "B": good, "C": good, "F": {"g1": [3, 3, 3], "g2": [3, 3, 3]}})
    result, summary = p913_iterated_screening(data)
    f = result.set_index("rater_id").loc["F"]
    assert f["status"] == "not_assessable" and np.isnan(f["r1"]) and np.isnan(f["r2"])
    assert "undefined" in f["reason"]
    assert summary["status"] == "ok" and summary["n_conditions_used"] == 6


def test_conditions_with_fewer_than_four_raters_are_not_used() -> None:
    # s1..s4 rated by A-D (four raters), s5 and s6 by A and B only. E rated s5, s6 alone
    # with A and B: three raters there, so E has no used condition
    four = {"g": [5.0, 4.0, 2.0, 1.0]}
    rows = table({"A": four, "B": four, "C": four, "D": {"g": [1.0, 2.0, 4.0, 5.0]}})
    extra = pd.DataFrame(
        [(r, "g", s, v) for r in ("A", "B", "E") for s, v in (("s5", 3.0), ("s6", 1.0))],
        columns=rows.columns,
    )
    data = pd.concat([rows, extra], ignore_index=True)
    result, summary = p913_iterated_screening(data)
    by = result.set_index("rater_id")
    # by hand on s1..s4 only (s5, s6 would add A's and B's 3 and 1): pass-1 means over
    # A-D (4, 3.5, 2.5, 2) = 4.5 - D/2, so r1(D) = -1 < 0.75 and r2 = r1 (one game)
    mean = np.array([4.0, 3.5, 2.5, 2.0])
    assert by.loc["D", "r"] == pytest.approx(stats.pearsonr([1, 2, 4, 5], mean)[0])
    assert by.loc["D", "r"] == pytest.approx(-1.0)
    assert by.loc["D", "status"] == "unreliable" and by.loc["D", "rejected_in_pass"] == 1
    assert by.loc["A", "status"] == "reliable"
    # A's own s5, s6 ratings are left out of A's correlation too
    assert by.loc["A", "r"] == pytest.approx(stats.pearsonr([5, 4, 2, 1], mean)[0])
    e = by.loc["E"]
    assert e["status"] == "not_assessable" and np.isnan(e["r"])
    assert e["reason"].startswith("0 condition(s) rated by >= 4 raters")
    assert (summary["n_conditions_used"], summary["n_conditions_total"]) == (4, 6)
    assert summary["min_raters_per_condition"] == 4 and summary["status"] == "ok"
    assert summary["reason"].startswith("4 of 6 conditions (scenario x game) are rated by >= 4")


def test_no_condition_with_four_raters_is_not_assessable() -> None:
    good = {"g1": [5.0, 4.0, 3.0], "g2": [4.0, 3.0, 1.0]}
    data = table({"A": good, "B": good, "C": {"g1": [1.0, 2.0, 3.0], "g2": [1.0, 3.0, 5.0]}})
    result, summary = p913_iterated_screening(data)
    assert set(result["status"]) == {"not_assessable"}
    assert result[["r", "r1", "r2"]].isna().all().all()  # r over own ratings is not shown
    assert summary["status"] == "not_assessable" and summary["n_conditions_used"] == 0
    assert "the most raters on one condition: 3" in summary["reason"]
    assert summary["rejected_per_pass"] == []


def _single_pass_r(data: pd.DataFrame) -> pd.Series:
    """Pearson r (SciPy) of each rater's ratings with the MOS of the same conditions
    (scenario × game, every rater included): the r of the first pass; NaN if constant."""
    mos = data.groupby(["scenario", "game"])["rating"].transform("mean")
    r = {}
    for rater, rows in data.groupby("rater_id").groups.items():
        x, y = data.loc[rows, "rating"], mos[rows]
        defined = x.nunique() > 1 and y.nunique() > 1
        r[rater] = stats.pearsonr(x, y).statistic if defined else math.nan
    return pd.Series(r)


def test_first_pass_r_is_pearson_with_the_condition_mos(study: pd.DataFrame) -> None:
    result, summary = p913_iterated_screening(study)
    reference = _single_pass_r(study)
    by = result.set_index("rater_id")
    np.testing.assert_allclose(by["r"], reference[by.index], rtol=1e-10)
    first = set(summary["rejected_per_pass"][0]) if summary["rejected_per_pass"] else set()
    # pass 1 rejects a subset of the r1-only rule (r2 can only keep raters)
    assert first <= set(reference.index[reference < 0.75])
    assert set(result["status"]) <= {"reliable", "unreliable", "not_assessable"}


def _reasons_row_by_row(
    r1: np.ndarray, r2: np.ndarray, rejected_in: np.ndarray, t1: float, t2: float
) -> list[str]:
    """The reasons as the screening built them before screening_reasons: one rater at a
    time (the reference the vectorised version must equal string for string)."""

    def fmt(value: float) -> str:
        return f"{value:.3f}" if math.isfinite(value) else "undefined"

    out = []
    for i, (v1, v2) in enumerate(zip(r1.tolist(), r2.tolist(), strict=True)):
        a, b = fmt(v1), fmt(v2)
        if rejected_in[i]:
            out.append(f"pass {rejected_in[i]}: r1 = {a} < {t1:g} and r2 = {b} < {t2:g}")
        elif v1 >= t1:
            out.append(f"r1 = {a} >= {t1:g}")
        elif v2 >= t2:
            out.append(f"r1 = {a} < {t1:g} but r2 = {b} >= {t2:g}")
        else:
            out.append(
                f"r1 = {a}, r2 = {b}: a correlation is undefined (constant ratings or fewer "
                "than two conditions/scenarios), so the rule cannot decide"
            )
    return out


def test_screening_reasons_hand_case() -> None:
    r1 = np.array([0.5, 0.9, 0.5, np.nan, 0.2])
    r2 = np.array([0.7, np.nan, 0.85, np.nan, 0.3])
    rejected_in = np.array([2, 0, 0, 0, 0])
    assert screening_reasons(r1, r2, rejected_in, 0.75, 0.8) == [
        "pass 2: r1 = 0.500 < 0.75 and r2 = 0.700 < 0.8",
        "r1 = 0.900 >= 0.75",
        "r1 = 0.500 < 0.75 but r2 = 0.850 >= 0.8",
        "r1 = undefined, r2 = undefined: a correlation is undefined (constant ratings or "
        "fewer than two conditions/scenarios), so the rule cannot decide",
        "r1 = 0.200, r2 = 0.300: a correlation is undefined (constant ratings or fewer "
        "than two conditions/scenarios), so the rule cannot decide",
    ]


@pytest.mark.parametrize("seed", range(20))
def test_screening_reasons_equal_the_row_by_row_reasons(
    seed: int, correlations_with_ties: Any
) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 300))
    r1, r2 = correlations_with_ties(rng, n), correlations_with_ties(rng, n)
    rejected_in = np.where(rng.random(n) < 0.3, rng.integers(1, 5, n), 0)
    t1, t2 = float(rng.choice([0.75, 0.5, 0.6])), float(rng.choice([0.8, 0.25]))
    assert screening_reasons(r1, r2, rejected_in, t1, t2) == _reasons_row_by_row(
        r1, r2, rejected_in, t1, t2
    )


@pytest.mark.parametrize("seed", range(10))
def test_sorted_distinct_is_np_unique(seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 1000))
    keys = rng.integers(0, size, int(rng.integers(0, 3000)))
    distinct, inverse = sorted_distinct(keys, size)
    ref_distinct, ref_inverse = np.unique(keys, return_inverse=True)
    assert np.array_equal(distinct, ref_distinct) and np.array_equal(inverse, ref_inverse)
