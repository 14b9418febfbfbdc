"""The import's file split in two: the tidy-format contract's columns, handed to the
analysis' validation, and the study's own columns (participant and questionnaire), checked
by the backend.

Two rules of the import are the study's, not the contract's, so they are applied to the
text before the analysis reads it:

* an empty factor cell means "as the scenario sets it": it is filled with the value of the
  row's scenario in this study (a cell of an unknown scenario stays empty, and the
  contract reports it);
* a participant or questionnaire cell may be empty (not answered): those columns never
  reach the analysis' validation, which refuses a missing value.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

from netem_profile import DIRECTION_PREFIXES, flatten_direction, parse_column
from qoe_analysis.io.csv_cells import unescape_text_cell
from qoe_analysis.tidy.columns import ITEM_COLUMNS, PROVENANCE_COLUMNS, REQUIRED_COLUMNS

from qoelab.exports.import_cells import ImportRejected
from qoelab.exports.tidy_cells import scenario_labels
from qoelab.studies.models import Scenario, Study

#: The file line of the first row (the header is line 1).
FIRST_LINE = 2


@dataclass(frozen=True)
class SplitFile:
    """``contract``: the CSV text of the contract's columns, with its factor gaps filled;
    ``study_cells``: per study column, the un-escaped, stripped text of every row."""

    contract: str
    study_cells: dict[str, list[str]]


def _scenario_values(study: Study) -> dict[str, dict[str, str]]:
    """Scenario label -> factor column -> the scenario's value as CSV text."""
    labels = scenario_labels(study)
    out: dict[str, dict[str, str]] = {}
    for scenario in Scenario.objects.filter(study=study):
        flat = {
            prefix: flatten_direction(scenario.direction(prefix))
            for prefix in DIRECTION_PREFIXES.values()
        }
        values: dict[str, str] = {}
        for prefix, fields in flat.items():
            for key, value in fields.items():
                values[f"{prefix}_{key}"] = value if isinstance(value, str) else repr(value)
        out[labels[scenario.pk]] = values
    return out


def _is_contract_column(column: str) -> bool:
    return (
        column in REQUIRED_COLUMNS
        or column in ITEM_COLUMNS
        or column in PROVENANCE_COLUMNS
        or parse_column(column) is not None
    )


def split_file(study: Study, text: str) -> SplitFile:
    """The contract's part and the study's part of the file (see the module doc)."""
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return SplitFile(contract=text, study_cells={})
    header = [h.strip() for h in rows[0]]
    if not all(column in header for column in REQUIRED_COLUMNS):
        return SplitFile(contract=text, study_cells={})  # the contract names what is missing
    keep = [i for i, column in enumerate(header) if _is_contract_column(column)]
    kept = set(keep)
    study_columns = [i for i in range(len(header)) if i not in kept]
    factors = {i for i in keep if parse_column(header[i]) is not None}
    scenario_at = header.index("scenario") if "scenario" in header else None
    by_scenario = _scenario_values(study) if factors and scenario_at is not None else {}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([header[i] for i in keep])
    cells: dict[str, list[str]] = {header[i]: [] for i in study_columns}
    for number, row in enumerate(rows[1:], start=FIRST_LINE):
        if not row:  # a blank line: the contract says where it is allowed
            writer.writerow([])
            continue
        if len(row) != len(header):
            raise ImportRejected(
                f"the row has {len(row)} cells and the header {len(header)}", number
            )
        scenario = by_scenario.get(row[scenario_at].strip()) if scenario_at is not None else None
        contract_row: list[Any] = []
        for i in keep:
            cell = row[i]
            if i in factors and cell.strip() == "" and scenario is not None:
                cell = scenario.get(header[i], cell)
            contract_row.append(cell)
        writer.writerow(contract_row)
        for i in study_columns:
            cells[header[i]].append(unescape_text_cell(row[i].strip()))
    return SplitFile(contract=out.getvalue(), study_cells=cells)
