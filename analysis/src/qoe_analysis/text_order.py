"""Tables sorted by a text column (the per-rater tables, sorted by rater_id).

``DataFrame.sort_values(column, kind="stable")`` argsorts an object (or string) array;
Python's ``sorted`` compares the same ``str`` values by code point, with less work per
comparison. A stable sort by one total order is one permutation, so :func:`sort_by_text`
gives the table ``sort_values`` gives (tests/test_text_order.py).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["sort_by_text", "text_order"]


def text_order(values: Sequence[str]) -> np.ndarray[Any, np.dtype[np.int64]]:
    """The stable sorting permutation of ``values`` (positions, ties in their order)."""
    order = sorted(range(len(values)), key=values.__getitem__)
    return np.fromiter(order, dtype=np.int64, count=len(order))


def sort_by_text(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """``frame.sort_values(column, kind="stable").reset_index(drop=True)``, computed with
    Python's ``sorted`` when every cell of ``column`` is a ``str``."""
    values = frame[column].tolist()
    if not all(type(v) is str for v in values):
        return frame.sort_values(column, kind="stable").reset_index(drop=True)
    if all(map(operator.le, values, values[1:])):
        # in order already (a table made from the validated, sorted rater categories): the
        # stable sort moves no row, and one pass of comparisons is less work than sorting
        return frame.reset_index(drop=True)
    return frame.take(text_order(values)).reset_index(drop=True)
