"""The tidy CSV's quality-control columns and rows (ITU-T P.808 traps, hidden reference).

For a study with quality-control checks (or QC ratings), the tidy table gains the columns
:data:`qoe_analysis.tidy.columns.QC_COLUMNS` at its end:

* ``kind`` — ``scenario`` for every analysed rating; after them, one row per item of each
  QC rating: ``trap`` (the instructed-response answer, on the first item) and
  ``hidden_reference`` (the unannounced repeat);
* ``qc_expected`` — a trap's instructed value (empty otherwise);
* ``qc_failed`` — the rater's verdict on every row: ``true``, ``false``, or empty when the
  rater has no checkable QC answer; ``qc_reasons`` — why ("trap 1: asked for 2 (Poor),
  answered 5"). The rule is the analysis' (:mod:`qoe_analysis.evidence.quality_control`).

QC rows come last, so the scenario rows keep their lines; the analysis splits them off before
anything is computed (:mod:`qoe_analysis.tidy.quality_control_rows`). A study without
checks exports exactly as before.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from django.db.models import QuerySet
from qoe_analysis.evidence.quality_control import SCENARIO_KIND, TRAP, QcRow, RaterQc, judge
from qoe_analysis.io.csv_cells import escape_text_cell
from qoe_analysis.tidy.columns import (
    AGENT_BACKEND,
    AGENT_VERSION,
    FACTOR_COLUMNS,
    QC_COLUMNS,
    QC_EXPECTED,
    TIDY_COLUMNS,
)

from qoelab.exports.tidy_cells import (
    csv_cells,
    factor_values,
    is_text_column,
    optional_text,
    provenance_columns,
    scenario_labels,
    value_text,
)
from qoelab.ratings.models import Rating
from qoelab.studies.models import Study
from qoelab.studies.quality_control import has_checks

if TYPE_CHECKING:
    from qoelab.exports.tidy import TidyTable

_AT = {name: i for i, name in enumerate(TIDY_COLUMNS)}


def _verdict_cells(verdict: RaterQc | None) -> tuple[str, str]:
    if verdict is None or verdict.status == "not_assessable":
        return "", ""
    return ("true" if verdict.failed else "false"), "; ".join(verdict.reasons)


def _qc_records(
    study: Study, table: TidyTable, qc_ratings: QuerySet[Rating]
) -> list[tuple[list[str], QcRow]]:
    """Each QC rating's rows (cells in ``table.columns`` order, then kind and expected) and
    its :class:`QcRow`s; the session's cells are those of its scenario rows."""
    by_session = {row[_AT["session_id"]]: row for row in table.records}
    labels = scenario_labels(study)
    keys = [item["key"] for item in study.rating_items]
    out = []
    for rating in qc_ratings.select_related("session").order_by("session_id", "order_index"):
        session_row = by_session.get(str(rating.session_id))
        if session_row is None:
            continue
        entry = rating.session.order_entry(rating.order_index) or {}
        expected = entry.get("value") if rating.kind == TRAP else None
        flat = factor_values(rating.applied_profile)
        provenance = provenance_columns(rating.provenance)
        for item in (k for k in keys if k in rating.values):
            cells = list(session_row)
            cells[_AT["scenario"]] = labels[rating.scenario_id]
            for column in FACTOR_COLUMNS:
                cells[_AT[column]] = flat[column]
            cells[_AT["item"]], cells[_AT["rating"]] = item, value_text(rating.values[item])
            cells[_AT["training"]] = "0"
            cells[_AT["response_ms"]] = optional_text(rating.response_ms)
            cells[_AT["since_end_ms"]] = optional_text(rating.since_end_ms)
            cells[_AT[AGENT_BACKEND]] = provenance[AGENT_BACKEND]
            cells[_AT[AGENT_VERSION]] = provenance[AGENT_VERSION]
            cells += [rating.kind, "" if expected is None else value_text(expected)]
            qc_row = QcRow(
                rater=cells[_AT["rater_id"]],
                session=cells[_AT["session_id"]],
                scenario=cells[_AT["scenario"]],
                item=item,
                kind=rating.kind,
                rating=float(rating.values[item]),
                expected=None if expected is None else float(expected),
            )
            out.append((cells, qc_row))
    return out


def with_quality_control(study: Study, table: TidyTable, qc_ratings: QuerySet[Rating]) -> TidyTable:
    """``table`` with the QC columns and rows (module doc); as it is without any check."""
    if not has_checks(study.quality_control) and not qc_ratings.exists():
        return table
    qc = _qc_records(study, table, qc_ratings)
    records = table.records
    first = {
        (r[_AT["rater_id"]], r[_AT["session_id"]], r[_AT["scenario"]], r[_AT["item"]]): float(
            r[_AT["rating"]]
        )
        for r in reversed(records)  # the first showing wins
        if r[_AT["training"]] == "0"
    }
    scales = {item["key"]: item["scale"] for item in study.rating_items}
    raters = sorted({r[_AT["rater_id"]] for r in records})
    verdicts = {v.rater_id: v for v in judge([row for _, row in qc], first, scales, raters)}
    numeric = table.numeric | {QC_EXPECTED}
    columns = [*table.columns, *QC_COLUMNS]

    def text(cells: list[str], names: list[str]) -> str:
        escaped = [
            str(escape_text_cell(v)) if is_text_column(c, numeric) else v
            for c, v in zip(names, cells, strict=True)
        ]
        return csv_cells(escaped)

    rows, lines = [], []
    for record, line in zip(records, table.lines, strict=True):
        added = [SCENARIO_KIND, "", *_verdict_cells(verdicts.get(record[_AT["rater_id"]]))]
        rows.append([*record, *added])
        lines.append(f"{line[:-1]},{text(added, list(QC_COLUMNS))}\n")
    for cells, row in qc:
        rows.append([*cells, *_verdict_cells(verdicts.get(row.rater))])
        lines.append(text(rows[-1], columns) + "\n")
    return dataclasses.replace(
        table,
        columns=columns,
        lines=lines,
        pieces=[(tuple(cells),) for cells in rows],
        numeric=numeric,
    )
