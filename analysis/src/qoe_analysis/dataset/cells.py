"""The cells of one column read as its field's Table Schema type.

A cell is first stripped of surrounding spaces; a cell equal to one of the missing values
(the field's ``missingValues``, else the schema's; Table Schema's default is the empty text)
is missing. The others are read by type: ``string`` as written; ``integer`` a whole number;
``number`` a decimal number with the field's ``decimalChar`` (default '.') and without its
``groupChar``; ``boolean`` one of ``trueValues``/``falseValues`` (Table Schema's defaults:
true/True/TRUE/1 and false/False/FALSE/0), read as 1/0. A cell that does not read is *bad*;
then the constraints: ``minimum``/``maximum`` on numbers, ``enum`` on the cell's text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.dataset.fields import FieldSpec

__all__ = ["Cells", "raw_texts", "read_cells"]

Array = np.ndarray[Any, Any]
_NONE = np.array(None, dtype=object)


@dataclass(frozen=True)
class Cells:
    """A column read by its field: ``values`` (float64 for the numeric types, else object
    texts; NaN/None where missing or bad), the ``missing`` and ``bad`` masks, the rule a
    bad cell breaks, and the stripped ``texts`` as found."""

    values: Array
    missing: Array
    bad: Array
    rule: str
    texts: Array


def raw_texts(series: pd.Series) -> Array:
    """The column's cells as stripped texts ("" for an empty or NaN cell); a number a
    frame already holds is written as Python writes it (3.0 → "3.0", 3 → "3")."""
    cells = pd.Series(series.to_numpy(dtype=object), dtype=object)
    missing = cells.isna().to_numpy()
    texts = cells.where(~missing, "").astype(str).str.strip()  # one pass, not a loop per cell
    return np.asarray(texts.to_numpy(dtype=object), dtype=object)


def _numbers(texts: Array, spec: FieldSpec) -> Array:
    series = pd.Series(texts, dtype=object)
    if spec.group_char:
        series = series.str.replace(spec.group_char, "", regex=False)
    if spec.decimal_char != ".":
        series = series.str.replace(spec.decimal_char, ".", regex=False)
    numbers = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64)
    return np.asarray(numbers, dtype=np.float64)


def _typed(texts: Array, present: Array, spec: FieldSpec) -> tuple[Array, Array, str]:
    """(values, bad, rule) of the present cells by type."""
    if spec.type == "string":
        values = np.where(present, texts, _NONE)
        return values, np.zeros(texts.size, dtype=bool), ""
    if spec.type == "boolean":
        true = np.isin(texts, spec.true_values)
        false = np.isin(texts, spec.false_values)
        values = np.where(true, 1.0, np.where(false, 0.0, np.nan))
        choices = ", ".join([*spec.true_values, *spec.false_values])
        return values, present & ~(true | false), f"one of {choices}"
    numbers = _numbers(texts, spec)
    with np.errstate(invalid="ignore"):
        bad = present & ~np.isfinite(numbers)
        rule = f"a decimal number (digits, one decimal mark '{spec.decimal_char}')"
        if spec.type == "integer":
            bad |= present & np.isfinite(numbers) & (numbers != np.round(numbers))
            rule = "a whole number"
    return np.where(bad | ~present, np.nan, numbers), bad, rule


def _constrained(
    values: Array, texts: Array, bad: Array, present: Array, spec: FieldSpec
) -> tuple[Array, str | None]:
    """Cells outside the constraints' ``minimum``/``maximum``/``enum`` (present, typed)."""
    out = np.zeros(values.size, dtype=bool)
    rules = []
    if spec.numeric and (spec.minimum is not None or spec.maximum is not None):
        lo = -np.inf if spec.minimum is None else spec.minimum
        hi = np.inf if spec.maximum is None else spec.maximum
        with np.errstate(invalid="ignore"):
            out |= present & ~bad & ((values < lo) | (values > hi))
        rules.append(f"from {lo:g} to {hi:g}")
    if spec.enum is not None:
        out |= present & ~bad & ~np.isin(texts, spec.enum)
        rules.append(f"one of {', '.join(spec.enum)}")
    return out, (" and ".join(rules) if rules else None)


def read_cells(series: pd.Series, spec: FieldSpec, missing_values: frozenset[str]) -> Cells:
    """The column ``series`` read as ``spec`` says (see the module docstring)."""
    texts = raw_texts(series)
    missing_set = spec.missing_values if spec.missing_values is not None else missing_values
    missing = np.isin(texts, list(missing_set)) if missing_set else np.zeros(texts.size, bool)
    missing |= texts == ""
    present = ~missing
    values, bad, rule = _typed(texts, present, spec)
    rule = f"a value of type {spec.type} is {rule}" if rule else ""
    outside, limits = _constrained(values, texts, bad, present, spec)
    if outside.any():
        bad = bad | outside
        rule = (
            f"{rule}; the constraints allow values {limits}"
            if rule
            else f"the constraints allow values {limits}"
        )
        if spec.numeric:
            values = np.where(outside, np.nan, values)
        else:
            values = np.where(outside, _NONE, values)
    return Cells(values=values, missing=missing, bad=bad, rule=rule, texts=texts)
