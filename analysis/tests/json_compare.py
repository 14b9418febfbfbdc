"""Comparing a regenerated JSON document with a stored fixture: exact structure and text,
numbers within a relative tolerance."""

from __future__ import annotations

import math
from typing import Any

#: Floating-point sums depend on their order, and the order is not fixed across runs:
#: NumPy's pairwise/SIMD sums depend on memory alignment, a BLAS on its threads. So the last
#: bits of a regenerated document differ from the stored one (seen: 181.69762189299288 vs
#: …286). A relative 1e-9 is far below any precision the documents report.
REL_TOLERANCE = 1e-9


def differences(actual: Any, expected: Any, path: str = "") -> list[str]:
    """Where two JSON documents differ: structure and text exactly, numbers within
    :data:`REL_TOLERANCE`."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        if actual.keys() != expected.keys():
            return [f"{path or '/'}: keys {sorted(actual)} != {sorted(expected)}"]
        return [d for k in expected for d in differences(actual[k], expected[k], f"{path}/{k}")]
    if isinstance(expected, list) and isinstance(actual, list):
        if len(actual) != len(expected):
            return [f"{path}: {len(actual)} items != {len(expected)}"]
        return [
            d
            for i, (a, e) in enumerate(zip(actual, expected, strict=True))
            for d in differences(a, e, f"{path}[{i}]")
        ]
    numbers = (int, float)
    if (
        isinstance(expected, numbers)
        and isinstance(actual, numbers)
        and not isinstance(expected, bool)
        and not isinstance(actual, bool)
    ):
        if math.isclose(actual, expected, rel_tol=REL_TOLERANCE, abs_tol=1e-12):
            return []
    elif actual == expected:
        return []
    return [f"{path}: {actual!r} != {expected!r}"]
