"""The tidy table as it was built before issue 16 (one model object and one row dict per
rating, every JSON field decoded per row, :class:`csv.DictWriter` per cell).

Kept as the reference the column-wise :func:`qoelab.exports.tidy.tidy_table` must match
byte for byte (``test_tidy_identical``) and as the baseline of
``backend/bench/bench_results.py``; not used by the application.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from qoe_analysis.io.csv_cells import escape_text_cell
from qoe_analysis.tidy.columns import TIDY_COLUMNS

from qoelab.exports.tidy import ratings_for_export
from qoelab.exports.tidy_cells import (
    NUMERIC_COLUMNS,
    PARTICIPANT_COLUMNS,
    factor_text,
    factor_values,
    optional_text,
    provenance_columns,
    question_columns,
    scenario_labels,
    value_text,
)
from qoelab.ratings.models import Answer
from qoelab.studies.models import Study


class RowwiseTable:
    def __init__(self, columns: list[str], rows: list[dict[str, str]], numeric: frozenset[str]):
        self.columns = columns
        self.rows = rows
        self.numeric = numeric

    def cell(self, column: str, value: str) -> str:
        if column in NUMERIC_COLUMNS or column in self.numeric:
            return value
        return str(escape_text_cell(value))

    def to_csv(self) -> str:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=self.columns, lineterminator="\n")
        writer.writeheader()
        for row in self.rows:
            writer.writerow(
                {column: self.cell(column, row.get(column, "")) for column in self.columns}
            )
        return out.getvalue()


def rowwise_tidy_table(
    study: Study, *, include_retest: bool = False, include_incomplete: bool = False
) -> RowwiseTable:
    labels = scenario_labels(study)
    questions = question_columns(study)
    items = [item["key"] for item in study.rating_items]
    answers: dict[int, dict[str, Any]] = {}
    for answer in Answer.objects.filter(session__study=study):
        answers.setdefault(answer.session_id, {})[answer.key] = answer.value
    rows: list[dict[str, str]] = []
    for rating in ratings_for_export(study, include_incomplete=include_incomplete):
        if rating.round > 1 and not include_retest:
            continue
        session = rating.session
        participant = session.participant
        applied = rating.applied_profile
        session_answers = answers.get(session.pk, {})
        row = {
            "rater_id": participant.code,
            "session_id": str(session.pk) if rating.round <= 1 else f"{session.pk}-retest",
            "game": session.game.name,
            "game_pace": session.game.pace,
            "scenario": labels[rating.scenario_id],
            **factor_values(applied),
            "training": "1" if rating.training else "0",
            "response_ms": optional_text(rating.response_ms),
            "since_end_ms": optional_text(rating.since_end_ms),
            **provenance_columns(rating.provenance),
            "age": factor_text(participant.age),
            "skill": participant.skill,
            "genre_preference": factor_text(session_answers.get("genre_preference")),
        }
        for key in questions:
            row[key] = factor_text(session_answers.get(key))
        for item in items:
            if item in rating.values:
                rows.append({**row, "item": item, "rating": value_text(rating.values[item])})
    factors = [
        column
        for column in [*PARTICIPANT_COLUMNS, *questions]
        if rows and all(row.get(column, "") != "" for row in rows)
    ]
    integers = {q["key"] for q in study.questionnaire if q.get("kind") == "integer"}
    return RowwiseTable([*TIDY_COLUMNS, *factors], rows, frozenset(integers))
