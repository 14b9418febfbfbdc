"""The design rules of a validated ratings table, checked on integer codes.

* No rating slot twice: a (rater_id, session_id, scenario[, item, training]) combination
  occurs on one row only.
* Functional dependencies of the design: a scenario has one network condition (one value
  of each factor column), a rater's session one game, a game one pace class.

Each rule costs one pass over integer row keys (the categorical codes, combined by a
mixed radix); the rows that break a rule are located only when one does. Every such row
is recorded in ``found`` (:class:`~qoe_analysis.tidy.errors.Found`) when given, naming
its CSV line and, for a repeated slot, the row it repeats; without ``found`` the first
one raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.tabular import column_codes, first_positions, row_keys
from qoe_analysis.tidy.columns import ITEM, RATER, SCENARIO, SESSION, TRAINING
from qoe_analysis.tidy.errors import Found, fail_at, line_of

__all__ = ["check_functional", "check_unique_slots", "first_rows"]

Codes = np.ndarray[Any, np.dtype[np.int64]]


#: keys below this bound take the per-value path of :func:`first_rows`
_FEW_KEYS = 64


def first_rows(key: Codes) -> Codes:
    """Position of the first row with the same key, for every row (keys ≥ 0)."""
    if key.size == 0:
        return key
    if bool(np.all(key[1:] >= key[:-1])):
        # sorted keys (rows grouped by rater and session, the usual file): a group is one run
        starts = np.ones(key.size, dtype=bool)
        starts[1:] = key[1:] != key[:-1]
        return np.maximum.accumulate(np.where(starts, np.arange(key.size), 0))
    if int(key.max()) < _FEW_KEYS:
        # a handful of values (scenarios, games): one pass per value, no hash table
        first = np.zeros(_FEW_KEYS, dtype=np.int64)
        for value in np.flatnonzero(np.bincount(key, minlength=_FEW_KEYS)):
            first[value] = int(np.argmax(key == value))
        return first[key]
    groups = np.asarray(pd.factorize(key)[0], dtype=np.int64)
    return first_positions(groups)[groups]


def _has_repeats(key: Codes) -> bool:
    """Whether a key occurs twice. A stable sort (timsort) is near linear on the usual
    tables, whose rows come grouped by rater and session."""
    ordered = np.sort(key, kind="stable")
    return bool((ordered[1:] == ordered[:-1]).any())


def check_unique_slots(
    table: pd.DataFrame, first_line: int | None, found: Found | None = None
) -> None:
    """No (rater_id, session_id, scenario[, item, training]) slot is rated twice; each
    problem points at a repeated row and names the line of the slot's first one."""
    slot = [RATER, SESSION, SCENARIO, *(c for c in (ITEM, TRAINING) if c in table.columns)]
    key = row_keys(table, slot)
    if not _has_repeats(key):
        return
    first_pos = first_rows(key)

    def describe(pos: int) -> str:
        first = int(first_pos[pos])
        row = table.iloc[pos]
        where = f"line {line_of(first_line, first)}" if first_line is not None else f"row {first}"
        item = f", item {row[ITEM]!r}" if ITEM in table.columns else ""
        return (
            f"duplicated rating of rater {row[RATER]!r}, session {row[SESSION]!r}, "
            f"scenario {row[SCENARIO]!r}{item} (first given at {where})"
        )

    fail_at(first_pos != np.arange(key.size), SCENARIO, first_line, describe, found)


Mask = np.ndarray[Any, np.dtype[np.bool_]]


def _differs(series: pd.Series, first_pos: Codes) -> Mask:
    """Rows whose value differs from the value on the first row of their group.

    Values compare as :func:`pd.factorize` groups them: a float column by value (−0.0
    equals 0.0 and NaN equals NaN), other columns by their codes.
    """
    values = series.to_numpy()
    if values.dtype.kind == "f":
        there = values[first_pos]
        differs: Mask = (values != there) & ~(np.isnan(values) & np.isnan(there))
        return differs
    codes, _ = column_codes(series)
    other: Mask = codes != codes[first_pos]
    return other


def check_functional(
    table: pd.DataFrame,
    key: Sequence[str],
    dependents: Sequence[str],
    first_line: int | None,
    found: Found | None = None,
) -> None:
    """Every value of the ``key`` columns comes with one value of each dependent column;
    each problem points at a row that differs from its group's first row."""
    first_pos = first_rows(row_keys(table, key))
    name = "/".join(key)
    for column in dependents:
        values = table[column]

        def describe(pos: int, values: pd.Series = values, column: str = column) -> str:
            key_value = "/".join(str(table[k].iloc[pos]) for k in key)
            here, there = values.iloc[pos], values.iloc[int(first_pos[pos])]
            return (
                f"{name} {key_value!r} has {column}={here!r} here but {there!r} on its "
                f"first row; each {name} must have one {column}"
            )

        fail_at(_differs(values, first_pos), column, first_line, describe, found)
