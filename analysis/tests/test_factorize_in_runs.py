"""``tabular.factorize_in_runs`` against ``pd.factorize`` itself: by hand, and on generated
columns with runs, missing values of every kind and values that compare equal across
types."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_analysis.tabular import factorize_in_runs


def same_as_pandas(values: np.ndarray[Any, Any]) -> None:
    codes, uniques = factorize_in_runs(values)
    want_codes, want_uniques = pd.factorize(values)
    np.testing.assert_array_equal(codes, want_codes)
    assert list(uniques) == list(want_uniques)
    assert [type(u) for u in uniques] == [type(u) for u in want_uniques]


def test_by_hand() -> None:
    values = np.array(["p2", "p2", "p2", "p1", "p1", np.nan, np.nan, "p2", None], dtype=object)
    codes, uniques = factorize_in_runs(values)
    assert codes.tolist() == [0, 0, 0, 1, 1, -1, -1, 0, -1]
    assert uniques.tolist() == ["p2", "p1"]
    same_as_pandas(values)


def test_empty_single_and_no_runs() -> None:
    same_as_pandas(np.array([], dtype=object))
    same_as_pandas(np.array(["a"], dtype=object))
    same_as_pandas(np.array(["a", "b", "a", "c"] * 3000, dtype=object))  # every row changes


def test_pd_na_is_factorised_as_pandas_does() -> None:
    same_as_pandas(np.array(["x", "x", pd.NA, pd.NA, "y"], dtype=object))


CELLS = st.one_of(
    st.sampled_from(["a", "b", "c", "", "007", "7"]),
    st.sampled_from([np.nan, None]),
    st.sampled_from([7, 7.0, 1, True]),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(CELLS, st.integers(1, 6)), max_size=60))
def test_equals_pd_factorize(runs: list[tuple[Any, int]]) -> None:
    values = np.array([cell for cell, length in runs for _ in range(length)], dtype=object)
    same_as_pandas(values)


def test_integer_keys_keep_their_dtype() -> None:
    keys = np.array([5, 5, 5, 2, 2, 9, 5, 5, 2], dtype=np.int64)
    codes, uniques = factorize_in_runs(keys)
    assert codes.tolist() == [0, 0, 0, 1, 1, 2, 0, 0, 1]
    assert uniques.dtype == np.int64 and uniques.tolist() == [5, 2, 9]
    same_as_pandas(keys)
    same_as_pandas(np.arange(5000, dtype=np.int64) % 7)  # no runs: factorised as it is


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(1, 6)), max_size=60))
def test_integer_runs_equal_pd_factorize(runs: list[tuple[int, int]]) -> None:
    keys = np.array([key for key, length in runs for _ in range(length)], dtype=np.int64)
    same_as_pandas(keys)
