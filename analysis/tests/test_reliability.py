"""Intra-/inter-rater Spearman ρ, grouped Pearson r and straight-lining vs SciPy references."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.stats.grouped_pearson import GroupedPearson, grouped_pearson
from qoe_analysis.stats.inter_rater import (
    inter_rater_agreement,
    pairwise_spearman_summary,
    spearman_summary_from_unit_vectors,
    unit_rank_vectors,
)
from qoe_analysis.stats.intra_rater import intra_rater_reliability, rho_reasons
from qoe_analysis.stats.scenario_groups import scenario_groups
from qoe_analysis.stats.sessions import session_codes
from qoe_analysis.stats.straight_lining import (
    sessions_by_rater,
    straight_lining,
    straight_lining_status,
)
from qoe_analysis.tabular import group_codes
from qoe_analysis.tidy.design import DISSERTATION_SCENARIOS
from qoe_analysis.tidy.validation import validate_ratings
from scipy import stats


def make_table(ratings: dict[tuple[str, str, str], list[int]]) -> pd.DataFrame:
    """(rater, session, game) -> ratings in the order of DISSERTATION_SCENARIOS."""
    rows = []
    for (rater, session, game), values in ratings.items():
        for scenario, rating in zip(DISSERTATION_SCENARIOS, values, strict=True):
            dsd, usd, dsl, usl = DISSERTATION_SCENARIOS[scenario]
            rows.append((rater, session, game, "fast", scenario, dsd, usd, dsl, usl, rating))
    cols = ["rater_id", "session_id", "game", "game_pace", "scenario"]
    cols += ["ds_delay_ms", "us_delay_ms", "ds_loss_pct", "us_loss_pct", "rating"]
    return validate_ratings(pd.DataFrame(rows, columns=cols))


#            B  D1 D2 D3 L1 L2 M1 M2 A1 A2
PERFECT = [5, 4, 3, 2, 4, 3, 1, 1, 3, 2]
TIES = [4, 4, 2, 1, 4, 2, 1, 1, 3, 2]
RANDOM = [2, 5, 1, 4, 3, 5, 1, 1, 3, 2]
FLAT = [3] * 10


def test_unit_rank_vectors_rank_ties_by_their_mean_rank() -> None:
    # row [1, 3, 3, 5]: ranks 1, 2.5, 2.5, 4, centred -1.5, 0, 0, 1.5, norm sqrt(4.5)
    z, usable = unit_rank_vectors(np.array([[1.0, 3.0, 3.0, 5.0], [2.0, 2.0, 2.0, 2.0]]))
    np.testing.assert_allclose(z[0], np.array([-1.5, 0.0, 0.0, 1.5]) / np.sqrt(4.5))
    assert usable.tolist() == [True, False]  # a constant row has no Spearman rho


def test_scenario_groups_from_conditions() -> None:
    groups = scenario_groups(make_table({("a", "s", "g"): PERFECT}))
    assert groups["delay_only"].levels == {"B": 0, "D1": 80, "D2": 200, "D3": 300}
    assert groups["loss_only"].levels == {"B": 0, "L1": 0.3, "L2": 1.0}


def test_intra_rater_matches_scipy_spearman() -> None:
    table = make_table(
        {
            ("a", "s1", "g"): PERFECT,
            ("b", "s2", "g"): TIES,
            ("c", "s3", "g"): RANDOM,
            ("d", "s4", "g"): FLAT,
        }
    )
    intra = intra_rater_reliability(table, scenario_groups(table), cutoff=0.6).set_index("rater_id")
    delay = [0, 80, 200, 300]
    for rater, values in (("a", PERFECT), ("b", TIES), ("c", RANDOM)):
        rho_d = stats.spearmanr(delay, values[:4]).statistic
        assert intra.loc[rater, "rho_delay_only"] == pytest.approx(rho_d)
        # loss_only (B, L1, L2) has 3 ratings per session: not counted (>= 4 needed)
        assert np.isnan(intra.loc[rater, "rho_loss_only"])
        assert intra.loc[rater, "rho"] == pytest.approx(rho_d)
        assert intra.loc[rater, "n_ratings"] == 4 and intra.loc[rater, "n_correlations"] == 1
    # hand-computed: PERFECT falls strictly with delay -> rho = -1, but one session of four
    # ratings lets a random rater pass too often (p ~ 0.23): not assessable, not reliable
    assert intra.loc["a", "rho"] == pytest.approx(-1.0)
    assert intra.loc["a", "status"] == "not_assessable" and not bool(intra.loc["a", "reliable"])
    assert intra.loc["a", "p_random_pass"] == pytest.approx(0.23, abs=0.02)
    assert "p = 0.2" in intra.loc["a", "reason"] and "> 0.01" in intra.loc["a", "reason"]
    # RANDOM: delay (2,5,1,4) rho = 0, but on four ratings failing says as little as
    # passing: not assessable either
    assert intra.loc["c", "rho"] == pytest.approx(0.0)
    assert intra.loc["c", "status"] == "not_assessable"
    assert "either way" in intra.loc["c", "reason"]
    # constant ratings: rho undefined, rater not assessable
    assert np.isnan(intra.loc["d", "rho"]) and intra.loc["d", "status"] == "not_assessable"
    assert "undefined" in intra.loc["d", "reason"]


def test_two_sessions_of_one_rater_are_averaged() -> None:
    table = make_table({("a", "s1", "g1"): PERFECT, ("a", "s2", "g2"): RANDOM})
    intra = intra_rater_reliability(table, scenario_groups(table)).set_index("rater_id")
    # two counted delay_only correlations (-1 and 0); the loss_only ones do not count
    assert intra.loc["a", "n_correlations"] == 2 and intra.loc["a", "n_ratings"] == 8
    assert intra.loc["a", "rho"] == pytest.approx((-1 + 0) / 2)
    # two sessions of four ratings: a random rater passes with p ~ 0.085 > 0.01
    assert intra.loc["a", "status"] == "not_assessable"


def test_grouped_pearson_matches_scipy() -> None:
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 5, 200)
    x, y = rng.normal(size=200), rng.normal(size=200)
    r = grouped_pearson(codes, x + 0.5 * y, y, 5)
    for g in range(5):
        m = codes == g
        assert r[g] == pytest.approx(stats.pearsonr(x[m] + 0.5 * y[m], y[m]).statistic)


def test_pairwise_summary_matches_brute_force_spearman() -> None:
    rng = np.random.default_rng(2)
    m = rng.integers(1, 6, (25, 6)).astype(float)
    m[3] = 4  # constant row: excluded
    summary = pairwise_spearman_summary(m, rng=rng)
    usable = [i for i in range(25) if i != 3]
    ref = [stats.spearmanr(m[i], m[j]).statistic for i, j in itertools.combinations(usable, 2)]
    assert summary["n_constant"] == 1 and summary["n_pairs"] == len(ref)
    assert summary["mean"] == pytest.approx(np.mean(ref))
    assert summary["mean_abs"] == pytest.approx(np.mean(np.abs(ref)))
    assert summary["quantiles"]["q50"] == pytest.approx(np.median(ref))
    assert not summary["sampled"]
    sampled = pairwise_spearman_summary(m, rng=np.random.default_rng(0), max_exact_sessions=5)
    assert sampled["sampled"] and sampled["mean"] == pytest.approx(np.mean(ref))
    assert sampled["quantiles"]["q50"] == pytest.approx(np.median(ref), abs=0.1)


def test_inter_rater_hand_case() -> None:
    # identical vectors agree perfectly (rho = 1); mirrored ratings 6 - r give rho = -1
    table = make_table(
        {
            ("a", "s1", "g"): PERFECT,
            ("b", "s2", "g"): PERFECT,
            ("c", "s3", "h"): PERFECT,
            ("d", "s4", "h"): [6 - r for r in PERFECT],
        }
    )
    inter = {
        (i["game"], i["group"]): i for i in inter_rater_agreement(table, scenario_groups(table))
    }
    assert inter[("g", "all")]["mean"] == pytest.approx(1.0)
    assert inter[("h", "all")]["mean"] == pytest.approx(-1.0)
    assert inter[("all", "all")]["n_raters"] == 4


def test_straight_lining_flags_constant_sessions() -> None:
    table = make_table({("a", "s1", "g"): PERFECT, ("d", "s4", "g"): FLAT})
    flat = straight_lining(table)
    assert flat[["rater_id", "session_id"]].values.tolist() == [["d", "s4"]]
    assert flat["value"].tolist() == [3]


def test_undefined_rho_is_not_assessable_and_flat_session_unreliable() -> None:
    table = make_table(
        {("a", "s1", "g"): PERFECT, ("c", "s3", "g"): RANDOM, ("d", "s4", "g"): FLAT}
    )
    intra = intra_rater_reliability(table, scenario_groups(table), cutoff=0.6).set_index("rater_id")
    assert intra.loc["d", "status"] == "not_assessable" and not intra.loc["d", "reliable"]
    assert "undefined" in intra.loc["d", "reason"]
    assert (intra["status"] == "reliable").to_numpy().tolist() == intra["reliable"].tolist()
    flat = straight_lining_status(table, straight_lining(table)).set_index("rater_id")
    assert flat["status"].to_dict() == {"a": "reliable", "c": "reliable", "d": "unreliable"}
    assert flat.loc["d", "reason"].endswith("s4")


def test_rho_reasons_hand_case() -> None:
    rho = np.array([0.25, -0.5, -0.8, -0.8, np.nan, np.nan])
    p = np.array([0.004, 0.004, 0.004, 0.084, 0.2, np.nan])
    counted = np.array([True, True, True, True, True, False])
    largest = np.array([[4, 4]] * 5 + [[3, 3]])
    n = np.array([4, 4, 24, 8, 4, 0])
    assert rho_reasons(
        rho, p, 0.6, counted=counted, largest=largest, n_ratings=n, group_names=["delay_only"]
    ) == [
        "rho = +0.250 > 0: ratings rise with the impairment",
        "rho = -0.500 >= -0.6: ratings do not fall clearly with the impairment",
        "rho = -0.800 < -0.6; a rater rating at random passes on this design with "
        "p = 0.0040 <= 0.01",
        "rho = -0.800 (the rule needs < -0.6), but a rater rating at random would pass on "
        "this design (8 ratings in counted groups) with p = 0.0840 > 0.01: too little "
        "evidence to judge the rater either way",
        "Spearman rho undefined: constant ratings in every counted group",
        "no session has >= 4 ratings over >= 3 levels of one scenario group (delay_only); "
        "the most: 3 ratings over 3 levels, too few for a rank correlation",
    ]
    assert rho_reasons(
        rho[:1],
        p[:1],
        0.6,
        counted=counted[:1],
        largest=largest[:1],
        n_ratings=n[:1],
        group_names=[],
    )[0].startswith("no varying scenario group")


@pytest.mark.parametrize("seed", range(10))
def test_sessions_by_rater_is_groupby_apply_list(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    flat = pd.DataFrame(
        {
            "rater_id": [f"r{k}" for k in rng.integers(0, 30, n)],
            "session_id": [f"s{k}" for k in rng.integers(0, 50, n)],
        }
    ).sort_values(["rater_id", "session_id"], kind="stable")
    expected = flat.groupby("rater_id")["session_id"].apply(list).to_dict()
    got = sessions_by_rater(flat)
    assert got == expected and list(got) == list(expected)


def test_shared_session_codes_give_the_same_tables(study: pd.DataFrame) -> None:
    # (rater, session, game) groups exactly as (rater, session): the game is constant within
    # a session, so one grouping can serve every rule
    codes, sessions = session_codes(study)
    ref_codes, ref_sessions = group_codes(study, ["rater_id", "session_id"])
    assert np.array_equal(codes, ref_codes)
    pd.testing.assert_frame_equal(sessions[["rater_id", "session_id"]], ref_sessions)
    shared = (codes, sessions)
    groups = scenario_groups(study)
    flat = straight_lining(study)
    pd.testing.assert_frame_equal(straight_lining(study, sessions=shared), flat)
    pd.testing.assert_frame_equal(
        straight_lining_status(study, flat, sessions=shared), straight_lining_status(study, flat)
    )
    pd.testing.assert_frame_equal(
        intra_rater_reliability(study, groups, sessions=shared),
        intra_rater_reliability(study, groups),
    )
    assert inter_rater_agreement(study, groups, sessions=shared) == inter_rater_agreement(
        study, groups
    )


@pytest.mark.parametrize("seed", range(6))
def test_sampled_pairs_equal_the_fancy_indexed_sample(seed: int) -> None:
    # the sampled branch as it was written before np.take / j + (j >= i)
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(3, 60)), int(rng.integers(2, 9))
    z, _ = unit_rank_vectors(rng.integers(1, 6, size=(n, m)).astype(float))
    got = spearman_summary_from_unit_vectors(
        z, n_constant=0, rng=np.random.default_rng(seed), max_exact_sessions=1, n_sampled_pairs=500
    )
    sample = np.random.default_rng(seed)
    i = sample.integers(0, n, size=500)
    j = sample.integers(0, n - 1, size=500)
    j = np.where(j >= i, j + 1, j)
    values = np.clip(np.einsum("ij,ij->i", z[i], z[j]), -1.0, 1.0)
    assert got["sampled"] and got["mean_abs"] == float(np.abs(values).mean())
    assert got["sd"] == float(values.std(ddof=1))
    assert (
        list(got["quantiles"].values())
        == np.quantile(values, (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)).tolist()
    )


def _grouped_pearson_in_one(codes: np.ndarray, x: np.ndarray, y: np.ndarray, n: int) -> np.ndarray:
    """grouped_pearson as one function (before GroupedPearson split off the x side)."""
    w = np.bincount(codes, minlength=n).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = np.bincount(codes, x, n) / w
        my = np.bincount(codes, y, n) / w
        dx = x - mx[codes]
        dy = y - my[codes]
        sxy = np.bincount(codes, dx * dy, n)
        sxx = np.bincount(codes, dx * dx, n)
        syy = np.bincount(codes, dy * dy, n)
        tol = 1e-12 * np.maximum(w, 1.0)
        r = np.where((sxx > tol) & (syy > tol), sxy / np.sqrt(sxx * syy), np.nan)
    return np.clip(r, -1.0, 1.0)


@pytest.mark.parametrize("seed", range(10))
def test_grouped_pearson_against_several_y_is_bit_identical(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_groups, n = int(rng.integers(1, 40)), int(rng.integers(1, 2000))
    codes = rng.integers(0, n_groups + 3, n)  # some groups empty
    x = rng.integers(1, 6, n).astype(float)
    prepared = GroupedPearson(codes, x, n_groups + 3)
    for _ in range(3):
        y = rng.normal(size=n) if rng.random() < 0.5 else rng.integers(1, 4, n).astype(float)
        ref = _grouped_pearson_in_one(codes, x, y, n_groups + 3)
        assert np.array_equal(prepared.against(y), ref, equal_nan=True)
        assert np.array_equal(grouped_pearson(codes, x, y, n_groups + 3), ref, equal_nan=True)
