"""The cells of the tidy CSV: scenario names, factor and answer texts, CSV quoting.

Shared by the export (:mod:`qoelab.exports.tidy`) and the import
(:mod:`qoelab.exports.importer`), which reads back what the export writes.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from typing import Any

from netem_profile import DIRECTION_PREFIXES, FACTORS, flatten_direction
from qoe_analysis.tidy.columns import AGENT_BACKEND, AGENT_VERSION

from qoelab.studies.models import Scenario, Study

PARTICIPANT_COLUMNS = ["age", "skill", "genre_preference"]
FACTOR_KINDS = {"choice", "integer", "boolean"}


def scenario_labels(study: Study) -> dict[int, str]:
    """Scenario row id → export name: the code, or ``CODE.vN`` for a later version's row."""
    labels: dict[int, str] = {}
    seen: set[str] = set()
    for scenario in Scenario.objects.filter(study=study).order_by("code", "version", "id"):
        labels[scenario.pk] = (
            scenario.code if scenario.code not in seen else (f"{scenario.code}.v{scenario.version}")
        )
        seen.add(scenario.code)
    return labels


def question_columns(study: Study) -> list[str]:
    return [
        q["key"]
        for q in study.questionnaire
        if q.get("kind") in FACTOR_KINDS and q["key"] not in PARTICIPANT_COLUMNS
    ]


def number_text(value: Any) -> str:
    number = round(float(value), 9)
    return repr(float(int(number))) if number == int(number) else repr(number)


def factor_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def value_text(value: float) -> str:
    """A rating value as CSV text: ``4`` for an integer, ``5.25`` otherwise."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def optional_text(value: int | None) -> str:
    return "" if value is None else str(value)


def factor_values(applied: dict[str, Any] | None) -> dict[str, str]:
    """Factor column → CSV text for a stored profile (both directions, every factor)."""
    row: dict[str, str] = {}
    for direction, prefix in DIRECTION_PREFIXES.items():
        values = flatten_direction((applied or {}).get(direction))
        for factor in FACTORS:
            value = values[factor.key]
            row[f"{prefix}_{factor.key}"] = (
                str(value) if factor.kind == "nominal" else number_text(value)
            )
    return row


def provenance_columns(provenance: Any) -> dict[str, str]:
    """``agent_backend``/``agent_version`` of a rating's provenance (empty = unknown)."""
    known = provenance if isinstance(provenance, dict) else {}
    return {
        AGENT_BACKEND: str(known.get("backend") or ""),
        AGENT_VERSION: str(known.get("agent_version") or ""),
    }


#: Columns written as numbers; every other column is text, escaped against spreadsheet
#: formulas (:func:`qoe_analysis.io.csv_cells.escape_text_cell`, OWASP "CSV Injection").
NUMERIC_COLUMNS = frozenset(
    [
        *(
            f"{prefix}_{factor.key}"
            for prefix in DIRECTION_PREFIXES.values()
            for factor in FACTORS
            if factor.kind != "nominal"
        ),
        "rating",
        "training",
        "response_ms",
        "since_end_ms",
        "age",
    ]
)


def is_text_column(column: str, numeric: frozenset[str] = frozenset()) -> bool:
    """Is ``column`` written as text (escaped), not as a number? ``numeric``: the study's
    integer questions."""
    return column not in NUMERIC_COLUMNS and column not in numeric


#: What makes :class:`csv.writer` quote a cell: the delimiter, the quote character or a
#: line break (the writer may quote on fewer, e.g. ``\\r``; such a cell goes through it).
_QUOTED = re.compile(r'[,"\r\n]')


def csv_cells(cells: Sequence[str]) -> str:
    """``cells`` as a stretch of a CSV line, quoted as :class:`csv.writer` (excel dialect,
    :data:`csv.QUOTE_MINIMAL`) quotes them in any line, without the line end.

    The writer decides each cell's quoting from that cell alone, so a line is the comma-join
    of its stretches; the one exception is a line of a single empty cell, written ``""``
    (else it would be a blank line), which inside a longer line is empty.
    """
    if len(cells) == 1 and cells[0] == "":
        return ""
    if not any(_QUOTED.search(cell) for cell in cells):
        return ",".join(cells)  # the usual case: no cell the writer would quote
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(cells)
    return out.getvalue()[:-1]
