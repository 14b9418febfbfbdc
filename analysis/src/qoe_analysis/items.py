"""From the validated long table to one ratings table per item, training rows removed.

Training ratings (``training`` = 1) are exported but enter no analysis: they are removed
here, before every computation, and counted. Each item's table has the columns of the
one-item tidy table (the item columns ``item``, ``training``, ``response_ms`` and
``since_end_ms`` are dropped, so they are never taken for rater factors) and its rating as
integers on a discrete scale, else as floats. A table without item columns is returned as
it is (one item: the example study's results stay identical).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.scales import Sidecar, is_discrete
from qoe_analysis.tidy.columns import ITEM, ITEM_COLUMNS, TRAINING
from qoe_analysis.tidy.design import RATER, RATING, SCENARIO, SESSION
from qoe_analysis.tidy.item_validation import implied_item

__all__ = ["SLOT", "ItemTables", "item_of_rows", "split_items"]

#: One rating slot: a rater's rating of a scenario in a session (the retest round is
#: exported under its own session id).
SLOT = (RATER, SESSION, SCENARIO)


@dataclass(frozen=True)
class ItemTables:
    """The analysed ratings per item (declaration order) and what was left out."""

    sidecar: Sidecar
    tables: dict[str, pd.DataFrame]
    #: the long table without training rows, with ``item`` always present
    long: pd.DataFrame
    training_excluded: int

    @property
    def rated_keys(self) -> list[str]:
        """Declared items that have at least one (non-training) rating."""
        return [k for k in self.sidecar.keys if k in self.tables]


def item_of_rows(table: pd.DataFrame, sidecar: Sidecar) -> np.ndarray[Any, Any]:
    """The item key of every row (the implied item without an ``item`` column)."""
    if ITEM in table.columns:
        return table[ITEM].astype(str).to_numpy(dtype=object)
    keys = np.empty(len(table), dtype=object)
    # one shared str in every cell: np.full would first make a '<U' array and then a new
    # str object per row
    keys[:] = implied_item(sidecar, None)
    return keys


def _compact(frame: pd.DataFrame) -> pd.DataFrame:
    """Reset the index and drop categories no remaining row uses."""
    frame = frame.reset_index(drop=True)
    for column in frame.columns:
        if isinstance(frame[column].dtype, pd.CategoricalDtype):
            frame[column] = frame[column].cat.remove_unused_categories()
    return frame


def split_items(table: pd.DataFrame, sidecar: Sidecar) -> ItemTables:
    """Per item the ratings table to analyse; training rows removed and counted."""
    keys = item_of_rows(table, sidecar)
    training = (
        table[TRAINING].to_numpy(dtype=np.int64) == 1
        if TRAINING in table.columns
        else np.zeros(len(table), dtype=bool)
    )
    n_training = int(training.sum())
    long = table.assign(**{ITEM: keys}) if ITEM not in table.columns else table
    long = _compact(long[~training]) if n_training else long
    present = [c for c in ITEM_COLUMNS if c in table.columns]
    if not present:
        return ItemTables(sidecar, {str(keys[0]): table}, long, 0)
    kept = [c for c in table.columns if c not in ITEM_COLUMNS]
    remaining = keys[~training]
    tables: dict[str, pd.DataFrame] = {}
    for key in sidecar.keys:
        mask = remaining == key
        if not mask.any():
            continue
        frame = _compact(long.iloc[np.flatnonzero(mask)][kept])
        dtype = np.int64 if is_discrete(sidecar.item(key)["scale"]) else np.float64
        frame[RATING] = frame[RATING].to_numpy(dtype=np.float64).astype(dtype)
        tables[key] = frame
    return ItemTables(sidecar, tables, long, n_training)
