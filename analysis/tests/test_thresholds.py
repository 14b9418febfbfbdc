"""Logistic threshold with Fieller CI, identifiability, and tree thresholds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import qoe_analysis.models.logistic_model as logistic_model
from qoe_analysis.models.logistic_model import (
    fieller_ratio_interval,
    fit_logistic,
    linear_threshold,
)
from qoe_analysis.models.thresholds import tree_threshold
from qoe_analysis.models.tree_nodes import TreeNode
from qoe_analysis.tidy.design import DISSERTATION_SCENARIOS, NETWORK_FACTORS
from scipy import stats
from sklearn.exceptions import ConvergenceWarning

Z = stats.norm.ppf(0.975)


def test_saturated_two_level_model_hand_computed() -> None:
    # 8/10 acceptable at x = 0, 3/10 at x = 1: the MLE reproduces the observed logits.
    fit = fit_logistic(np.array([[0.0], [1.0]]), np.array([8, 3]), np.array([10, 10]), ("x",))
    b0, b1 = np.log(4.0), np.log(3 / 7) - np.log(4.0)  # 1.386294, -2.233592
    assert fit.coef == pytest.approx([b0, b1], abs=1e-6)
    v00, v11_sum = 1 / (10 * 0.8 * 0.2), 1 / (10 * 0.3 * 0.7)  # 0.625, 0.476190
    assert fit.cov == pytest.approx(np.array([[v00, -v00], [-v00, v00 + v11_sum]]), abs=1e-6)
    result = linear_threshold(fit, np.array([1.0]))
    assert result["status"] == "ok"
    assert result["value"] == pytest.approx(-b0 / b1, abs=1e-6)  # 0.620658
    # Fieller bounds solve (b0 + θ b1)² = z² (v00 + 2θ v01 + θ² v11)
    for theta in (result["ci95_low"], result["ci95_high"]):
        lhs = (b0 + theta * b1) ** 2
        rhs = Z**2 * (v00 - 2 * theta * v00 + theta**2 * (v00 + v11_sum))
        assert lhs == pytest.approx(rhs, rel=1e-5)
    assert result["ci95_low"] < result["value"] < result["ci95_high"]


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
def test_fieller_uses_the_scipy_stats_normal_quantile_bit_for_bit(level: float) -> None:
    # the quantile comes from scipy.special.ndtri (no scipy.stats import): the interval
    # must be the one computed with scipy.stats.norm.ppf, to the last bit
    num, den, vn, vd, c = 2.0, -1.5, 0.04, 0.01, 0.003
    z2 = float(stats.norm.ppf((1.0 + level) / 2.0)) ** 2
    a, b = den**2 - z2 * vd, 2.0 * (num * den - z2 * c)
    root = np.sqrt(b * b - 4.0 * a * (num**2 - z2 * vn))
    expected = ((-b - root) / (2.0 * a), (-b + root) / (2.0 * a))
    assert fieller_ratio_interval(num, den, vn, vd, c, level) == tuple(sorted(expected))


def test_fieller_close_to_delta_method_when_slope_is_precise() -> None:
    num, den, vn, vd, c = 3.0, -2.0, 0.01, 0.0004, 0.0
    lo, hi = fieller_ratio_interval(num, den, vn, vd, c)
    theta = -num / den
    se = abs(theta) * np.sqrt(vn / num**2 + vd / den**2)
    assert (lo, hi) == pytest.approx((theta - Z * se, theta + Z * se), rel=2e-3)
    assert fieller_ratio_interval(1.0, -0.1, 0.01, 1.0, 0.0) is None  # slope not significant


def test_logistic_matches_sklearn_on_ungrouped_rows() -> None:
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(4)
    x = rng.choice([0.0, 80, 200, 300], 400)
    y = (rng.random(400) < 1 / (1 + np.exp((x - 180) / 60))).astype(int)
    levels = np.unique(x)
    fit = fit_logistic(
        levels[:, None],
        np.array([y[x == v].sum() for v in levels]),
        np.array([(x == v).sum() for v in levels]),
        ("x",),
    )
    ref = LogisticRegression(C=np.inf, tol=1e-10, max_iter=1000).fit(x[:, None] / 100, y)
    assert fit.coef == pytest.approx([ref.intercept_[0], ref.coef_[0, 0] / 100], rel=1e-4)


def test_one_column_is_the_logit_of_the_pooled_proportion() -> None:
    # a factor that never changes is not identified; the intercept is logit(7/10)
    fit = fit_logistic(np.array([[0.0], [0.0]]), np.array([4, 3]), np.array([5, 5]), ("x",))
    assert fit.converged and fit.null_space.shape[1] == 1
    assert fit.coef[0] == pytest.approx(np.log(7 / 3), abs=1e-8)
    assert fit.to_dict()["terms"]["x"]["identifiable"] is False


def test_iteration_limit_reached_is_reported_not_converged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(logistic_model, "_MAX_ITER", 1)
    with pytest.warns(ConvergenceWarning):
        fit = fit_logistic(np.array([[0.0], [1.0]]), np.array([8, 3]), np.array([10, 10]), ("x",))
    assert not fit.converged


def test_complete_separation_gives_a_point_between_the_levels_and_no_ci() -> None:
    # all acceptable up to x = 1, none at x = 2: the MLE does not exist, the fit stops
    # with a steep slope whose standard error is huge, so Fieller's CI is unbounded
    fit = fit_logistic(
        np.array([[0.0], [1.0], [2.0]]), np.array([10, 10, 0]), np.array([10, 10, 10]), ("x",)
    )
    result = linear_threshold(fit, np.array([1.0]))
    assert result["status"] == "ci_unbounded"
    assert 1.0 < result["value"] < 2.0


def dissertation_design(p: dict[str, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = np.array([DISSERTATION_SCENARIOS[s] for s in p], dtype=float)
    n = np.full(len(p), 50.0)
    return x, np.round(np.array(list(p.values())) * n), n


def test_table_4_1_confounds_direction_of_delay_and_loss() -> None:
    """A1/A2 change delay and loss of one direction together: per-direction thresholds are
    not identifiable, symmetric ones are."""
    p = {
        "B": 0.95,
        "D1": 0.8,
        "D2": 0.45,
        "D3": 0.2,
        "L1": 0.8,
        "L2": 0.3,
        "M1": 0.1,
        "M2": 0.3,
        "A1": 0.7,
        "A2": 0.2,
    }
    x, k, n = dissertation_design(p)
    fit = fit_logistic(x, k, n, NETWORK_FACTORS)
    assert fit.null_space.shape[1] == 1
    both_delay = linear_threshold(fit, np.array([1.0, 1.0, 0.0, 0.0]))
    both_loss = linear_threshold(fit, np.array([0.0, 0.0, 1.0, 1.0]))
    assert both_delay["status"] == "ok" and 80 < both_delay["value"] < 300
    assert both_loss["status"] == "ok" and 0.3 < both_loss["value"] < 1.5
    for vector in np.eye(4):
        assert linear_threshold(fit, vector)["status"] == "not_identifiable"


def test_increasing_acceptance_has_no_threshold() -> None:
    fit = fit_logistic(np.array([[0.0], [1.0]]), np.array([3, 8]), np.array([10, 10]), ("x",))
    assert linear_threshold(fit, np.array([1.0]))["status"] == "no_decreasing_effect"


def test_tree_threshold_hand_case() -> None:
    # delay <= 140 -> P(acceptable) 0.9, else 0.2: threshold 140 between tested 80 and 200.
    root = TreeNode(
        counts=np.array([10.0, 10.0]),
        feature="ds_delay_ms",
        threshold=140.0,
        left=TreeNode(counts=np.array([1.0, 9.0])),
        right=TreeNode(counts=np.array([8.0, 2.0])),
    )
    profiles = pd.DataFrame({c: [0.0] for c in NETWORK_FACTORS})
    result = tree_threshold(
        root, profiles, np.array([1.0]), ("ds_delay_ms",), np.array([0.0, 80.0, 200.0])
    )
    assert result["value"] == 140.0 and result["tested_bracket"] == [80.0, 200.0]
    up = tree_threshold(
        root, profiles, np.array([1.0]), ("us_delay_ms",), np.array([0.0, 80.0, 200.0])
    )
    assert up["value"] is None and up["status"] == "acceptable_at_all_tested_levels"


def test_a_merged_factor_is_thresholded_as_the_both_direction() -> None:
    """both_delay_ms (ds = us in every rating) gets the "both" direction only, with the
    numbers a one-direction column with the same values gets downstream."""
    from qoe_analysis.models.thresholds import kpi_thresholds
    from qoe_analysis.models.tree import fit_rep_tree

    delay = np.repeat([0.0, 100.0, 200.0, 300.0], 40)
    share = np.repeat([0.9, 0.7, 0.3, 0.1], 40)
    y = (np.tile(np.arange(40), 4) < share * 40).astype(int)
    pace = np.where(np.arange(160) % 2 == 0, "fast", "slow")
    out = {}
    for column in ("both_delay_ms", "ds_delay_ms"):
        factors = pd.DataFrame({column: delay, "game_pace": pace})
        root = fit_rep_tree(factors, y)
        out[column] = kpi_thresholds(factors, y, root, 4, impairments=[column])["by_pace"]
    for pace_name, entry in out["both_delay_ms"].items():
        assert set(entry) == {"both", "logistic_model"}, pace_name
        one_direction = out["ds_delay_ms"][pace_name]["downstream"]["max_delay_ms"]
        assert entry["both"]["max_delay_ms"] == one_direction
        assert entry["logistic_model"]["terms"].keys() == {"intercept", "both_delay_ms"}
        assert entry["both"]["max_delay_ms"]["logistic"] is not None
