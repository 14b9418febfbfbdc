"""Numbers as the short texts of the per-rater reasons ("r1 = 0.666 < 0.75").

A 1 M-rating study has 100,000 raters, and each reason quotes one or two correlations;
correlations of ten ratings take far fewer distinct values than there are raters, so each
distinct value is formatted once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["fixed3"]


def fixed3(values: np.ndarray[Any, Any]) -> list[str]:
    """Each value with three decimals (``f"{v:.3f}"``, rounded half to even on the binary
    value), "undefined" where not finite. Values are told apart by their bits, so ``-0.0``
    stays ``"-0.000"``."""
    floats = np.ascontiguousarray(values, dtype=np.float64).ravel()
    bits, inverse = np.unique(floats.view(np.int64), return_inverse=True)
    texts = [
        f"{v:.3f}" if math.isfinite(v) else "undefined" for v in bits.view(np.float64).tolist()
    ]
    out: list[str] = np.array(texts, dtype=object)[inverse].tolist()
    return out
