"""Which factor columns vary (the one-pass check against pandas' ``nunique``), and which
pairs of directions are one factor (both_X)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.study_factors import (
    _varies,
    analysed_factors,
    constant_factors,
    factor_info,
    factor_of,
    kpi_columns,
    merged_factor_pairs,
    merged_in,
    select_factors,
    varying_factor_columns,
)

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


def _pair_table(ds: list[float], us: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"ds_jitter_ms": ds, "us_jitter_ms": us, "ds_delay_ms": [0.0] * len(ds)})


def test_equal_varying_directions_merge() -> None:
    table = _pair_table([0.0, 10.0, 30.0], [0.0, 10.0, 30.0])
    merged = merged_factor_pairs(table)
    assert merged == {"both_jitter_ms": ["ds_jitter_ms", "us_jitter_ms"]}
    assert analysed_factors(varying_factor_columns(table), merged) == ["both_jitter_ms"]
    frame = select_factors(table, ["both_jitter_ms", "ds_delay_ms"])
    assert frame.columns.tolist() == ["both_jitter_ms", "ds_delay_ms"]
    assert frame["both_jitter_ms"].tolist() == [0.0, 10.0, 30.0]
    assert merged_in(["both_jitter_ms", "ds_delay_ms"]) == merged


def test_one_direction_at_a_time_does_not_merge() -> None:
    # table 4.1's A1/A2: one direction changes while the other stays (both vary overall)
    table = _pair_table([0.0, 80.0, 0.0, 80.0], [0.0, 0.0, 80.0, 80.0])
    assert merged_factor_pairs(table) == {}
    assert analysed_factors(["ds_jitter_ms", "us_jitter_ms"], {}) == [
        "ds_jitter_ms",
        "us_jitter_ms",
    ]


def test_a_constant_pair_does_not_merge() -> None:
    # equal but constant: no factor at all (constant_factors reports it)
    assert merged_factor_pairs(_pair_table([5.0, 5.0], [5.0, 5.0])) == {}
    # equal where both vary, a NaN on the same rows counts as equal
    nan = float("nan")
    assert merged_factor_pairs(_pair_table([nan, 1.0], [nan, 1.0])) == {
        "both_jitter_ms": ["ds_jitter_ms", "us_jitter_ms"]
    }


def test_nominal_pairs_merge_by_value() -> None:
    table = pd.DataFrame(
        {
            "ds_jitter_distribution": pd.Categorical(["normal", "pareto"]),
            "us_jitter_distribution": ["normal", "pareto"],
        }
    )
    assert list(merged_factor_pairs(table)) == ["both_jitter_distribution"]


def test_a_merged_factor_is_the_both_direction() -> None:
    direction, factor = factor_of("both_loss_pct")
    assert (direction, factor.key) == ("both", "loss_pct")
    info = factor_info(["us_delay_ms", "both_loss_pct"])
    assert list(info) == ["us_delay_ms", "both_loss_pct"]
    assert info["both_loss_pct"]["direction"] == "both" and info["both_loss_pct"]["unit"] == "%"
    assert kpi_columns(["both_loss_pct", "us_delay_ms"]) == {
        "max_delay_ms": {"upstream": ("us_delay_ms",), "both": ("us_delay_ms",)},
        "max_loss_pct": {"both": ("both_loss_pct",)},
    }
    with pytest.raises(KeyError):
        factor_of("both_nothing")
