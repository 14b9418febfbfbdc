"""Validation of the rating-item columns of the long tidy table (``item``, ``training``,
``response_ms``, ``since_end_ms``) and of each rating against its item's scale.

The items come from the sidecar (:class:`qoe_analysis.scales.Sidecar`). A table without an
``item`` column holds one item: "overall" (ACR-5) by default, or the sidecar's only item.
Errors name the column, the CSV line and the item. Each check records every faulty row
in ``found`` (:class:`~qoe_analysis.tidy.errors.Found`) when given, else raises at the
first; a cell another check already reported (a missing item, a rating that is no
number) is not reported again.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.scales import OVERALL, Sidecar, is_discrete
from qoe_analysis.tidy.columns import ITEM, RATING, TRAINING
from qoe_analysis.tidy.errors import Found, RatingsValidationError, fail_at

__all__ = [
    "check_item_keys",
    "check_ratings_on_scales",
    "duration_column",
    "implied_item",
    "training_column",
]

Array = np.ndarray[Any, Any]


def implied_item(sidecar: Sidecar, first_line: int | None) -> str:
    """The item of a table without an ``item`` column: the sidecar's only item, else
    "overall" when declared."""
    if len(sidecar.items) == 1:
        return sidecar.keys[0]
    if OVERALL in sidecar.keys:
        return OVERALL
    raise RatingsValidationError(
        f"the table has no item column but the sidecar declares {len(sidecar.items)} items "
        f"({', '.join(sidecar.keys)}); add the column or declare one item",
        column=ITEM,
        line=None if first_line is None else first_line - 1,
    )


def check_item_keys(
    values: pd.Categorical, sidecar: Sidecar, first_line: int | None, found: Found | None = None
) -> Array:
    """Every ``item`` value is a declared item key; returns the key of each row (``None``
    for a missing one, which the text check reported)."""
    # one more name and one more flag for code −1 (a missing value): not "unknown"
    names = np.append(np.asarray(values.categories, dtype=object), [None])
    declared = np.append(np.isin(names[:-1], sidecar.keys), True)
    codes = np.asarray(values.codes)
    how = (
        "declare it in the items sidecar (--items)"
        if sidecar.keys == (OVERALL,)
        else f"the sidecar declares {', '.join(sidecar.keys)}"
    )
    fail_at(
        ~declared[codes],
        ITEM,
        first_line,
        lambda pos: f"unknown item {values[pos]!r}; {how}",
        found,
    )
    return names[codes]


def check_ratings_on_scales(
    rating: Array,
    keys: Array,
    sidecar: Sidecar,
    where: tuple[bool, int | None],
    found: Found | None = None,
) -> bool:
    """Every rating lies on its item's scale (min ≤ v ≤ max, integer unless continuous).

    Returns whether every rated item is discrete (the rating column can be integer).
    ``where``: (whether the table names the items, the message then names one; the line
    of the first data row). Without an item column ``keys`` holds one implied item for
    every row. A NaN rating (missing, or no number) was reported by the rating's own
    check, and a row of an undeclared item by the item check: neither is reported here.
    """
    explicit, first_line = where
    bad = np.zeros(rating.shape, dtype=bool)
    all_discrete = True
    for key in sidecar.keys:
        scale = sidecar.item(key)["scale"]
        if explicit:
            mask = keys == key
            if not mask.any():
                continue
            r = rating[mask]
        elif rating.size and keys[0] == key:  # the one implied item: every row
            mask, r = np.ones(rating.shape, dtype=bool), rating
        else:
            continue
        off = np.isinf(r) | (r < scale["min"]) | (r > scale["max"])
        if is_discrete(scale):
            off |= (r != np.round(r)) & ~np.isnan(r)
        else:
            all_discrete = False
        bad[mask] = off

    def describe(pos: int) -> str:
        key = str(keys[pos])
        scale = sidecar.item(key)["scale"]
        of_item = f" of item {key!r}" if explicit else ""
        if scale["kind"] == "acr5":
            hint = "" if explicit else " (declare another scale in the items sidecar)"
            return f"rating {rating[pos]:g}{of_item} is not an integer on the ACR scale 1-5{hint}"
        kind = "an integer" if is_discrete(scale) else "a number"
        return (
            f"rating {rating[pos]:g}{of_item} is not {kind} from {scale['min']:g} to "
            f"{scale['max']:g} ({scale['kind']} scale)"
        )

    fail_at(bad, RATING, first_line, describe, found)
    return all_discrete


def _numpy_kind(series: pd.Series) -> str:
    """The numpy kind of a column backed by a numpy array ("" for pandas' own dtypes, whose
    missing values are no NaN)."""
    return series.dtype.kind if isinstance(series.dtype, np.dtype) else ""


_TRAINING_MARKS = {"0": 0, "1": 1, "0.0": 0, "1.0": 1, "false": 0, "true": 1}


def training_column(series: pd.Series, first_line: int | None, found: Found | None = None) -> Array:
    """The training mark: 0/1 (also true/false), none missing; returns int64 0/1.

    A value is a mark when its text, stripped and lower-cased, is one of
    :data:`_TRAINING_MARKS`' keys; for an integer column that is the values 0 and 1, which
    are then tested directly (an export writes the column as integers)."""
    if _numpy_kind(series) in ("i", "u"):
        ints = series.to_numpy()
        values = pd.Series(np.where((ints == 0) | (ints == 1), ints, np.nan), index=series.index)
    else:
        text = series.astype(str).str.strip().str.lower()
        values = text.map(_TRAINING_MARKS)
    bad = fail_at(
        values.isna().to_numpy(),
        TRAINING,
        first_line,
        lambda pos: f"training must be 0 or 1, got {series.to_numpy(dtype=object)[pos]!r}",
        found,
    )
    return (values.fillna(0) if bad else values).to_numpy(dtype=np.int64)  # reported: any


def duration_column(
    series: pd.Series, column: str, first_line: int | None, found: Found | None = None
) -> Array:
    """A duration in ms: empty (not measured) or a finite number ≥ 0; returns float64.

    A number column (an export's) needs no parsing: its empty cells are its NaNs."""
    if _numpy_kind(series) in ("i", "u", "f"):
        converted = series.to_numpy(dtype=np.float64)
        blank = np.isnan(converted)
    else:
        converted = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64)
        blank = series.isna().to_numpy() | (series.astype(str).str.strip() == "").to_numpy()
    fail_at(
        ~blank & (np.isnan(converted) | ~(converted >= 0) | np.isinf(converted)),
        column,
        first_line,
        lambda pos: (
            f"{column} must be empty or a number of milliseconds >= 0, "
            f"got {series.to_numpy(dtype=object)[pos]!r}"
        ),
        found,
    )
    return np.where(blank, np.nan, converted)
