"""Training marks and durations: a number column (an export's) takes a direct path that must
agree with the rule applied to the cells' texts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.tidy.errors import RatingsValidationError
from qoe_analysis.tidy.item_validation import duration_column, training_column


def outcome(function: object, series: pd.Series, *args: object) -> object:
    try:
        return list(function(series, *args))  # type: ignore[operator]
    except RatingsValidationError as err:
        return (err.column, err.line, str(err))


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        ([0, 1, 1, 0], "int64"),
        ([0, 1, 2, 0], "int64"),  # 2 is no mark
        ([1, -1, 0, 0], "int64"),
        ([1, 1, 1, 1], "int8"),
        ([0, 1, 1, 0], "uint8"),
        ([0, 1, 255, 0], "uint8"),
    ],
)
def test_integer_training_marks_follow_the_text_rule(values: list[int], dtype: str) -> None:
    numbers = pd.Series(values, dtype=dtype)
    # the rule on texts (an object column takes the general path)
    texts = pd.Series([str(v) for v in values], dtype=object)
    fast, general = outcome(training_column, numbers, 2), outcome(training_column, texts, 2)
    if isinstance(general, tuple):  # the message shows the cell: 2, not '2'
        assert isinstance(fast, tuple) and fast[:2] == general[:2]
        assert str(fast[2]).replace("got ", "got '").rstrip() + "'" == general[2]
    else:
        assert fast == general


def test_training_column_returns_int64() -> None:
    result = training_column(pd.Series([0, 1], dtype="int64"), 2)
    assert result.dtype == np.int64 and result.tolist() == [0, 1]


@pytest.mark.parametrize(
    "values",
    [
        [1200.0, np.nan, 0.0, 5.5],
        [1200.0, -0.0, np.nan, np.nan],
        [1.0, -5.0, np.nan, 2.0],  # negative
        [1.0, np.inf, 2.0, 3.0],  # not finite
        [np.nan, np.nan, np.nan, np.nan],
    ],
)
def test_float_durations_follow_the_text_rule(values: list[float]) -> None:
    numbers = pd.Series(values, dtype="float64")
    texts = pd.Series(["" if np.isnan(v) else repr(v) for v in values], dtype=object)
    fast, general = (
        outcome(duration_column, numbers, "response_ms", 2),
        outcome(duration_column, texts, "response_ms", 2),
    )
    if isinstance(general, tuple):
        assert isinstance(fast, tuple) and fast[:2] == general[:2]
    else:
        assert np.array_equal(np.array(fast), np.array(general), equal_nan=True)
        assert np.array_equal(np.signbit(np.array(fast)), np.signbit(np.array(general)))


def test_integer_durations() -> None:
    result = duration_column(pd.Series([0, 15, 3], dtype="int64"), "since_end_ms", 2)
    assert result.dtype == np.float64 and result.tolist() == [0.0, 15.0, 3.0]
    with pytest.raises(RatingsValidationError, match="got -3") as info:
        duration_column(pd.Series([0, 15, -3], dtype="int64"), "since_end_ms", 2)
    assert info.value.line == 4


def test_nullable_columns_take_the_general_path() -> None:
    with pytest.raises(RatingsValidationError, match="got <NA>"):
        training_column(pd.Series([0, None, 1], dtype="Int64"), 2)
    result = duration_column(pd.Series([1.5, None], dtype="Float64"), "response_ms", 2)
    assert result[0] == 1.5 and np.isnan(result[1])
