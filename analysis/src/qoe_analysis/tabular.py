"""Integer group codes for table columns (fast grouping of large rating tables).

Categorical columns reuse their codes; other columns are factorised once. Several columns
are combined by a mixed-radix key, refactorised so that codes are 0..G−1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["column_codes", "group_codes"]


def column_codes(series: pd.Series) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(codes, distinct values) of one column; codes index into the distinct values."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return (
            np.asarray(series.cat.codes.to_numpy(), dtype=np.int64),
            np.asarray(series.cat.categories.to_numpy()),
        )
    codes, uniques = pd.factorize(series.to_numpy())
    return np.asarray(codes, dtype=np.int64), np.asarray(uniques)


def group_codes(
    frame: pd.DataFrame, columns: Sequence[str]
) -> tuple[np.ndarray[Any, np.dtype[np.int64]], pd.DataFrame]:
    """Code per row of the distinct combinations of ``columns`` and the table of them.

    Codes follow the order of first appearance; the table's columns keep the dtypes of
    ``frame`` (categoricals stay categorical).
    """
    key = np.zeros(len(frame), dtype=np.int64)
    parts: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []
    radix = 1
    for column in columns:
        codes, uniques = column_codes(frame[column])
        size = max(len(uniques), 1)
        if radix > (2**62) // size:  # re-compress before the key overflows
            key, _ = pd.factorize(key)
            key = np.asarray(key, dtype=np.int64)
            radix = int(key.max()) + 1 if key.size else 1
        key = key * size + codes
        radix *= size
        parts.append((codes, uniques))
    combined, _ = pd.factorize(key)
    combined = np.asarray(combined, dtype=np.int64)
    n_groups = int(combined.max()) + 1 if combined.size else 0
    # pd.factorize numbers groups in order of first appearance, so a row starts a new group
    # exactly when its code exceeds every code before it.
    running = np.maximum.accumulate(combined) if combined.size else combined
    is_first = np.ones(combined.size, dtype=bool)
    is_first[1:] = combined[1:] > running[:-1]
    first = np.flatnonzero(is_first)
    assert first.size == n_groups
    table = pd.DataFrame(
        {column: frame[column].iloc[first].reset_index(drop=True) for column in columns}
    )
    return combined, table
