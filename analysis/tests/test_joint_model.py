"""The joint acceptability model: statsmodels reference, hand-computed corner, refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from qoe_analysis.models.joint_corner import JointFit, Profiles, corner_search, pace_corner
from qoe_analysis.models.joint_model import fit_joint, joint_model_section

Z = 1.959963984540054


def _study(seed: int, raters: int = 12, n: int = 900) -> tuple[pd.DataFrame, np.ndarray]:
    """Delay x loss design, two paces, a random rater bias; ratings per rater unequal."""
    rng = np.random.default_rng(seed)
    share = rng.dirichlet(np.ones(raters) * 2.0)
    who = rng.choice(raters, size=n, p=share)
    frame = pd.DataFrame(
        {
            "ds_delay_ms": rng.choice([0.0, 50.0, 100.0, 200.0], n),
            "ds_loss_pct": rng.choice([0.0, 1.0, 2.0], n),
            "game_pace": rng.choice(["fast", "slow"], n),
            "rater": np.array([f"r{i}" for i in range(raters)])[who],
        }
    )
    eta = (
        2.5
        - 0.012 * frame["ds_delay_ms"]
        - 0.6 * frame["ds_loss_pct"]
        + 0.5 * (frame["game_pace"] == "slow")
        - 0.003 * frame["ds_delay_ms"] * frame["ds_loss_pct"]
        + rng.normal(0, 0.8, raters)[who]
    )
    y = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(np.int64)
    return frame, y


@pytest.mark.parametrize("equal_raters", [True, False])
def test_weighted_distinct_rows_equal_the_per_rating_statsmodels_fit(equal_raters: bool) -> None:
    frame, y = _study(1)
    kpis = ["ds_delay_ms", "ds_loss_pct"]
    fit, _, section = fit_joint(
        frame, y, frame["rater"].to_numpy(), kpis, equal_raters=equal_raters
    )
    assert fit is not None and section["status"] == "ok"
    assert section["interactions"] == ["ds_delay_ms:ds_loss_pct"]
    # reference: one row per rating, weight 1 (or N/(G n_r) with equal raters), default
    # cluster-robust covariance with statsmodels' small-sample correction
    x = np.column_stack(
        [
            np.ones(len(frame)),
            frame["ds_delay_ms"],
            frame["ds_loss_pct"],
            (frame["game_pace"] == "slow").astype(float),
            frame["ds_delay_ms"] * frame["ds_loss_pct"],
        ]
    )
    groups = pd.factorize(frame["rater"])[0]
    counts = np.bincount(groups)
    w = len(frame) / counts.size / counts[groups] if equal_raters else np.ones(len(frame))
    ref = sm.GLM(y, x, family=sm.families.Binomial(), freq_weights=w).fit(
        cov_type="cluster", cov_kwds={"groups": groups}
    )
    terms = {t["term"]: t for t in section["terms"]}
    names = ["intercept", "ds_delay_ms", "ds_loss_pct", "pace[slow]", "ds_delay_ms:ds_loss_pct"]
    np.testing.assert_allclose([terms[k]["coef"] for k in names], ref.params, rtol=1e-6)
    np.testing.assert_allclose([terms[k]["se"] for k in names], ref.bse, rtol=1e-6)
    np.testing.assert_allclose([terms[k]["p"] for k in names], ref.pvalues, rtol=1e-5)
    lo = terms["ds_loss_pct"]
    assert lo["or_ci95_low"] == pytest.approx(np.exp(lo["coef"] - Z * lo["se"]))


def _hand_fit(var0: float) -> JointFit:
    """logit P = 2 - 0.02 delay, Var(intercept) = var0, nothing else uncertain."""
    cov = np.zeros((2, 2))
    cov[0, 0] = var0
    return JointFit(
        kpis=("ds_delay_ms",),
        paces=("fast",),
        interactions=(),
        names=("intercept", "ds_delay_ms"),
        coef=np.array([2.0, -0.02]),
        cov=cov,
        null_space=np.zeros((2, 0)),
        scale=np.ones(2),
    )


def test_hand_computed_corner() -> None:
    # tested maximum 200 ms: eta(t) = 2 - 4 t; lower bound logistic(2 - 4 t - 1.96 * 0.5) >= 0.5
    # iff t <= (2 - 0.98) / 4 = 0.255 -> corner 51 ms
    fit = _hand_fit(0.25)
    t, low0 = corner_search(fit, ["fast"], np.array([200.0]), 0.5)
    assert t == pytest.approx((2.0 - Z * 0.5) / 4.0, abs=1e-9)
    assert low0 == pytest.approx(1.0 / (1.0 + np.exp(-(2.0 - Z * 0.5))))
    profiles = Profiles(
        x=np.array([[0.0], [20.0], [30.0], [50.0], [100.0], [200.0]]),
        pace=np.array(["fast"] * 6, dtype=object),
        paces=("fast",),
        rater=np.arange(6),
        y=np.array([1.0, 1.0, 0.0, 1.0, 0.0, 0.0]),
        weight=np.array([5.0, 4.0, 2.0, 3.0, 1.0, 1.0]),
        cond=np.arange(6),
        cond_x=np.array([[0.0], [20.0], [30.0], [50.0], [100.0], [200.0]]),
        cond_pace=np.array(["fast"] * 6, dtype=object),
    )
    out = pace_corner(fit, profiles, "fast", 0.5, "")
    corner = 200.0 * (2.0 - Z * 0.5) / 4.0
    assert out["corner"] == {"ds_delay_ms": pytest.approx(corner)}
    # predicted: logistic(2 - 0.02 * corner) = logistic(1.96 * 0.5); its lower bound is
    # the target
    assert out["predicted"] == pytest.approx(1.0 / (1.0 + np.exp(-Z * 0.5)), abs=1e-9)
    assert out["predicted_ci95"][0] == pytest.approx(0.5, abs=1e-9)
    # near the corner: delay <= 50.99 and >= 25.5 -> the rows 30 ms (2, not acceptable)
    # and 50 ms (3, acceptable): 3 of 5
    assert (out["observed_n"], out["observed_share"]) == (5, pytest.approx(0.6))
    assert out["extrapolated"] is False  # 100 and 200 ms were tested


def test_no_bound_when_unimpaired_play_fails() -> None:
    fit = _hand_fit(4.0)  # lower bound at 0: logistic(2 - 1.96 * 2) < 0.5
    t, low0 = corner_search(fit, ["fast"], np.array([200.0]), 0.5)
    assert t is None and low0 < 0.5
    profiles = Profiles(
        x=np.array([[0.0], [200.0]]),
        pace=np.array(["fast", "fast"], dtype=object),
        paces=("fast",),
        rater=np.arange(2),
        y=np.array([1.0, 0.0]),
        weight=np.ones(2),
        cond=np.arange(2),
        cond_x=np.array([[0.0], [200.0]]),
        cond_pace=np.array(["fast", "fast"], dtype=object),
    )
    out = pace_corner(fit, profiles, "fast", 0.5, "")
    assert out["status"] == "no_bound" and "unimpaired" in out["reason"]
    assert out["corner"] is None


def test_refusals_state_their_reason() -> None:
    frame, y = _study(2)
    kpis = ["ds_delay_ms", "ds_loss_pct"]
    one = joint_model_section(frame, y, np.array(["r"] * len(frame)), kpis)
    assert one["status"] == "not_estimable" and "raters" in one["reason"]
    assert all(c["status"] == "no_bound" for c in one["by_pace"].values())
    few = frame.iloc[:60]
    thin = joint_model_section(few, y[:60], few["rater"].to_numpy(), kpis)
    assert thin["status"] == "not_estimable"
    # separation: every delay above 60 ms is unacceptable, every one below acceptable
    sep_y = (frame["ds_delay_ms"] < 60).astype(np.int64).to_numpy()
    sep = joint_model_section(frame, sep_y, frame["rater"].to_numpy(), kpis)
    assert sep["status"] == "not_estimable" and "separation" in sep["reason"]


def test_design_that_varies_factors_together() -> None:
    """ds and us delay always equal: their effects are not identified one by one, but
    P(acceptable) along the tested maxima (both raised together) is."""
    frame, y = _study(3, raters=20, n=1500)
    frame["us_delay_ms"] = frame["ds_delay_ms"]
    kpis = ["ds_delay_ms", "us_delay_ms", "ds_loss_pct"]
    section = joint_model_section(frame, y, frame["rater"].to_numpy(), kpis)
    terms = {t["term"]: t for t in section["terms"]}
    assert not terms["ds_delay_ms"]["identifiable"] and terms["ds_loss_pct"]["identifiable"]
    assert "not identified" in section["reason"]
    fast = section["by_pace"]["fast"]
    assert fast["status"] == "ok"
    corner = fast["corner"]
    assert corner is not None and corner["ds_delay_ms"] == corner["us_delay_ms"]
    assert set(section["by_pace"]) == {"fast", "slow", "all"}
    # "all" must hold for each class: no wider than the tighter class
    assert section["by_pace"]["all"]["scale"] <= min(
        section["by_pace"][p]["scale"] for p in ("fast", "slow")
    )
