"""Screening that refuses to judge on no evidence (issue 31): the random-rater null of the
intra-rater rule against exact enumeration, the counting rules, straight-lining's minimum."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.stats.intra_rater import intra_rater_reliability
from qoe_analysis.stats.random_pass import p_random_pass, random_rho_bank
from qoe_analysis.stats.scenario_groups import ScenarioGroup
from qoe_analysis.stats.straight_lining import straight_lining, straight_lining_status
from qoe_analysis.tidy.validation import validate_ratings
from scipy import stats

ACR5 = (1, 2, 3, 4, 5)
DELAYS = {"B": 0.0, "D1": 80.0, "D2": 200.0, "D3": 300.0}


def _exact_rho(pattern: tuple[int, ...], points: tuple[int, ...]) -> list[float]:
    """Spearman ρ (SciPy) of every rating vector on ``points`` against levels with
    ``pattern``; NaN for constant ratings. Each vector is equally likely under the null."""
    levels = np.repeat(np.arange(len(pattern)), pattern)
    out = []
    for ratings in itertools.product(points, repeat=len(levels)):
        if len(set(ratings)) == 1:
            out.append(math.nan)
        else:
            out.append(float(stats.spearmanr(levels, ratings).statistic))
    return out


def _mc_tolerance(p: float, n: int = 20_000) -> float:
    return 4.5 * math.sqrt(p * (1 - p) / n) + 1e-9


@pytest.mark.parametrize("pattern", [(1, 1, 1, 1), (2, 1, 1), (1, 1, 1, 1, 1)])
def test_one_correlation_matches_exact_enumeration(pattern: tuple[int, ...]) -> None:
    rho = np.array(_exact_rho(pattern, ACR5))
    exact = float(np.mean(rho < -0.6))  # NaN (constant ratings) never passes
    got = p_random_pass([pattern], points=ACR5, cutoff=0.6)
    assert got == pytest.approx(exact, abs=_mc_tolerance(exact))
    bank = random_rho_bank(pattern, tuple(float(p) for p in ACR5))
    assert np.mean(np.isnan(bank)) == pytest.approx(np.mean(np.isnan(rho)), abs=0.003)


def test_two_correlations_match_the_exact_convolution() -> None:
    # the mean over the defined rho of two independent sessions of four levels each
    values, counts = np.unique(np.round(_exact_rho((1, 1, 1, 1), ACR5), 12), return_counts=True)
    prob = counts / counts.sum()  # np.unique sorts NaN last and keeps each NaN apart
    exact = 0.0
    for (a, pa), (b, pb) in itertools.product(zip(values, prob, strict=True), repeat=2):
        defined = [v for v in (a, b) if not math.isnan(v)]
        if defined and np.mean(defined) < -0.6:
            exact += pa * pb
    got = p_random_pass([(1, 1, 1, 1)] * 2, points=ACR5, cutoff=0.6)
    assert got == pytest.approx(exact, abs=_mc_tolerance(exact))


def test_continuous_scale_has_the_permutation_distribution() -> None:
    # no ties: rho = 1 - sum d^2 / 10 over the 24 equally likely orders of four ratings;
    # rho < -0.6 needs sum d^2 > 16: the reversed order (20) and three orders with 18
    got = p_random_pass([(1, 1, 1, 1)], points=None, cutoff=0.6)
    assert got == pytest.approx(4 / 24, abs=_mc_tolerance(4 / 24))


def test_seeded_cached_and_order_free() -> None:
    a = p_random_pass([(1, 1, 1, 1), (2, 1, 1)], points=ACR5, cutoff=0.6)
    b = p_random_pass([(2, 1, 1), (1, 1, 1, 1)], points=ACR5, cutoff=0.6)
    assert a == b
    assert math.isnan(p_random_pass([], points=ACR5, cutoff=0.6))
    # more sessions: less chance to pass by luck
    p = [p_random_pass([(1, 1, 1, 1)] * k, points=ACR5, cutoff=0.6) for k in (1, 2, 4, 6)]
    assert p == sorted(p, reverse=True) and p[-1] <= 0.01 < p[2]


def _sessions(ratings: dict[tuple[str, str], list[float]]) -> pd.DataFrame:
    """(rater, session) -> ratings of B, D1, D2, D3 (delay both ways)."""
    rows = [
        (rater, session, "g", "fast", scen, d, d, rating)
        for (rater, session), values in ratings.items()
        for (scen, d), rating in zip(DELAYS.items(), values, strict=True)
    ]
    cols = ["rater_id", "session_id", "game", "game_pace", "scenario"]
    return validate_ratings(
        pd.DataFrame(rows, columns=[*cols, "ds_delay_ms", "us_delay_ms", "rating"])
    )


def test_enough_sessions_make_a_careful_rater_reliable_and_sign_matters() -> None:
    careful = {("a", f"s{k}"): [5, 4, 3, 2] for k in range(6)}
    rising = {("b", f"t{k}"): [2, 3, 4, 5] for k in range(6)}
    table = _sessions({**careful, **rising})
    groups = {"delay_only": ScenarioGroup("delay_only", DELAYS)}
    intra = intra_rater_reliability(table, groups).set_index("rater_id")
    # six sessions of four levels: p_random_pass = P(mean of 6 null rho < -0.6) ~ 0.005
    assert intra.loc["a", "p_random_pass"] < 0.01
    assert intra.loc["a", "status"] == "reliable" and bool(intra.loc["a", "reliable"])
    assert intra.loc["a", "n_ratings"] == 24 and intra.loc["a", "n_correlations"] == 6
    # |rho| = 1 as well, but the ratings rise with the delay: unreliable (sign matters)
    assert intra.loc["b", "rho"] == pytest.approx(1.0)
    assert intra.loc["b", "status"] == "unreliable"
    assert intra.loc["b", "reason"] == "rho = +1.000 > 0: ratings rise with the impairment"


def test_two_levels_or_three_ratings_do_not_count() -> None:
    table = _sessions({("a", f"s{k}"): [5, 4, 3, 2] for k in range(8)})
    two_levels = {"delay_only": ScenarioGroup("delay_only", {"B": 0, "D1": 0, "D2": 1, "D3": 1})}
    three = {"delay_only": ScenarioGroup("delay_only", {"B": 0, "D1": 80, "D2": 200})}
    for groups, most in ((two_levels, "4 ratings over 2 levels"), (three, "3 ratings over 3")):
        row = intra_rater_reliability(table, groups).iloc[0]
        assert row["status"] == "not_assessable" and np.isnan(row["rho"])
        assert row["n_ratings"] == 0 and np.isnan(row["p_random_pass"])
        assert most in row["reason"]


def test_continuous_scale_is_passed_to_the_null() -> None:
    table = _sessions({("a", f"s{k}"): [5, 4, 3, 2] for k in range(2)})
    groups = {"delay_only": ScenarioGroup("delay_only", DELAYS)}
    acr = intra_rater_reliability(table, groups).iloc[0]["p_random_pass"]
    continuous = {"kind": "continuous", "min": 1, "max": 7}
    cont = intra_rater_reliability(table, groups, scale=continuous).iloc[0]["p_random_pass"]
    expected = p_random_pass([(1, 1, 1, 1)] * 2, points=None, cutoff=0.6)
    assert cont == expected and acr != cont


def test_straight_lining_needs_five_ratings_in_a_session() -> None:
    table = _sessions({("a", "s1"): [3, 3, 3, 3], ("b", "s2"): [4, 3, 2, 1]})
    flat = straight_lining(table)
    assert flat.empty  # four equal ratings are not judged
    status = straight_lining_status(table, flat).set_index("rater_id")
    assert status["status"].tolist() == ["not_assessable", "not_assessable"]
    assert status.loc["a", "reason"] == "no session with >= 5 ratings (the longest has 4)"
    longer = pd.concat(
        [table, table.iloc[:1].assign(scenario="D4", ds_delay_ms=400.0, us_delay_ms=400.0)]
    )
    longer = validate_ratings(pd.DataFrame(longer).reset_index(drop=True).astype({"rating": int}))
    flat = straight_lining(longer)
    assert flat[["rater_id", "n", "value"]].values.tolist() == [["a", 5, 3]]
    assert straight_lining_status(longer, flat).set_index("rater_id").loc["a", "status"] == (
        "unreliable"
    )
