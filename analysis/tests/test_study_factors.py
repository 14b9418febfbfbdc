"""Which factor columns vary: the one-pass check against pandas' ``nunique``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.study_factors import _varies, constant_factors, varying_factor_columns

NAN = float("nan")


@pytest.mark.parametrize(
    "values",
    [
        [],
        [3.0],
        [3.0, 3.0, 3.0],
        [3.0, 3.0, 4.0],
        [NAN, NAN],
        [NAN, 1.0],
        [1.0, NAN, 1.0],
        [0.0, -0.0],  # equal numbers: one value for pandas too
        [np.inf, np.inf],
        [np.inf, -np.inf],
        [1, 1, 1],
        [1, 2],
        [True, True],
        [True, False],
        ["a", "a"],
        ["a", "b"],
        ["a", None],
    ],
)
def test_varies_is_nunique_over_one(values: list[object]) -> None:
    series = pd.Series(values) if values else pd.Series([], dtype=float)
    assert _varies(series) is (series.nunique(dropna=False) > 1)
    categorical = series.astype("category")
    assert _varies(categorical) is (categorical.nunique(dropna=False) > 1)


def test_random_number_columns_agree_with_nunique() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        values = rng.choice([0.0, 1.5, NAN], size=int(rng.integers(0, 6)))
        series = pd.Series(values, dtype=float)
        assert _varies(series) is (series.nunique(dropna=False) > 1)


def test_constant_and_varying_factor_columns() -> None:
    table = pd.DataFrame(
        {"ds_delay_ms": [0.0, 80.0], "us_delay_ms": [40.0, 40.0], "rating": [1, 5]}
    )
    assert varying_factor_columns(table) == ["ds_delay_ms"]
    assert constant_factors(table) == {"us_delay_ms": 40.0}
    assert constant_factors(table.iloc[:0]) == {}
