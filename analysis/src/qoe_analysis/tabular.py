"""Integer group codes for table columns (fast grouping of large rating tables).

Categorical columns reuse their codes; other columns are factorised once. Several columns
are combined by a mixed-radix key, refactorised so that codes are 0..G−1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "Grouping",
    "column_codes",
    "factorize_in_runs",
    "first_positions",
    "group_codes",
    "row_keys",
]

#: what :func:`group_codes` returns: the code of each row and the table of the groups
Grouping = tuple[np.ndarray[Any, np.dtype[np.int64]], pd.DataFrame]


def column_codes(series: pd.Series) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(codes, distinct values) of one column; codes index into the distinct values."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return (
            np.asarray(series.cat.codes.to_numpy(), dtype=np.int64),
            np.asarray(series.cat.categories.to_numpy()),
        )
    codes, uniques = pd.factorize(series.to_numpy())
    return np.asarray(codes, dtype=np.int64), np.asarray(uniques)


def factorize_in_runs(
    values: np.ndarray[Any, Any],
) -> tuple[np.ndarray[Any, np.dtype[np.intp]], np.ndarray[Any, Any]]:
    """``pd.factorize(values)`` (codes in order of first appearance, −1 for a missing value)
    for an object column, or integer keys, whose equal values mostly come in runs: a
    rater's or a session's rows one after another, as a study's export writes them.

    Only the first value of each run (``values[i] != values[i − 1]``) is hashed; its code is
    repeated over the run. Python's ``==`` decides both, so the codes are pandas' own. A
    column whose sampled rows change at more than every second row is factorised as it is
    (comparing first would cost more than it saves), as is one whose values cannot be
    compared to a truth value (``pd.NA``).
    """
    n = len(values)
    sample = values[: min(n, 4096)]
    try:
        mostly_runs = n >= 2 and np.count_nonzero(sample[1:] != sample[:-1]) * 2 <= sample.size
        if mostly_runs:
            starts = np.empty(n, dtype=bool)
            starts[0] = True
            np.not_equal(values[1:], values[:-1], out=starts[1:])
    except TypeError:  # pd.NA != x is NA, which has no truth value
        mostly_runs = False
    # the distinct values keep the input's dtype (pandas' own uniques), object for objects
    kind = object if values.dtype == object else None
    if not mostly_runs:
        codes, uniques = pd.factorize(values)
        return np.asarray(codes), np.asarray(uniques, dtype=kind)
    first = np.flatnonzero(starts)
    run_codes, uniques = pd.factorize(values[first])
    lengths = np.diff(first, append=n)
    return np.repeat(np.asarray(run_codes), lengths), np.asarray(uniques, dtype=kind)


def row_keys(frame: pd.DataFrame, columns: Sequence[str]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """One int64 key per row, equal for two rows exactly when they agree on ``columns``.

    The key is the mixed-radix number of the columns' codes (categorical codes as they
    are, other columns factorised; a missing value, code −1, is a level too); when it
    would overflow int64 the partial key is factorised to 0..G−1 first.
    """
    key = np.zeros(len(frame), dtype=np.int64)
    radix = 1
    for column in columns:
        codes, uniques = column_codes(frame[column])
        size = max(len(uniques), 1) + 1  # + 1: the missing value's code −1 becomes 0
        if radix > (2**62) // size:
            key = np.asarray(pd.factorize(key)[0], dtype=np.int64)
            radix = int(key.max()) + 1 if key.size else 1
        key = key * size + (codes + 1)
        radix *= size
    return key


def first_positions(groups: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.intp]]:
    """Position of the first row of each group, for group numbers in order of first
    appearance (what :func:`pd.factorize` gives): a row starts a new group exactly when
    its number exceeds every number before it."""
    if groups.size == 0:
        return np.zeros(0, dtype=np.intp)
    running = np.maximum.accumulate(groups)
    is_first = np.ones(groups.size, dtype=bool)
    is_first[1:] = groups[1:] > running[:-1]
    return np.flatnonzero(is_first)


def group_codes(frame: pd.DataFrame, columns: Sequence[str]) -> Grouping:
    """Code per row of the distinct combinations of ``columns`` and the table of them.

    Codes follow the order of first appearance; the table's columns keep the dtypes of
    ``frame`` (categoricals stay categorical).
    """
    # the rows of a rater or a session come one after another: only each run's key hashed
    combined = np.asarray(factorize_in_runs(row_keys(frame, columns))[0], dtype=np.int64)
    first = first_positions(combined)
    table = pd.DataFrame(
        {column: frame[column].iloc[first].reset_index(drop=True) for column in columns}
    )
    return combined, table
