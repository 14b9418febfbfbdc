"""The import's rows into sessions and ratings, checked against the study (no writing).

The file is read and checked as a table first (:mod:`qoelab.exports.import_table`); each
distinct combination of the cells besides who rated and the times is then checked once
against the study (:func:`qoelab.exports.import_checks.check_row`: rows repeat a few
games, scenarios, items and values). Each ``session_id`` becomes one session (one rater,
one game, and a rater plays each game once); the rows of one rating (same session,
scenario and ``training`` flag) one rating with a value per item
(:func:`qoelab.exports.import_items.add_value`).

Every row is checked, and every problem of the rows is reported together (issue 32): the
refusal lists them in file order, capped (:meth:`ImportRejected.every`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from qoe_analysis import scales
from qoe_analysis.tidy.columns import ITEM, PROVENANCE_COLUMNS, TRAINING

from qoelab.exports.import_cells import MOST_LISTED, ImportRejected, quoted
from qoelab.exports.import_checks import Checked, StudyDesign, check_row
from qoelab.exports.import_items import (
    TIME_COLUMNS,
    add_value,
    implicit_item,
    imported_provenance,
    milliseconds,
)
from qoelab.exports.import_table import FACTOR_COLUMNS, ImportTable, read_table
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


#: The participant code's rule (qoelab.participants.models.participant_code_validator).
CODE_RULE = (
    "participant codes are 1-40 letters, digits, '_', '.' and '-', the first a letter or digit"
)


def _rater(code: str, line: int) -> None:
    try:
        participant_code_validator(code)
    except Exception:
        raise ImportRejected(
            f"rater_id: {quoted(code)} is not a participant code: {CODE_RULE}", line
        ) from None


class _Problems:
    """The rows' problems: the first :data:`MOST_LISTED` kept, every one counted."""

    def __init__(self) -> None:
        self.kept: list[ImportRejected] = []
        self.total = 0

    def add(self, problem: ImportRejected) -> None:
        self.total += 1
        if len(self.kept) < MOST_LISTED:
            self.kept.append(problem)

    def raise_if_any(self) -> None:
        if self.total:
            raise ImportRejected.every(self.kept, self.total)


class _Rows:
    """The checked file's rows into sessions, one row at a time (:meth:`take`)."""

    def __init__(self, table: ImportTable, checks: StudyDesign) -> None:
        cells = table.cells
        n = table.rows
        if ITEM not in cells:
            cells[ITEM] = [implicit_item(checks.discrete) or scales.OVERALL] * n
        if TRAINING not in cells:
            cells[TRAINING] = [0] * n
        self.checks = checks
        self.impairment = [c for c in table.columns if c in FACTOR_COLUMNS]
        self.keyed = [c for c in cells if c not in _WHO and c not in PROVENANCE_COLUMNS]
        self.key_columns = [cells[c] for c in self.keyed]
        self.raters, self.session_keys = cells["rater_id"], cells["session_id"]
        self.times: list[tuple[str, list[Any], dict[Any, int | None]]] = [
            (c, cells[c], {}) for c in TIME_COLUMNS if c in cells
        ]
        self.provenance_cells = [(c, cells[c]) for c in PROVENANCE_COLUMNS if c in cells]
        self.checked: dict[tuple[Any, ...], Checked] = {}
        self.provenances: dict[tuple[str, ...], dict[str, Any]] = {}
        self.valid_raters: set[str] = set()
        self.sessions: dict[str, ImportedSession] = {}
        #: (rater, game id) → the file's session of that rater and game
        self.played: dict[tuple[str, int], str] = {}

    def take(self, i: int) -> None:
        """Check row ``i`` and add its value to its session (raises ImportRejected)."""
        line = FIRST_LINE + i
        key_cells = tuple(column[i] for column in self.key_columns)
        cell = self.checked.get(key_cells)
        if cell is None:
            row = dict(zip(self.keyed, key_cells, strict=True))
            cell = self.checked[key_cells] = check_row(row, self.checks, self.impairment, line)
        rater, session_key = self.raters[i], self.session_keys[i]
        if rater not in self.valid_raters:
            _rater(rater, line)
            self.valid_raters.add(rater)
        entry = self._session(session_key, rater, cell, line)
        for name, answer in cell.factors.items():
            if name in entry.factors and entry.factors[name] != answer:
                raise ImportRejected(
                    f"{name}: {quoted(answer)} differs from {quoted(entry.factors[name])} "
                    f"earlier in session {session_key}; a session answers each question once",
                    line,
                )
            entry.factors[name] = answer
        row_times: dict[str, int | None] = {}
        for column, values, known in self.times:
            value = values[i]
            if value not in known:
                known[value] = milliseconds(column, value, line)
            row_times[column] = known[value]
        said = tuple(values[i] for _, values in self.provenance_cells)
        provenance = self.provenances.get(said)
        if provenance is None:
            provenance = self.provenances[said] = imported_provenance(
                {column: values[i] for column, values in self.provenance_cells}, line
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

    def _session(self, key: str, rater: str, cell: Checked, line: int) -> ImportedSession:
        """The row's session: one rater playing one game, and a rater plays each game
        once in a study (so two sessions of the file may not share rater and game)."""
        entry = self.sessions.get(key)
        if entry is not None:
            if entry.rater != rater or entry.game_id != cell.game_id:
                raise ImportRejected(
                    f"session {key} already has rater {entry.rater} and another game on "
                    f"line {entry.line}; a session is one rater playing one game",
                    line,
                    "session_id",
                )
            return entry
        other = self.played.setdefault((rater, cell.game_id), key)
        if other != key:
            first = self.sessions[other]
            raise ImportRejected(
                f"session {key} is rater {rater} playing the game of session {other} "
                f"(line {first.line}) again; a rater plays each game once in a study, in "
                "one session",
                line,
                "session_id",
            )
        entry = self.sessions[key] = ImportedSession(key, rater, cell.game_id, line)
        return entry


def parse_ratings(
    study: Study, lines: Iterable[str], progress: Progress | None, design: tuple[Any, ...]
) -> ParsedImport:
    """Read and check the file; keeps the ratings, not the rows. Every row is checked and
    all their problems are raised together (:meth:`ImportRejected.every`)."""
    table = read_table(study, lines)
    rows = _Rows(table, study_design(study, table.columns))
    problems = _Problems()
    n = table.rows
    for i in range(n):
        if i % PROGRESS_EVERY == 0 and progress is not None and i:
            progress(i)
        try:
            rows.take(i)
        except ImportRejected as problem:  # the next rows are checked all the same
            problems.add(problem)
    problems.raise_if_any()
    if progress is not None:
        progress(n)
    return ParsedImport(sessions=rows.sessions, rows=n, design=design)
