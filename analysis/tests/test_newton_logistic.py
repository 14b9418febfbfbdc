"""newton_logistic: the unpenalised logistic fit, bit for bit scikit-learn's newton-cholesky.

The reference is scikit-learn's ``LogisticRegression(C=inf, solver="newton-cholesky",
max_iter=200, tol=1e-10, fit_intercept=False)`` on the stacked 0/1 rows fit_logistic
builds; coefficients and iteration counts must be equal (np.array_equal), not close.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import numpy as np
import pytest
import qoe_analysis.models.newton_logistic as newton_module
from qoe_analysis.models.logistic_model import (
    LogisticFit,
    fit_logistic,
    row_space_design,
    stacked_binary_rows,
)
from qoe_analysis.models.newton_logistic import (
    NewtonLogisticFit,
    NewtonNotConvergedWarning,
    newton_logistic,
)
from qoe_analysis.tidy.design import DISSERTATION_SCENARIOS, NETWORK_FACTORS

MAX_ITER, TOL = 200, 1e-10


def sklearn_fit(z: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[Any, list[str]]:
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(
        C=np.inf, solver="newton-cholesky", max_iter=MAX_ITER, tol=TOL, fit_intercept=False
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf.fit(z, y, sample_weight=w)
    return clf, [str(c.message) for c in caught]


def test_two_conditions_give_the_observed_logits() -> None:
    # 8/10 acceptable at x = 0 and 3/10 at x = 1: the saturated model's MLE is
    # β₀ = logit(0.8) = log 4, β₁ = logit(0.3) − log 4.
    z, y, w = stacked_binary_rows(
        np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([8.0, 3.0]), np.array([10.0, 10.0])
    )
    fit = newton_logistic(z, y, w)
    assert fit.converged and not fit.needs_fallback
    assert 1 <= fit.n_iter < MAX_ITER
    # converged to a mean gradient of at most tol = 1e-10
    assert fit.coef == pytest.approx([np.log(4.0), np.log(3 / 7) - np.log(4.0)], abs=1e-8)


def test_one_column_is_the_logit_of_the_pooled_proportion() -> None:
    fit = newton_logistic(np.array([[1.0], [1.0]]), np.array([1.0, 0.0]), [7.0, 3.0])
    assert fit.converged and fit.coef == pytest.approx([np.log(7 / 3)], abs=1e-8)


def test_identical_columns_need_the_fallback() -> None:
    # H is singular: scikit-learn leaves Newton for L-BFGS, newton_logistic says so
    z = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]] * 2)
    y = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    w = np.array([5.0, 3.0, 1.0, 1.0, 3.0, 5.0])
    assert newton_logistic(z, y, w).needs_fallback
    _, messages = sklearn_fit(z, y, w)
    assert any("lbfgs" in m for m in messages), messages


def test_max_iter_exhausted_warns_and_is_not_converged() -> None:
    z, y, w = stacked_binary_rows(
        np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([8.0, 3.0]), np.array([10.0, 10.0])
    )
    with pytest.warns(NewtonNotConvergedWarning):
        fit = newton_logistic(z, y, w, max_iter=1)
    assert fit.n_iter == 1 and not fit.converged and not fit.needs_fallback


@pytest.mark.parametrize(
    ("x", "y", "w", "message"),
    [
        (np.ones(4), [0, 1, 0, 1], [1, 1, 1, 1], "2-D"),
        (np.ones((4, 1)), [0, 1, 0], [1, 1, 1, 1], "one entry per row"),
        (np.ones((4, 1)), [0, 1, 2, 1], [1, 1, 1, 1], "0 and 1"),
        (np.ones((4, 1)), [1, 1, 1, 1], [1, 1, 1, 1], "0 and 1"),
        (np.ones((4, 1)), [0, 1, 0, 1], [1, 0, 1, 1], "> 0"),
        (np.full((4, 1), np.nan), [0, 1, 0, 1], [1, 1, 1, 1], "finite"),
    ],
)
def test_input_outside_the_case_is_rejected(x: Any, y: Any, w: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        newton_logistic(x, y, w)


def random_grouped_design(
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Grouped data (x, successes, trials) shaped like fit_logistic's input.

    0–5 factors on a few levels (so 1–6 columns after the row-space basis), 3–60 rows,
    0–50 trials; some designs confound or duplicate factors (rank-tight), and the
    acceptance ranges from weak effects to (quasi-)complete separation.
    """
    rows = int(rng.integers(3, 61))
    factors = int(rng.integers(0, 6))
    levels = [np.array([0.0, 20, 80, 200, 300]), np.array([0.0, 0.5, 1, 2, 5])]
    x = np.zeros((rows, factors))
    for j in range(factors):
        x[:, j] = rng.choice(levels[j % 2][: int(rng.integers(2, 6))], rows)
    if factors >= 2 and rng.random() < 0.3:  # one factor only moves with another
        x[:, 1] = x[:, 0] * float(rng.choice([1.0, 0.01, 2.5]))
    if factors >= 3 and rng.random() < 0.2:  # a factor that never changes
        x[:, 2] = 0.0
    eta = rng.normal(0.0, 1.0) + (x / np.maximum(np.abs(x).max(axis=0), 1.0)) @ rng.normal(
        0.0, float(rng.choice([0.5, 2.0, 8.0, 40.0])), factors
    )
    trials = rng.integers(0, 51, rows).astype(float)
    mode = rng.random()
    if mode < 0.15:  # complete separation on the sign of the linear predictor
        successes = np.where(eta > 0, trials, 0.0)
    elif mode < 0.3:  # all-or-nothing rows with one mixed row
        successes = np.where(eta > 0, trials, 0.0)
        i = int(rng.integers(rows))
        successes[i] = np.floor(trials[i] / 2)
    else:
        successes = rng.binomial(trials.astype(int), 1.0 / (1.0 + np.exp(-eta))).astype(float)
    return x, successes, trials


def test_equals_sklearn_bit_for_bit_on_random_grouped_designs() -> None:
    rng = np.random.default_rng(20261125)
    compared = fallbacks = skipped = 0
    columns_seen: set[int] = set()
    for _ in range(400):
        x, k, n = random_grouped_design(rng)
        _, _, _, z = row_space_design(x)
        z_fit, y_fit, w_fit = stacked_binary_rows(z, k, n)
        keep = w_fit > 0
        if np.unique(y_fit[keep]).size < 2 or z.shape[1] == 0:
            skipped += 1  # fit_logistic returns NaN without fitting
            continue
        zk, yk, wk = z_fit[keep], y_fit[keep], w_fit[keep]
        with warnings.catch_warnings(record=True) as ours:
            warnings.simplefilter("always")
            fit = newton_logistic(zk, yk, wk, max_iter=MAX_ITER, tol=TOL)
        clf, messages = sklearn_fit(zk, yk, wk)
        sklearn_left_newton = any("lbfgs" in m for m in messages)
        assert fit.needs_fallback == sklearn_left_newton, (x, k, n, messages)
        if fit.needs_fallback:
            fallbacks += 1
            continue
        compared += 1
        columns_seen.add(z.shape[1])
        assert np.array_equal(fit.coef, clf.coef_[0]), (x, k, n, fit.coef - clf.coef_[0])
        assert fit.n_iter == int(clf.n_iter_[0]), (x, k, n)
        sklearn_gave_up = any("did not converge" in m for m in messages)
        assert any(issubclass(w.category, NewtonNotConvergedWarning) for w in ours) == (
            sklearn_gave_up
        )
    print(f"compared {compared}, fallback {fallbacks}, skipped {skipped}")
    assert columns_seen == {1, 2, 3, 4, 5, 6}
    assert compared >= 300 and fallbacks <= 20


def table_4_1_design() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The dissertation's table 4.1 scenarios at 50 ratings each (A1/A2 confound the
    direction of delay and loss: a rank-deficient design)."""
    p = {"B": 0.95, "D1": 0.8, "D2": 0.45, "D3": 0.2, "L1": 0.8}
    p |= {"L2": 0.3, "M1": 0.1, "M2": 0.3, "A1": 0.7, "A2": 0.2}
    x = np.array([DISSERTATION_SCENARIOS[s] for s in p], dtype=float)
    n = np.full(len(p), 50.0)
    return x, np.round(np.array(list(p.values())) * n), n


def assert_same_fit(a: LogisticFit, b: LogisticFit) -> None:
    for field in dataclasses.fields(LogisticFit):
        va, vb = getattr(a, field.name), getattr(b, field.name)
        if isinstance(va, np.ndarray):
            assert np.array_equal(va, vb, equal_nan=True), field.name
        else:
            assert va == vb, field.name


def test_fit_logistic_on_table_4_1_equals_the_sklearn_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x, k, n = table_4_1_design()
    fit = fit_logistic(x, k, n, NETWORK_FACTORS)
    assert fit.converged and fit.null_space.shape[1] == 1

    real = newton_module.newton_logistic

    def force_fallback(*args: Any, **kwargs: Any) -> NewtonLogisticFit:
        return dataclasses.replace(real(*args, **kwargs), needs_fallback=True)

    # the fallback path runs scikit-learn itself: the reference result
    monkeypatch.setattr(newton_module, "newton_logistic", force_fallback)
    assert_same_fit(fit, fit_logistic(x, k, n, NETWORK_FACTORS))
