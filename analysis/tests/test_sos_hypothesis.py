"""SOS hypothesis fit (Hoßfeld et al. 2011)."""

from __future__ import annotations

import numpy as np
import pytest
from qoe_analysis.stats.sos_hypothesis import fit_sos_parameter, sos_formula, sos_from_mos
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


def test_a_on_a_seven_point_scale_uses_bounds_1_and_7() -> None:
    # x = -MOS^2 + 8 MOS - 7: MOS 2 -> 5, MOS 4 -> 9, MOS 6 -> 5. With SOS^2 = 2.5, 4.5, 2.5
    # a = sum(x y) / sum(x^2) = (12.5 + 40.5 + 12.5) / (25 + 81 + 25) = 65.5 / 131 = 0.5,
    # and every point lies on the curve (residuals 0, R^2 = 1).
    mos = np.array([2.0, 4.0, 6.0])
    sos = np.sqrt([2.5, 4.5, 2.5])
    fit = fit_sos_parameter(mos, sos, 1, 7)
    assert fit.a == pytest.approx(0.5, abs=1e-12)
    assert fit.r2 == pytest.approx(1.0) and fit.rmse_sos == pytest.approx(0.0, abs=1e-12)
    assert sos_formula(1, 7) == "SOS^2 = a * (-MOS^2 + 8*MOS - 7)"
    # the ACR bounds would give x = 3, 3, -5: another a (the bounds matter)
    assert fit_sos_parameter(mos, sos, 1, 5).a != pytest.approx(0.5)
    assert sos_from_mos(4.0, 0.5, 1, 7) == pytest.approx(np.sqrt(4.5))


def test_formula_text_on_other_bounds() -> None:
    assert sos_formula() == "SOS^2 = a * (-MOS^2 + 6*MOS - 5)"
    assert sos_formula(0, 6) == "SOS^2 = a * (-MOS^2 + 6*MOS)"
    assert sos_formula(-3, 3) == "SOS^2 = a * (-MOS^2 + 0*MOS + 9)"
