"""SOS hypothesis fit (Hoßfeld et al. 2011)."""

from __future__ import annotations

import numpy as np
import pytest
from qoe_analysis.sos_hypothesis import fit_sos_parameter, sos_from_mos
from scipy.optimize import curve_fit


def test_exact_data_recovers_a() -> None:
    mos = np.array([1.5, 2.0, 3.0, 4.0, 4.5])
    sos = sos_from_mos(mos, 0.25)
    fit = fit_sos_parameter(mos, sos)
    assert fit.a == pytest.approx(0.25)
    assert fit.r2 == pytest.approx(1.0)
    assert fit.rmse_sos == pytest.approx(0.0, abs=1e-12)


def test_hand_computed_two_conditions() -> None:
    # MOS 3 -> x = 4, SOS² = 1;  MOS 2 -> x = 3, SOS² = 0.81
    # a = (4·1 + 3·0.81) / (16 + 9) = 6.43 / 25 = 0.2572
    fit = fit_sos_parameter(np.array([3.0, 2.0]), np.array([1.0, 0.9]))
    assert fit.a == pytest.approx(0.2572)
    residuals = np.array([1.0 - 0.2572 * 4, 0.81 - 0.2572 * 3])
    assert fit.r2 == pytest.approx(
        1 - np.sum(residuals**2) / np.sum((np.array([1, 0.81]) - 0.905) ** 2)
    )


def test_agrees_with_scipy_curve_fit() -> None:
    rng = np.random.default_rng(3)
    mos = rng.uniform(1.2, 4.8, 40)
    sos = np.sqrt(0.3 * (-(mos**2) + 6 * mos - 5)) + rng.normal(0, 0.05, 40)
    fit = fit_sos_parameter(mos, sos)
    (a_ref,), _ = curve_fit(lambda m, a: a * (-(m**2) + 6 * m - 5), mos, sos**2, p0=[0.5])
    assert fit.a == pytest.approx(a_ref, rel=1e-8)


def test_undefined_sos_ignored_and_degenerate_case() -> None:
    fit = fit_sos_parameter(np.array([3.0, 2.0, 4.0]), np.array([1.0, np.nan, 0.9]))
    assert fit.n_conditions == 2
    assert np.isnan(fit_sos_parameter(np.array([5.0, 1.0]), np.array([0.0, 0.0])).a)
