"""``number_text.fixed3``: by hand, and against ``f"{v:.3f}"`` per value on values with
many repeats, signed zeros and every kind of non-finite value."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_analysis.number_text import fixed3


def per_value(values: np.ndarray) -> list[str]:
    return [f"{v:.3f}" if math.isfinite(v) else "undefined" for v in values.tolist()]


def test_by_hand() -> None:
    values = np.array([0.0625, -0.0005, 1.0, np.nan, -np.inf, 0.12345, 0.0625])
    # 0.0625 is a tie in binary: rounded half to even, as f"{0.0625:.3f}" does
    assert fixed3(values) == [
        "0.062",
        "-0.001",
        "1.000",
        "undefined",
        "undefined",
        "0.123",
        "0.062",
    ]


def test_signed_zero_and_empty() -> None:
    assert fixed3(np.array([0.0, -0.0, 0.0])) == ["0.000", "-0.000", "0.000"]
    assert fixed3(np.array([], dtype=np.float64)) == []
    assert fixed3(np.array([1, 2, 1])) == ["1.000", "2.000", "1.000"]  # integers too


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from([0.0, -0.0, 0.5, -0.5, 1 / 3, math.nan, math.inf, -math.inf]),
            st.floats(allow_nan=True, allow_infinity=True),
        ),
        max_size=50,
    )
)
def test_equals_formatting_each_value(values: list[float]) -> None:
    array = np.array(values, dtype=np.float64)
    assert fixed3(array) == per_value(array)
