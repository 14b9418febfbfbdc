"""The import's file read through the analysis' tidy-format contract.

The table-level rules are the analysis' (:func:`qoe_analysis.load_ratings`, one contract
for the export, the import and the analysis): the required columns, at least one factor
column of the registry, no missing value, numbers where numbers belong and within the
registry's limits, each item a declared one and each rating on its item's scale (the
study's sidecar, :func:`qoelab.studies.rating_items.sidecar`), ``training`` 0/1, times
empty or ≥ 0, the pace classes, one row per rater, session, scenario, item and training
flag, one condition per scenario and one game per session. Its errors keep their line and
column (:func:`rejected`).

Here only what the study decides: which further columns a file may have (the participant
columns and the study's questionnaire, which may have empty cells and never reach the
analysis' validation), an empty factor cell as the scenario's value
(:mod:`qoelab.exports.import_text`), a header without a repeated name (the CSV parser
renames a repeated column, so the analysis cannot see it) and the row limit. Before
all of it, the file's shape (:mod:`qoelab.exports.import_shape`: columns, line and cell
sizes), so that no check here goes as wide as a hostile header.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.conf import settings
from netem_profile import factor_columns
from qoe_analysis.scales import parse_sidecar
from qoe_analysis.tidy.columns import ITEM_COLUMNS, PROVENANCE_COLUMNS, REQUIRED_COLUMNS

from qoelab.exports.import_cells import ImportRejected
from qoelab.exports.import_shape import check_text
from qoelab.exports.import_text import FIRST_LINE, split_file
from qoelab.exports.tidy_cells import PARTICIPANT_COLUMNS, question_columns
from qoelab.studies.models import Study
from qoelab.studies.rating_items import sidecar

if TYPE_CHECKING:
    import pandas as pd
    from qoe_analysis import RatingsValidationError

FACTOR_COLUMNS = frozenset(factor_columns())


@dataclass(frozen=True)
class ImportTable:
    """A checked file: per column, a Python value per row (text, number, or None for an
    empty time); the row at position ``i`` is on line ``FIRST_LINE + i``."""

    columns: list[str]
    cells: dict[str, list[Any]]
    rows: int


def rejected(exc: RatingsValidationError) -> ImportRejected:
    """The analysis' error as the import's: ``line N: column: reason``; with several
    problems, each so, listed as the row checks list theirs (:meth:`ImportRejected.every`:
    the job's text, and ``problems`` in the dataset import's shape), in the order and caps
    of the analysis' own list.

    The analysis' text starts with the place its ``column`` and ``line`` name ("column
    'x', line N: "); the import names the place its own way, so that prefix is dropped."""
    if exc.total > 1:
        from qoe_analysis.dataset.problems import shown_problems

        listed = [
            ImportRejected(f"{p.column}: {p.rule}" if p.column else p.rule, p.line, p.column)
            for p in shown_problems(exc.problems)
        ]
        return ImportRejected.every(listed, exc.total)
    text = str(exc)
    place = [f"column '{exc.column}'"] if exc.column is not None else []
    place += [f"line {exc.line}"] if exc.line is not None else []
    prefix = ", ".join(place) + ": "
    reason = text[len(prefix) :] if place and text.startswith(prefix) else text
    message = f"{exc.column}: {reason}" if exc.column is not None else reason
    return ImportRejected(message, exc.line, exc.column)


def _text_of(lines: Iterable[str]) -> str:
    text = lines.read() if isinstance(lines, io.TextIOBase) else "".join(lines)
    return text.removeprefix("\ufeff")


def check_header(study: Study, header: list[str]) -> None:
    """Refuse a repeated column, or one that is neither the contract's nor the study's."""
    duplicated = sorted(h for h, n in Counter(header).items() if n > 1)
    if duplicated:
        raise ImportRejected(f"column(s) {duplicated} appear more than once", 1)
    questions = question_columns(study)
    known = {
        *REQUIRED_COLUMNS,
        *ITEM_COLUMNS,
        *PROVENANCE_COLUMNS,
        *PARTICIPANT_COLUMNS,
        *FACTOR_COLUMNS,
        *questions,
    }
    unknown = [c for c in header if c not in known]
    if unknown:
        raise ImportRejected(
            f"unknown column(s) {', '.join(unknown)}; allowed besides the required ones: "
            "the impairment factor columns (ds_delay_ms, us_delay_ms, …, see "
            "GET /api/v1/factors/) and "
            f"{', '.join([*ITEM_COLUMNS, *PROVENANCE_COLUMNS, *PARTICIPANT_COLUMNS, *questions])}",
            1,
        )


def read_table(study: Study, lines: Iterable[str]) -> ImportTable:
    """Read and check the whole file against the contract and the study's columns."""
    # The analysis' loader imports pandas: loaded by the first import job, not when the
    # web process loads its URL map (which imports this module through the task).
    from qoe_analysis import RatingsValidationError, load_ratings

    text = _text_of(lines)
    # The shape first (the upload was checked too, but a job may run a file stored under
    # other limits): nothing below may go as wide as a header of 10^6 columns (issue 34).
    check_text(text)
    try:
        header = [h.strip() for h in next(csv.reader(io.StringIO(text)), [])]
    except csv.Error as exc:
        raise ImportRejected(f"malformed CSV ({exc})", 1) from None
    if all(column in header for column in REQUIRED_COLUMNS):  # else the contract says which
        check_header(study, header)
    split = split_file(study, text)
    try:
        table = load_ratings(io.StringIO(split.contract), sidecar=parse_sidecar(sidecar(study)))
    except RatingsValidationError as exc:
        raise rejected(exc) from None
    max_rows = settings.QOELAB_IMPORT_MAX_ROWS
    if len(table) > max_rows:
        raise ImportRejected(f"more than {max_rows} rows", FIRST_LINE + max_rows)
    cells: dict[str, list[Any]] = {str(c): _values(table[c]) for c in table.columns}
    cells.update(split.study_cells)
    return ImportTable(
        columns=[c for c in header if c in cells],
        cells=cells,
        rows=len(table),
    )


def _values(column: pd.Series) -> list[Any]:
    """A validated column's values: texts (stripped) for a text column, else numbers
    (None for a missing one: an empty time)."""
    import numpy as np  # with pandas, loaded by the first import (see read_table)
    import pandas as pd

    if isinstance(column.dtype, pd.CategoricalDtype):
        cat = column.array
        assert isinstance(cat, pd.Categorical)
        names = np.array([str(name).strip() for name in cat.categories] + [""], dtype=object)
        return list(names[np.asarray(cat.codes)].tolist())
    values = column.to_numpy()
    if values.dtype.kind == "f":
        return [None if v != v else v for v in values.tolist()]  # NaN: not measured
    return list(values.tolist())
