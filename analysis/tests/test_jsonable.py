"""jsonable.records / rows_as_dicts against the row-by-row conversion they replace."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.jsonable import json_ready, records, rows_as_dicts


def records_row_by_row(frame: pd.DataFrame) -> list[dict[Any, Any]]:
    """Every cell through json_ready, one row at a time (the reference)."""
    return [
        {column: json_ready(value) for column, value in zip(frame.columns, row, strict=True)}
        for row in frame.itertuples(index=False, name=None)
    ]


def test_records_hand_case() -> None:
    frame = pd.DataFrame(
        {
            "rater_id": ["a", "b"],
            "n": np.array([3, 4], dtype=np.int64),
            "r": [0.5, np.nan],
            "inf": [np.inf, -1.0],
            "ok": [True, False],
            "pass": pd.Series([1, None], dtype=object),
        }
    )
    got = records(frame)
    assert got == [
        {"rater_id": "a", "n": 3, "r": 0.5, "inf": None, "ok": True, "pass": 1},
        {"rater_id": "b", "n": 4, "r": None, "inf": -1.0, "ok": False, "pass": None},
    ]
    assert [type(v) for v in got[0].values()] == [str, int, float, type(None), bool, int]
    assert list(got[0]) == list(frame.columns)


@pytest.mark.parametrize("seed", range(20))
def test_records_equal_the_row_by_row_conversion(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 200))
    floats = rng.normal(size=n)
    floats[rng.random(n) < 0.2] = np.nan
    floats[rng.random(n) < 0.05] = np.inf
    frame = pd.DataFrame(
        {
            "id": [f"r{k}" for k in range(n)],
            "x": floats,
            "k": rng.integers(-5, 5, n),
            "flag": rng.random(n) < 0.5,
            "status": np.where(rng.random(n) < 0.5, "reliable", "unreliable"),
            "cat": pd.Categorical(rng.choice(["g1", "g2"], n)),
            "key with 'quotes' and {braces}": rng.uniform(size=n),
        }
    )
    frame = frame[list(rng.permutation(frame.columns))]
    got = records(frame)
    assert got == records_row_by_row(frame)
    assert all(list(row) == list(frame.columns) for row in got)


def test_rows_as_dicts_keeps_non_str_keys_and_duplicates_like_dict_zip() -> None:
    columns = [[1, 2], [3, 4], [5, 6]]
    for keys in (["a", 7, "b"], ["a", "b", "a"], [("t", 1), "x", "y"]):
        expected = [dict(zip(keys, row, strict=True)) for row in zip(*columns, strict=True)]
        assert rows_as_dicts(keys, columns) == expected
    assert rows_as_dicts([], []) == []
    assert rows_as_dicts(["only"], [[1, 2]]) == [{"only": 1}, {"only": 2}]
