"""The import's rows into sessions and ratings, checked against the study (no writing).

The file is read and checked as a table first (:mod:`qoelab.exports.import_table`); each
distinct combination of the cells besides who rated and the times is then checked once
against the study (:func:`qoelab.exports.import_checks.check_row`: rows repeat a few
games, scenarios, items and values). Each ``session_id`` becomes one session (one rater,
one game); the rows of one rating (same session, scenario and ``training`` flag) one
rating with a value per item (:func:`qoelab.exports.import_items.add_value`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from qoe_analysis import scales
from qoe_analysis.tidy.columns import ITEM, PROVENANCE_COLUMNS, TRAINING

from qoelab.exports.import_cells import ImportRejected
from qoelab.exports.import_checks import Checked, StudyDesign, check_row
from qoelab.exports.import_items import (
    TIME_COLUMNS,
    add_value,
    implicit_item,
    imported_provenance,
    milliseconds,
)
from qoelab.exports.import_table import FACTOR_COLUMNS, read_table
from qoelab.exports.import_text import FIRST_LINE
from qoelab.exports.tidy_cells import question_columns, scenario_labels
from qoelab.participants.models import participant_code_validator
from qoelab.studies.models import Scenario, Study

#: Called with the rows checked so far (at most every ``PROGRESS_EVERY`` rows).
Progress = Callable[[int], None]
PROGRESS_EVERY = 2000
_WHO = ("rater_id", "session_id", *TIME_COLUMNS)


@dataclass
class ImportedSession:
    key: str
    rater: str
    game_id: int
    line: int
    ratings: dict[tuple[int, bool], dict[str, Any]] = field(default_factory=dict)
    factors: dict[str, Any] = field(default_factory=dict)


@dataclass
class ParsedImport:
    """A checked file: its sessions (with their ratings) and the design it was checked
    against (:func:`qoelab.exports.importer.design_fingerprint`)."""

    sessions: dict[str, ImportedSession]
    rows: int
    design: tuple[Any, ...]


def study_design(study: Study, columns: list[str]) -> StudyDesign:
    """The study's games, scenarios, items and the questions the file has columns for."""
    labels = scenario_labels(study)
    asked = set(question_columns(study)) & set(columns)
    return StudyDesign(
        games={g.name: g for g in study.games.all()},
        scenarios={labels[s.pk]: s for s in Scenario.objects.filter(study=study)},
        discrete={item["key"]: scales.is_discrete(item["scale"]) for item in study.rating_items},
        questions={q["key"]: q for q in study.questionnaire if q["key"] in asked},
        profiles={},
    )


def _rater(code: str, line: int) -> None:
    try:
        participant_code_validator(code)
    except Exception:
        raise ImportRejected(f"rater_id: {code!r} is not a valid participant code", line) from None


def parse_ratings(
    study: Study, lines: Iterable[str], progress: Progress | None, design: tuple[Any, ...]
) -> ParsedImport:
    """Read and check the file; keeps the ratings, not the rows."""
    table = read_table(study, lines)
    checks = study_design(study, table.columns)
    cells = table.cells
    n = table.rows
    if ITEM not in cells:
        cells[ITEM] = [implicit_item(checks.discrete) or scales.OVERALL] * n
    if TRAINING not in cells:
        cells[TRAINING] = [0] * n
    impairment = [c for c in table.columns if c in FACTOR_COLUMNS]
    keyed = [c for c in cells if c not in _WHO and c not in PROVENANCE_COLUMNS]
    raters, session_keys = cells["rater_id"], cells["session_id"]
    times: list[tuple[str, list[Any], dict[Any, int | None]]] = [
        (c, cells[c], {}) for c in TIME_COLUMNS if c in cells
    ]
    provenance_cells = [(c, cells[c]) for c in PROVENANCE_COLUMNS if c in cells]
    checked: dict[tuple[Any, ...], Checked] = {}
    provenances: dict[tuple[str, ...], dict[str, Any]] = {}
    valid_raters: set[str] = set()
    sessions: dict[str, ImportedSession] = {}
    for i, key_cells in enumerate(zip(*(cells[c] for c in keyed), strict=True)):
        line = FIRST_LINE + i
        if i % PROGRESS_EVERY == 0 and progress is not None and i:
            progress(i)
        cell = checked.get(key_cells)
        if cell is None:
            row = dict(zip(keyed, key_cells, strict=True))
            cell = checked[key_cells] = check_row(row, checks, impairment, line)
        rater, session_key = raters[i], session_keys[i]
        if rater not in valid_raters:
            _rater(rater, line)
            valid_raters.add(rater)
        entry = sessions.get(session_key)
        if entry is None:
            entry = sessions[session_key] = ImportedSession(session_key, rater, cell.game_id, line)
        elif entry.rater != rater or entry.game_id != cell.game_id:
            raise ImportRejected(
                f"session {session_key} already has rater {entry.rater} and another "
                "game; a session is one rater playing one game",
                line,
                "session_id",
            )
        for name, answer in cell.factors.items():
            if name in entry.factors and entry.factors[name] != answer:
                raise ImportRejected(
                    f"{name}: {answer!r} differs from {entry.factors[name]!r} earlier in "
                    f"session {session_key}",
                    line,
                )
            entry.factors[name] = answer
        row_times: dict[str, int | None] = {}
        for column, values, known in times:
            value = values[i]
            if value not in known:
                known[value] = milliseconds(column, value, line)
            row_times[column] = known[value]
        said = tuple(values[i] for _, values in provenance_cells)
        provenance = provenances.get(said)
        if provenance is None:
            provenance = provenances[said] = imported_provenance(
                {column: values[i] for column, values in provenance_cells}, line
            )
        add_value(
            entry.ratings,
            cell.scenario,
            cell.label,
            cell.applied,
            cell.training,
            cell.item,
            cell.value,
            row_times,
            line,
            provenance,
        )
    if progress is not None:
        progress(n)
    return ParsedImport(sessions=sessions, rows=n, design=design)
