"""Plain JSON values from numpy/pandas results (NaN and infinities become None)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["json_ready", "records", "rows_as_dicts"]


def json_ready(value: Any) -> Any:
    """Recursively convert numpy scalars/arrays to Python and non-finite floats to None."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        # the long lists of rater ids: a plain str needs no conversion
        if all(type(v) is str for v in value):
            return list(value)
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return [json_ready(v) for v in value.tolist()]
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        f = float(value)
        return f if math.isfinite(f) else None
    return value


def rows_as_dicts(keys: Sequence[Any], columns: Sequence[list[Any]]) -> list[dict[Any, Any]]:
    """``[dict(zip(keys, row)) for row in zip(*columns)]`` for ``columns`` of equal length:
    the same dicts, with the same key order, built a column at a time (a loop per column
    instead of a ``zip`` and a ``dict`` call per row of a 100,000-row table)."""
    rows: list[dict[Any, Any]] = [{} for _ in range(len(columns[0]) if columns else 0)]
    for key, column in zip(keys, columns, strict=True):
        for row, value in zip(rows, column, strict=True):
            row[key] = value
    return rows


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """DataFrame rows as dicts with None for non-finite floats (column-wise: each column
    becomes a list of Python values once, NaN/±inf located with one vectorised test)."""
    columns = list(frame.columns)
    arrays = []
    for c in columns:
        values = frame[c].to_numpy()
        cells = values.tolist()
        if values.dtype.kind == "f":
            for i in np.flatnonzero(~np.isfinite(values)).tolist():
                cells[i] = None
        arrays.append(cells)
    return rows_as_dicts(columns, arrays)
