"""Plain JSON values from numpy/pandas results (NaN and infinities become None)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["json_ready"]


def json_ready(value: Any) -> Any:
    """Recursively convert numpy scalars/arrays to Python and non-finite floats to None."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        # fast path for the long lists of rater ids: plain str needs no conversion
        if all(type(v) is str for v in value):
            return list(value)
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return [json_ready(v) for v in value.tolist()]
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        f = float(value)
        return f if math.isfinite(f) else None
    return value
