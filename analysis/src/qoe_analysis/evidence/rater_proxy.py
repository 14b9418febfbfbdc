"""The ``rater_proxy`` warning: a per-rater or per-session factor with nearly one level per
rater is a rater identity, so its information-gain weight measures the raters' own bias.

The rule (docs/methods.md, "Warnings"): a factor of
:func:`~qoe_analysis.report_sections.rater_factor_columns` that has a weight is counted over
its units — the raters when its value never changes within a rater, else the sessions — and
over the units that answered it (a gap, the level "(missing)" or an empty cell, is one more
level shared by all who left it). It is warned about when it has at least ``MIN_LEVELS``
levels and its levels hold on average at most ``MAX_UNITS_PER_LEVEL`` answering units
(levels ≥ answering units / 2). A numeric factor counts the levels its weight sees: the MDL
intervals (``weights.weka_mdl_cut_points`` + 1) when the document has them.

Why: the ratings of one rater share that rater's bias (P.913's subject model), so a factor
that splits the raters into groups of one or two explains the ratings as well as the rater
identity does, whatever its effect; and the information gain of a many-valued nominal
attribute is biased upward (Quinlan 1986, the gain-ratio argument of C4.5). A permutation of
the values between raters would test the same thing; the count is chosen because it is exact,
needs no seed and reads the same on every run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from qoe_analysis.evidence.warning_text import as_map, make, num
from qoe_analysis.report_sections import rater_factor_columns
from qoe_analysis.schema.document import DocWarning
from qoe_analysis.tidy.design import RATER, SESSION

__all__ = ["MAX_UNITS_PER_LEVEL", "MIN_LEVELS", "rater_proxy"]

#: fewer levels than this never identify the raters (a yes/no answer splits them in two)
MIN_LEVELS = 3
#: a factor whose levels hold on average at most this many answering units is a rater identity
MAX_UNITS_PER_LEVEL = 2
#: the level a questionnaire gap becomes (qoe_analysis.dataset.design.MISSING_LEVEL)
MISSING_TEXT = "(missing)"


def _units(table: pd.DataFrame, column: str) -> tuple[str, pd.Series]:
    """("raters", one value per rater) when ``column`` never changes within a rater, else
    ("sessions", one value per session)."""
    per_rater = table.groupby(RATER, observed=True, sort=False)[column]
    if int(per_rater.nunique(dropna=False).max()) <= 1 or SESSION not in table.columns:
        return "raters", per_rater.first()
    keys = [RATER, SESSION]
    return "sessions", table.groupby(keys, observed=True, sort=False)[column].first()


def _answered(values: pd.Series) -> pd.Series:
    """The values that are an answer: not empty and not the level "(missing)"."""
    present = values[values.notna()]
    return present[present.astype(str) != MISSING_TEXT]


def _levels(column: str, answered: pd.Series, cuts: Mapping[str, Any]) -> tuple[int, str]:
    """The number of levels the weight sees and their name: distinct answers, or the MDL
    intervals of a numeric factor whose cut points the document has."""
    distinct = int(answered.nunique())
    found = cuts.get(column)
    if pd.api.types.is_numeric_dtype(answered.dtype) and isinstance(found, list):
        return min(distinct, len(found) + 1), "MDL intervals"
    return distinct, "levels"


def _rank(column: str, weka: Mapping[str, Any]) -> str:
    """ "highest", "2nd highest of 10", … of the factor's weight among all weights."""
    values = sorted((float(v) for v in weka.values() if isinstance(v, int | float)), reverse=True)
    place = 1 + sum(v > float(weka[column]) for v in values)
    if place == 1:
        return "highest"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place if place < 20 else place % 10, "th")
    return f"{place}{suffix} highest of {len(values)}"


def _message(column: str, counts: Sequence[int], words: tuple[str, str], weight: str) -> str:
    levels, answered, gaps = counts
    level_word, unit = words
    left = f" ({gaps} left it empty: one more level)" if gaps else ""
    return (
        f"{column} has {levels} {level_word} over {answered} {unit} that answered it{left}: "
        f"it nearly identifies each {unit[:-1]}, so its weight ({weight}) measures {unit[:-1]} "
        f"bias as much as {column}; bin it or analyse it with the raters as a random effect"
    )


def rater_proxy(doc: Mapping[str, Any], table: pd.DataFrame | None) -> list[DocWarning]:
    """One ``rater_proxy`` warning per weighted per-rater/per-session factor of ``table``
    whose levels nearly identify its raters (the module's rule); none without a table."""
    weights = as_map(doc.get("weights"))
    weka = as_map(weights.get("weka"))
    if table is None or not len(table) or not weka:
        return []
    cuts = as_map(weights.get("weka_mdl_cut_points"))
    out: list[DocWarning] = []
    weighted = [c for c in rater_factor_columns(table) if isinstance(weka.get(c), int | float)]
    for column in weighted:
        unit, values = _units(table, column)
        answered = _answered(values)
        levels, level_word = _levels(column, answered, cuts)
        if levels < MIN_LEVELS or levels * MAX_UNITS_PER_LEVEL < len(answered):
            continue
        weight = f"{num(float(weka[column]))}, {_rank(column, weka)}"
        counts = (levels, len(answered), len(values) - len(answered))
        out.append(
            make("rater_proxy", "weights", _message(column, counts, (level_word, unit), weight))
        )
    return out
