"""The SOS hypothesis of Hoßfeld, Schatz & Egger ("SOS: The MOS is not enough!", QoMEX 2011).

For ratings on a 5-point scale, SOS² = a · (−MOS² + 6·MOS − 5) = a · (MOS − 1)(5 − MOS).
The parameter *a* ∈ [0, 1] is fitted by least squares over conditions on the SOS² scale
(regression through the origin): a = Σ xᵢ yᵢ / Σ xᵢ², with xᵢ = −MOSᵢ² + 6 MOSᵢ − 5 and
yᵢ = SOSᵢ². Goodness of fit: R² = 1 − SS_res / SS_tot on SOS² (SS_tot about the mean of
yᵢ, so R² can be negative for a poor fit) and the RMSE on the SOS scale,
√(mean (SOSᵢ − √(a xᵢ))²).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

__all__ = ["SOSFit", "fit_sos_parameter", "sos_from_mos"]


@dataclass(frozen=True)
class SOSFit:
    """Result of the SOS-hypothesis fit."""

    a: float
    r2: float
    rmse_sos: float
    n_conditions: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sos_from_mos(mos: np.ndarray[Any, Any] | float, a: float) -> np.ndarray[Any, Any]:
    """SOS predicted by the hypothesis: √(a · (−MOS² + 6·MOS − 5)) (5-point scale)."""
    m = np.asarray(mos, dtype=np.float64)
    return np.sqrt(np.clip(a * (-(m**2) + 6.0 * m - 5.0), 0.0, None))


def fit_sos_parameter(mos: np.ndarray[Any, Any], sos: np.ndarray[Any, Any]) -> SOSFit:
    """Least-squares *a* of SOS² = a·(−MOS² + 6·MOS − 5) (Hoßfeld et al. 2011).

    Conditions with an undefined SOS (n < 2) are ignored. With no usable condition, or when
    every MOS lies on a scale end (x = 0), *a* is NaN.
    """
    m = np.asarray(mos, dtype=np.float64)
    s = np.asarray(sos, dtype=np.float64)
    ok = np.isfinite(m) & np.isfinite(s)
    m, s = m[ok], s[ok]
    x = -(m**2) + 6.0 * m - 5.0
    y = s**2
    if m.size == 0 or not np.any(x > 0):
        return SOSFit(float("nan"), float("nan"), float("nan"), int(m.size))
    coef, *_ = np.linalg.lstsq(x[:, None], y, rcond=None)
    a = float(coef[0])
    residual = y - a * x
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    r2 = 1.0 - float(np.sum(residual**2)) / ss_tot if ss_tot > 0 else float("nan")
    rmse = float(np.sqrt(np.mean((s - sos_from_mos(m, a)) ** 2)))
    return SOSFit(a=a, r2=r2, rmse_sos=rmse, n_conditions=int(m.size))
