"""The SOS hypothesis of Hoßfeld, Schatz & Egger ("SOS: The MOS is not enough!", QoMEX 2011).

For ratings on a scale from L to H, SOS² = a · (−MOS² + (L+H)·MOS − L·H) =
a · (MOS − L)(H − MOS) (on ACR 1..5: a · (−MOS² + 6·MOS − 5)); the maximum variance of
ratings with a given mean on [L, H] is (MOS − L)(H − MOS), so *a* ∈ [0, 1] (for n − 1
normalised SOS up to n/(n − 1)). *a* is fitted by least squares over conditions on the SOS²
scale (regression through the origin): a = Σ xᵢ yᵢ / Σ xᵢ², with
xᵢ = −MOSᵢ² + (L+H)·MOSᵢ − L·H and yᵢ = SOSᵢ². Goodness of fit: R² = 1 − SS_res / SS_tot
on SOS² (SS_tot about the mean of yᵢ, so R² can be negative for a poor fit) and the RMSE
on the SOS scale, √(mean (SOSᵢ − √(a xᵢ))²).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

__all__ = ["SOSFit", "fit_sos_parameter", "sos_formula", "sos_from_mos"]


@dataclass(frozen=True)
class SOSFit:
    """Result of the SOS-hypothesis fit."""

    a: float
    r2: float
    rmse_sos: float
    n_conditions: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _x(m: np.ndarray[Any, Any], low: float, high: float) -> np.ndarray[Any, Any]:
    """−MOS² + (L+H)·MOS − L·H."""
    return -(m**2) + (float(low) + float(high)) * m - float(low) * float(high)


def sos_formula(low: float = 1.0, high: float = 5.0) -> str:
    """The hypothesis as text with the bounds filled in (ACR: ``-MOS^2 + 6*MOS - 5``)."""
    product = float(low) * float(high)
    constant = "" if product == 0 else f" {'-' if product > 0 else '+'} {abs(product):g}"
    return f"SOS^2 = a * (-MOS^2 + {float(low) + float(high):g}*MOS{constant})"


def sos_from_mos(
    mos: np.ndarray[Any, Any] | float, a: float, low: float = 1.0, high: float = 5.0
) -> np.ndarray[Any, Any]:
    """SOS predicted by the hypothesis: √(a · (−MOS² + (L+H)·MOS − L·H))."""
    m = np.asarray(mos, dtype=np.float64)
    return np.sqrt(np.clip(a * _x(m, low, high), 0.0, None))


def fit_sos_parameter(
    mos: np.ndarray[Any, Any], sos: np.ndarray[Any, Any], low: float = 1.0, high: float = 5.0
) -> SOSFit:
    """Least-squares *a* of SOS² = a·(−MOS² + (L+H)·MOS − L·H) on a scale from ``low`` = L to
    ``high`` = H (Hoßfeld et al. 2011; default ACR 1..5).

    Conditions with an undefined SOS (n < 2) are ignored. With no usable condition, or when
    every MOS lies on a scale end (x = 0), *a* is NaN.
    """
    m = np.asarray(mos, dtype=np.float64)
    s = np.asarray(sos, dtype=np.float64)
    ok = np.isfinite(m) & np.isfinite(s)
    m, s = m[ok], s[ok]
    x = _x(m, low, high)
    y = s**2
    if m.size == 0 or not np.any(x > 0):
        return SOSFit(float("nan"), float("nan"), float("nan"), int(m.size))
    coef, *_ = np.linalg.lstsq(x[:, None], y, rcond=None)
    a = float(coef[0])
    residual = y - a * x
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    r2 = 1.0 - float(np.sum(residual**2)) / ss_tot if ss_tot > 0 else float("nan")
    rmse = float(np.sqrt(np.mean((s - sos_from_mos(m, a, low, high)) ** 2)))
    return SOSFit(a=a, r2=r2, rmse_sos=rmse, n_conditions=int(m.size))
