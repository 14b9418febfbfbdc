"""The design rules on integer row keys: the fast paths agree with the plain definitions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.tabular import row_keys
from qoe_analysis.tidy.design_rules import check_functional, check_unique_slots, first_rows
from qoe_analysis.tidy.errors import RatingsValidationError


def first_rows_by_definition(key: np.ndarray) -> np.ndarray:
    """For every row, the position of the first row with the same key."""
    first: dict[int, int] = {}
    return np.array([first.setdefault(int(k), i) for i, k in enumerate(key)], dtype=np.int64)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("order", ["sorted", "few", "many", "runs"])
def test_first_rows_sorted_few_and_general_paths(seed: int, order: str) -> None:
    rng = np.random.default_rng(seed)
    key = rng.integers(0, 1 + seed * 7, size=200).astype(np.int64)  # "few": values < 64
    if order == "sorted":  # the run-based path
        key = np.sort(key)
    elif order == "many":  # the hash-table path
        key = key * 1000 + 7
    elif order == "runs":  # grouped rows, but not in key order: the hash-table path
        key = np.repeat(rng.permutation(80), 5).astype(np.int64)
    np.testing.assert_array_equal(first_rows(key), first_rows_by_definition(key))


def test_first_rows_of_no_rows() -> None:
    assert first_rows(np.zeros(0, dtype=np.int64)).size == 0


def test_row_keys_tell_combinations_apart() -> None:
    table = pd.DataFrame(
        {
            "a": pd.Categorical(["x", "x", "y", "y", "x"]),
            "b": [1.0, 2.0, 1.0, 1.0, 1.0],
            "c": pd.Categorical(["p", None, "p", None, "p"]),  # missing is a level of its own
        }
    )
    key = row_keys(table, ["a", "b", "c"])
    groups = [tuple(row) for row in table.astype(object).itertuples(index=False)]
    for i in range(len(table)):
        for j in range(len(table)):
            same = all(
                (u == v) or (pd.isna(u) and pd.isna(v))
                for u, v in zip(groups[i], groups[j], strict=True)
            )
            assert (key[i] == key[j]) == same, (i, j)


def test_row_keys_recompress_before_overflow() -> None:
    n = 64
    wide = {f"c{i}": pd.Categorical([f"v{r % (n - i)}" for r in range(n)]) for i in range(12)}
    table = pd.DataFrame(wide)  # 12 columns of ~60 levels: the radix passes 2**62
    key = row_keys(table, list(wide))
    expected = table.astype(str).agg("|".join, axis=1)
    assert pd.Series(key).nunique() == expected.nunique()
    np.testing.assert_array_equal(pd.factorize(key)[0], pd.factorize(expected.to_numpy())[0])


def test_functional_floats_compare_by_value() -> None:
    """−0.0 is 0.0 and NaN is NaN (as pd.factorize groups them); 0.5 is another value."""
    table = pd.DataFrame(
        {
            "k": pd.Categorical(["a", "b", "a", "b", "a"]),
            "v": [0.0, np.nan, -0.0, np.nan, 0.0],
        }
    )
    check_functional(table, ["k"], ["v"], first_line=2)
    table.loc[4, "v"] = 0.5
    with pytest.raises(RatingsValidationError) as info:
        check_functional(table, ["k"], ["v"], first_line=2)
    assert (info.value.column, info.value.line) == ("v", 6)
    assert "k 'a' has v=" in str(info.value) and "first row" in str(info.value)


def test_functional_names_the_first_differing_row() -> None:
    table = pd.DataFrame(
        {
            "k": pd.Categorical(["b", "a", "b", "a", "b"]),
            "g": pd.Categorical(["x", "y", "x", "z", "w"]),
        }
    )
    with pytest.raises(RatingsValidationError) as info:
        check_functional(table, ["k"], ["g"], first_line=None)
    assert info.value.line is None
    assert "k 'a' has g='z' here but 'y' on its first row" in str(info.value)


def test_repeated_slot_names_its_first_row() -> None:
    table = pd.DataFrame(
        {
            "rater_id": pd.Categorical(["r2", "r1", "r1", "r2", "r1"]),
            "session_id": pd.Categorical(["s2", "s1", "s1", "s2", "s1"]),
            "scenario": pd.Categorical(["B", "B", "D1", "B", "D1"]),
        }
    )
    with pytest.raises(RatingsValidationError) as info:
        check_unique_slots(table, first_line=2)
    assert (info.value.column, info.value.line) == ("scenario", 5)
    assert "rater 'r2', session 's2', scenario 'B' (first given at line 2)" in str(info.value)
    check_unique_slots(table.iloc[:3], first_line=2)
