"""The MLE subject model: a hand-computed case, Netflix sureal as reference, bad input."""

from __future__ import annotations

import contextlib
import io
import math
import types
from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.stats.subject_model import fit_subject_model
from qoe_analysis.stats.subject_model_mle import fit_subject_model_arrays


def tidy(u: np.ndarray[Any, Any], observed: np.ndarray[Any, Any]) -> pd.DataFrame:
    """Rater × condition matrix (NaN-free where observed) as a tidy table, game 'g'."""
    i, j = np.nonzero(observed)
    return pd.DataFrame(
        {
            "rater_id": [f"r{k:03d}" for k in i],
            "scenario": [f"c{k:03d}" for k in j],
            "game": "g",
            "rating": u[i, j],
        }
    )


def simulate(seed: int, raters: int = 40, conditions: int = 30, missing: float = 0.2) -> Any:
    rng = np.random.default_rng(seed)
    psi = rng.uniform(1, 5, conditions)
    delta = rng.normal(0, 0.5, raters)
    upsilon = rng.uniform(0.3, 1.0, raters)
    u = psi[None, :] + delta[:, None] + upsilon[:, None] * rng.standard_normal((raters, conditions))
    observed = rng.random((raters, conditions)) >= missing
    return u, observed, psi, delta, upsilon


def test_hand_computed_complete_design() -> None:
    # u_ij = ψ_j + Δ_i + E_ij with E double-centred and every rater's Σ E² = 2, so the MLE
    # is ψ = (2, 3, 4), Δ = (−½, 0, ½), υ² = 2/3 for everyone (equal weights).
    u = np.array([[2.5, 1.5, 3.5], [2.0, 4.0, 3.0], [1.5, 3.5, 5.5]])
    fit = fit_subject_model(tidy(u, np.ones_like(u, bool)))
    assert fit.status == "ok" and fit.convergence["converged"]
    np.testing.assert_allclose(fit.conditions["quality"], [2, 3, 4], atol=1e-12)
    np.testing.assert_allclose(fit.conditions["mos"], [2, 3, 4], atol=1e-12)
    np.testing.assert_allclose(fit.raters["bias"], [-0.5, 0, 0.5], atol=1e-12)
    v = math.sqrt(2 / 3)
    np.testing.assert_allclose(fit.raters["inconsistency"], [v] * 3, atol=1e-12)
    np.testing.assert_allclose(fit.conditions["quality_se"], [v / math.sqrt(3)] * 3)
    np.testing.assert_allclose(fit.raters["bias_se"], [v / math.sqrt(3)] * 3)
    np.testing.assert_allclose(fit.raters["inconsistency_se"], [v / math.sqrt(6)] * 3)
    np.testing.assert_allclose(
        fit.conditions["ci95_high"] - fit.conditions["quality"], 1.95996 * v / math.sqrt(3)
    )
    expected_ll = 9 * (-0.5 * math.log(2 * math.pi * 2 / 3) - 0.5)
    assert fit.convergence["log_likelihood"] == pytest.approx(expected_ll, rel=1e-12)


def _sureal_fit(u: np.ndarray[Any, Any], observed: np.ndarray[Any, Any]) -> dict[str, Any]:
    from sureal.dataset_reader import RawDatasetReader  # type: ignore[import-untyped]
    from sureal.subjective_model import (  # type: ignore[import-untyped]
        MaximumLikelihoodEstimationModelContentOblivious,
    )

    raters, conditions = u.shape
    dataset = types.SimpleNamespace(
        dataset_name="sim",
        yuv_fmt="yuv420p",
        width=1920,
        height=1080,
        ref_videos=[{"content_id": 0, "content_name": "c", "path": "ref"}],
        dis_videos=[
            {
                "content_id": 0,
                "asset_id": j,
                "path": f"dis{j}",
                "os": {f"r{i:03d}": float(u[i, j]) for i in range(raters) if observed[i, j]},
            }
            for j in range(conditions)
        ],
    )
    model = MaximumLikelihoodEstimationModelContentOblivious(RawDatasetReader(dataset))
    with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
        result: dict[str, Any] = model.run_modeling()
    return result


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # sureal's own regex literals
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_matches_sureal_and_recovers_truth(seed: int) -> None:
    u, observed, psi, delta, upsilon = simulate(seed)
    fit = fit_subject_model(tidy(u, observed))
    assert fit.status == "ok" and fit.convergence["converged"]
    ref = _sureal_fit(u, observed)
    quality = fit.conditions.sort_values("scenario")["quality"].to_numpy()
    raters = fit.raters.sort_values("rater_id")
    ref_q = np.asarray(ref["quality_scores"])
    assert np.corrcoef(quality, ref_q)[0, 1] >= 0.999
    assert np.abs(quality - ref_q).max() <= 0.01
    assert np.abs(raters["bias"].to_numpy() - np.asarray(ref["observer_bias"])).max() <= 0.01
    ref_v = np.asarray(ref["observer_inconsistency"])
    assert np.abs(raters["inconsistency"].to_numpy() - ref_v).max() <= 0.01
    ref_se = np.asarray(ref["quality_scores_std"])
    assert (
        np.abs(fit.conditions.sort_values("scenario")["quality_se"].to_numpy() - ref_se).max()
        <= 0.01
    )
    # parameter recovery against the simulation's truth (40 raters)
    assert np.corrcoef(raters["bias"], delta)[0, 1] >= 0.9
    assert np.corrcoef(raters["inconsistency"], upsilon)[0, 1] >= 0.7
    assert np.corrcoef(quality, psi)[0, 1] >= 0.99


def test_missing_cells_use_only_observed_pairs() -> None:
    u, observed, *_ = simulate(5, raters=12, conditions=8, missing=0.3)
    poisoned = np.where(observed, u, 1e6)  # unobserved cells must never be read
    a = fit_subject_model(tidy(u, observed))
    b = fit_subject_model(tidy(poisoned, observed))
    pd.testing.assert_frame_equal(a.conditions, b.conditions)


def test_rater_with_one_condition_is_not_identifiable() -> None:
    u, observed, *_ = simulate(4)
    table = tidy(u, observed)
    lone = pd.DataFrame({"rater_id": ["lone"], "scenario": ["c000"], "game": "g", "rating": [4.0]})
    fit = fit_subject_model(pd.concat([table, lone], ignore_index=True))
    assert fit.status == "not_identifiable"
    (issue,) = fit.not_identifiable  # nothing else is left out
    assert issue["kind"] == "single_condition" and issue["raters"] == ["lone"]
    assert "one condition" in issue["reason"]
    row = fit.raters.set_index("rater_id").loc["lone"]
    assert row["status"] == "not_identifiable" and np.isnan(row["bias"])
    fitted = fit.raters[fit.raters["status"] == "fitted"]
    assert len(fitted) == 40 and np.isfinite(fitted[["bias", "inconsistency"]].to_numpy()).all()
    assert np.isfinite(fit.conditions["quality"]).all()


def test_all_raters_same_score_is_not_identifiable() -> None:
    u = np.full((5, 4), 3.0)
    fit = fit_subject_model(tidy(u, np.ones_like(u, bool)))
    assert fit.status == "not_identifiable"
    assert [i["kind"] for i in fit.not_identifiable] == ["no_variation"]
    assert "every rating is 3" in fit.not_identifiable[0]["reason"]
    assert (fit.raters["status"] == "not_identifiable").all()


def test_disconnected_design_is_reported() -> None:
    u, observed, *_ = simulate(6, missing=0.0)
    observed[:2, :] = False
    observed[:2, 28:] = True  # raters 0-1 rate only c028-c029 ...
    observed[2:, 28:] = False  # ... which nobody else rates
    fit = fit_subject_model(tidy(u, observed))
    assert fit.status == "not_identifiable"
    (issue,) = fit.not_identifiable
    assert issue["kind"] == "disconnected" and issue["raters"] == ["r000", "r001"]
    assert issue["conditions"] == ["c028 × g", "c029 × g"]
    # the small block is fitted on its own (mean-zero bias there) and labelled
    assert fit.convergence["n_raters_fitted"] == 40
    assert np.isfinite(fit.conditions["quality"]).all()
    blocks = fit.raters.set_index("rater_id")["block"]
    assert (blocks[["r000", "r001"]] == 1).all() and (blocks.drop(["r000", "r001"]) == 0).all()
    small = fit.raters[fit.raters["block"] == 1]["bias"]
    assert (
        abs(small.mean()) < 1e-12
        and abs(fit.raters[fit.raters["block"] == 0]["bias"].mean()) < 1e-12
    )
    # within the main block the fit equals the fit of the main block alone
    main = fit_subject_model(tidy(u[2:], observed[2:])).conditions.set_index("scenario")
    ours = fit.conditions.set_index("scenario")["quality"]
    # tidy() numbers raters from 0, so main's raters are shifted but the conditions agree
    np.testing.assert_allclose(ours[main.index], main["quality"], atol=1e-9)


def test_exactly_fitted_rater_is_flagged() -> None:
    # few conditions: one very consistent rater pulls ψ onto their own ratings (υ → 0;
    # sureal returns υ = 0 for the same data); that rater is named and the rest refitted
    u, observed, *_ = simulate(4, raters=10, conditions=6, missing=0.0)
    i, j = np.nonzero(observed)
    arrays = fit_subject_model_arrays(i, j, u[i, j], 10, 6)
    assert arrays.status == "not_identifiable"
    assert {x["kind"] for x in arrays.issues} == {"fitted_exactly"}
    flagged = {r for x in arrays.issues for r in x["raters"]}
    assert flagged and not arrays.rater_fitted[list(flagged)].any()
    assert np.isfinite(arrays.quality).all() and np.isfinite(arrays.bias[arrays.rater_fitted]).all()
    assert (arrays.inconsistency[arrays.rater_fitted] > 0.05).all()


def test_iteration_limit_is_reported() -> None:
    u, observed, *_ = simulate(2)
    i, j = np.nonzero(observed)
    fit = fit_subject_model_arrays(i, j, u[i, j], 40, 30, max_iter=2)
    assert fit.status == "not_converged" and not fit.converged and fit.iterations == 2
    assert fit.final_change is not None and fit.final_change > 1e-8
    assert np.isfinite(fit.quality).all()


def test_connected_parts_by_hand_and_as_csgraph() -> None:
    from qoe_analysis.stats.design_blocks import connected_parts
    from scipy.sparse import coo_matrix, csgraph

    # 0–3, 3–1 and 2–4: parts {0, 1, 3} (label 0), {2, 4} (label 1), {5} alone (label 2)
    n, label = connected_parts(np.array([0, 3, 2]), np.array([3, 1, 4]), 6)
    assert n == 3 and label.tolist() == [0, 0, 1, 0, 1, 2]
    # a long chain joins in one round of hooking
    chain = np.arange(999)
    assert connected_parts(chain[::-1], chain[::-1] + 1, 1000)[0] == 1
    rng = np.random.default_rng(5)
    for _ in range(200):
        n_nodes = int(rng.integers(1, 60))
        n_edges = int(rng.integers(0, 80))
        u, v = rng.integers(0, n_nodes, n_edges), rng.integers(0, n_nodes, n_edges)
        graph = coo_matrix((np.ones(n_edges), (u, v)), shape=(n_nodes, n_nodes))
        expected_n, expected = csgraph.connected_components(graph, directed=False)
        got_n, got = connected_parts(u, v, n_nodes)
        assert got_n == expected_n and np.array_equal(got, expected)


def test_quality_interval_is_clipped_to_the_scale() -> None:
    # the hand-computed design shifted down by 0.5 (every rating on 1..5): ψ = (1.5, 2.5,
    # 3.5), se = sqrt(2/3)/sqrt(3) = 0.4714, half = 1.95996 * 0.4714 = 0.9239; c000's
    # 1.5 - 0.9239 = 0.576 lies below 1: clipped to 1; c001 and c002 lie inside.
    u = np.array([[2.5, 1.5, 3.5], [2.0, 4.0, 3.0], [1.5, 3.5, 5.5]]) - 0.5
    free = fit_subject_model(tidy(u, np.ones_like(u, bool))).conditions
    fit = fit_subject_model(tidy(u, np.ones_like(u, bool)), bounds=(1.0, 5.0)).conditions
    half = 1.95996 * math.sqrt(2 / 3) / math.sqrt(3)
    assert list(fit["ci95_status"]) == ["clipped", "ok", "ok"]
    assert fit["ci95_low"][0] == 1.0
    assert fit["ci95_high"][0] == pytest.approx(1.5 + half, abs=1e-9)
    np.testing.assert_array_equal(fit["ci95_low"][1:], free["ci95_low"][1:])
    np.testing.assert_array_equal(fit["ci95_high"], free["ci95_high"])
    assert free["ci95_low"][0] == pytest.approx(1.5 - half, abs=1e-9)
    assert list(free["ci95_status"]) == ["ok", "ok", "ok"]  # no bounds: nothing clipped


def test_quality_interval_needs_two_ratings_and_a_fit() -> None:
    # c011 is rated once (n = 1: no interval although ψ is fitted); the lone rater r020
    # rated one condition (c012) only and is left out: c012 (n = 2) is not fitted.
    u, observed, *_ = simulate(0, raters=20, conditions=12, missing=0.0)
    table = tidy(u, observed)
    table = table[(table["scenario"] != "c011") | (table["rater_id"] == "r000")]
    extra = pd.DataFrame(
        {"rater_id": ["r020", "r020"], "scenario": "c012", "game": "g", "rating": [2.0, 4.0]}
    )
    fit = fit_subject_model(pd.concat([table, extra], ignore_index=True), bounds=(1.0, 5.0))
    rows = fit.conditions.set_index("scenario")
    assert rows.loc["c011", "n"] == 1 and np.isfinite(rows.loc["c011", "quality"])
    assert rows.loc["c011", "ci95_status"] == "n_too_small"
    assert np.isnan(rows.loc["c011", "ci95_low"]) and np.isnan(rows.loc["c011", "ci95_high"])
    assert rows.loc["c012", "n"] == 2 and np.isnan(rows.loc["c012", "quality"])
    assert rows.loc["c012", "ci95_status"] == "not_fitted"
    rest = rows.iloc[:11]
    assert set(rest["ci95_status"]) == {"ok", "clipped"}
    assert rest["ci95_low"].min() >= 1.0 and rest["ci95_high"].max() <= 5.0
