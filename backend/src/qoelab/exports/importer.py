"""Ratings in: the tidy CSV (as exported) into a study, all or nothing.

Every row is checked before anything is written; the first problem rejects the whole
file with its line number (the header is line 1), the column and the reason. Rows must
name a game and a scenario of the study. The impairment columns are any subset (at least
one) of the factor registry's (``ds_delay_ms``, ``us_ge_p_pct`` …, see
:func:`netem_profile.factor_columns`; the dissertation's four delay/loss columns are such a
subset); each value must lie within the agent's limits for that field and equal the
scenario's (a row whose impairment disagrees would mislabel a rating). A factor column
that is absent, or an empty cell, means "as the scenario sets it". The rating's stored
profile is the scenario's factor values overridden by the row's, per direction, as
:func:`netem_profile.unflatten_direction` builds it. Each ``session_id`` becomes one
completed, imported session (one rater and one game per session); participants are
matched by ``rater_id`` (created when new).

Long format (issue 15): each row is one value of one rating item (``item``; a file without
that column rates the study's only item, or else its item ``overall``). The item must be
one of the study's rating items and the value must lie on its scale
(:func:`qoe_analysis.scales.validate_value`), so a 0..6 dataset imports once the study
declares a discrete 0..6 item. The rows of one rating
(same session, scenario and ``training`` flag) become one stored rating with a value per
item; ``training`` (0/1) marks training ratings (stored first in the session's order,
round 0), ``response_ms`` and ``since_end_ms`` are optional whole milliseconds.
``agent_backend``/``agent_version`` (optional, as exported) become the rating's
provenance; without them (or empty) it is ``{"backend": "import"}``.

Text cells are read back un-escaped (:func:`qoe_analysis.io.csv_cells.unescape_text_cell`):
the export writes a game ``=x`` as ``'=x`` against spreadsheet formulas, and the import
gives back ``=x``.

Two phases (run by the import job, :mod:`qoelab.exports.tasks`): the file is read
row by row and checked (:func:`parse_ratings`, which keeps only the compact ratings, not
the rows), then written in one transaction with bulk inserts in chunks
(:func:`write_ratings`). The study's design is locked while writing and must be the one the
file was checked against.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from netem_profile import (
    DIRECTION_PREFIXES,
    FIELDS,
    Factor,
    ProfileError,
    factor_columns,
    flatten_direction,
    parse_column,
    unflatten_direction,
)
from qoe_analysis import scales
from qoe_analysis.io.csv_cells import unescape_text_cell
from qoe_analysis.tidy.columns import ITEM, ITEM_COLUMNS, PROVENANCE_COLUMNS, REQUIRED_COLUMNS

from qoelab.exports.bulk_insert import insert_rows
from qoelab.exports.import_cells import ImportRejected, bool_cell, number_cell
from qoelab.exports.import_items import (
    TIME_COLUMNS,
    add_value,
    implicit_item,
    imported_provenance,
    item_value,
    milliseconds,
    order_entry,
)
from qoelab.exports.tidy import PARTICIPANT_COLUMNS, question_columns, scenario_labels
from qoelab.participants.models import Participant, Skill, participant_code_validator
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import Session
from qoelab.runs.state_machine import State
from qoelab.studies.data_version import bump_data_version
from qoelab.studies.directions import checked_direction
from qoelab.studies.models import Scenario, Study

FACTOR_COLUMNS = list(factor_columns())
TOLERANCE = 1e-6


@dataclass
class _Session:
    key: str
    rater: str
    game_id: int
    line: int
    ratings: dict[tuple[int, bool], dict[str, Any]] = field(default_factory=dict)
    factors: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportResult:
    sessions: int
    ratings: int
    participants_created: int


#: Called with the rows read so far (at most every ``PROGRESS_EVERY`` rows).
Progress = Callable[[int], None]
PROGRESS_EVERY = 2000
WRITE_CHUNK = 2000


@dataclass
class ParsedImport:
    """A checked file: its sessions (with their ratings) and the design it was checked
    against (:func:`design_fingerprint`)."""

    sessions: dict[str, _Session]
    rows: int
    design: tuple[Any, ...]


def design_fingerprint(study: Study) -> tuple[Any, ...]:
    """What the file's rows were checked against: the version, items, questionnaire, the
    games and the scenarios with their impairments."""
    return (
        study.version,
        repr(study.rating_items),
        repr(study.questionnaire),
        tuple(study.games.order_by("pk").values_list("pk", "name", "pace")),
        tuple((s.pk, s.code, repr(s.profile())) for s in study.scenarios.order_by("pk")),
    )


def import_ratings(
    study: Study,
    lines: Iterable[str],
    digest: str,
    progress: Progress | None = None,
    *,
    before_write: Callable[[], None] | None = None,
) -> ImportResult:
    """Check every row, then write them all in one transaction (or raise ImportRejected).

    ``digest`` names the file in the imported sessions and ratings; ``progress`` hears the
    rows checked so far and ``before_write`` when writing starts (outside the transaction:
    a job's progress stays visible to others)."""
    parsed = parse_ratings(study, lines, progress)
    if before_write is not None:
        before_write()
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study.pk)
        if design_fingerprint(study) != parsed.design:
            raise ImportRejected(
                "the study's design changed while the file was being checked; submit it again"
            )
        result = write_ratings(study, parsed.sessions, digest)
        bump_data_version(study)
        return result


def _records(reader: Any) -> Iterator[list[str]]:
    try:
        yield from reader
    except csv.Error as exc:
        raise ImportRejected(f"malformed CSV ({exc})", reader.line_num) from None


def parse_ratings(
    study: Study, lines: Iterable[str], progress: Progress | None = None
) -> ParsedImport:
    """Read and check the file row by row; keeps the ratings, not the rows."""
    design = design_fingerprint(study)
    reader = csv.reader(lines, strict=True)
    records = _records(reader)
    header = next(records, None)
    if not header or header == [""] or all(not h.strip() for h in header):
        raise ImportRejected("the file is empty", 1)
    header = [h.strip().lstrip("\ufeff") for h in header]
    duplicated = sorted({h for h in header if header.count(h) > 1})
    if duplicated:
        raise ImportRejected(f"column(s) {duplicated} appear more than once", 1)
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise ImportRejected(f"required column(s) missing: {', '.join(missing)}", 1)
    questions = {q["key"]: q for q in study.questionnaire if q["key"] in question_columns(study)}
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
    impairment = [c for c in header if c in FACTOR_COLUMNS]
    if not impairment:
        raise ImportRejected(
            "no impairment column; at least one of the factor columns is needed, e.g. "
            "ds_delay_ms, us_delay_ms, ds_loss_pct, us_loss_pct (all: GET /api/v1/factors/)",
            1,
        )
    games = {g.name: g for g in study.games.all()}
    labels = scenario_labels(study)
    scenarios = {labels[s.pk]: s for s in Scenario.objects.filter(study=study)}
    items = {item["key"]: item for item in study.rating_items}
    implicit = implicit_item(items)
    if ITEM not in header and implicit is None:
        raise ImportRejected(
            f"no item column, and the study has several items but none {scales.OVERALL!r} "
            f"(its items: {', '.join(items)}); add an item column",
            1,
        )
    sessions: dict[str, _Session] = {}
    seen: set[tuple[str, str, str, bool, str]] = set()
    raters: set[str] = set()
    # Rows repeat a few combinations of game, scenario, impairment, item, value and answers:
    # each combination is checked once (the cells besides who rated and the times).
    checked: dict[tuple[str, ...], _Checked] = {}
    profiles: dict[tuple[int, tuple[str, ...]], dict[str, dict[str, Any]]] = {}
    width = len(header)
    rater_at = header.index("rater_id")
    session_at = header.index("session_id")
    times = [(c, header.index(c)) for c in TIME_COLUMNS if c in header]
    provenance_at = [(c, header.index(c)) for c in PROVENANCE_COLUMNS if c in header]
    skipped = {rater_at, session_at, *(i for _, i in times)}
    rest = [i for i in range(width) if i not in skipped]
    # Equal provenance cells share one checked dict (the insert writes each distinct one once).
    provenances: dict[tuple[str, ...], dict[str, Any]] = {}
    # A raw cell read before is not read again: rater and session repeat on every row of a
    # session, and a file has a few thousand distinct times (a cached time passed its check).
    texts: dict[str, str] = {}
    time_cells: list[tuple[str, int, dict[str, int | None]]] = [(c, i, {}) for c, i in times]
    max_rows = settings.QOELAB_IMPORT_MAX_ROWS
    count = 0
    for cells in records:
        line = reader.line_num
        if count % PROGRESS_EVERY == 0 and progress is not None and count:
            progress(count)
        count += 1
        if count > max_rows:
            raise ImportRejected(f"more than {max_rows} rows", line)
        if len(cells) != width:
            raise ImportRejected(f"expected {width} fields like the header, got {len(cells)}", line)
        key_cells = tuple([cells[i] for i in rest])
        cell = checked.get(key_cells)
        if cell is None:
            row = {k: _text(v) for k, v in zip(header, cells, strict=True)}
            cell = checked[key_cells] = _check(
                row, games, scenarios, profiles, impairment, items, implicit, questions, line
            )
        raw = cells[rater_at]
        rater = texts.get(raw)
        if rater is None:
            rater = texts[raw] = _text(raw)
        raw = cells[session_at]
        session_key = texts.get(raw)
        if session_key is None:
            session_key = texts[raw] = _text(raw)
        if rater not in raters:
            if rater == "":
                raise ImportRejected("rater_id: missing value", line)
            try:
                participant_code_validator(rater)
            except Exception:
                raise ImportRejected(
                    f"rater_id: {rater!r} is not a valid participant code", line
                ) from None
            raters.add(rater)
        if session_key == "":
            raise ImportRejected("session_id: missing value", line)
        key = (rater, session_key, cell.label, cell.training, cell.item)
        if key in seen:
            raise ImportRejected(
                f"a second {'training ' if cell.training else ''}rating of item {cell.item} for "
                f"scenario {cell.label} by {rater} in session {session_key}",
                line,
            )
        seen.add(key)
        entry = sessions.get(session_key)
        if entry is None:
            entry = sessions[session_key] = _Session(session_key, rater, cell.game_id, line)
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
        for column, i, parsed_times in time_cells:
            raw = cells[i]
            if raw in parsed_times:
                row_times[column] = parsed_times[raw]
            else:
                row_times[column] = parsed_times[raw] = milliseconds(column, _text(raw), line)
        provenance_cells = tuple([cells[i] for _, i in provenance_at])
        provenance = provenances.get(provenance_cells)
        if provenance is None:
            provenance = provenances[provenance_cells] = imported_provenance(
                {column: _text(cells[i]) for column, i in provenance_at}, line
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
    if not sessions:
        raise ImportRejected("the file contains no ratings", 2)
    if progress is not None:
        progress(count)
    return ParsedImport(sessions=sessions, rows=count, design=design)


def _text(cell: str) -> str:
    """A cell as the export meant it: trimmed, the formula escape undone."""
    cell = cell.strip()
    # only a cell that starts with a quote can carry the escape (the common case is cheap)
    return str(unescape_text_cell(cell)) if cell[:1] == "'" else cell


@dataclass(frozen=True)
class _Checked:
    """What a row's cells (besides rater, session and times) stand for, once checked."""

    game: Any
    game_id: int
    scenario: Scenario
    label: str
    applied: dict[str, dict[str, Any]]
    item: str
    value: int | float
    training: bool
    factors: dict[str, Any]


def _check(
    row: dict[str, str],
    games: dict[str, Any],
    scenarios: dict[str, Scenario],
    profiles: dict[tuple[int, tuple[str, ...]], dict[str, dict[str, Any]]],
    impairment: list[str],
    items: dict[str, dict[str, Any]],
    implicit: str | None,
    questions: dict[str, dict[str, Any]],
    line: int,
) -> _Checked:
    for column in REQUIRED_COLUMNS:
        if column not in ("rater_id", "session_id") and row[column] == "":
            raise ImportRejected(f"{column}: missing value", line)
    game = games.get(row["game"])
    if game is None:
        raise ImportRejected(
            f"game: {row['game']!r} is not a game of this study ({', '.join(sorted(games))})",
            line,
        )
    if row["game_pace"] != game.pace:
        raise ImportRejected(
            f"game_pace: {row['game_pace']!r} but {game.name!r} is {game.pace!r}", line
        )
    scenario = scenarios.get(row["scenario"])
    if scenario is None:
        raise ImportRejected(f"scenario: {row['scenario']!r} is not a scenario of this study", line)
    cache_key = (scenario.pk, tuple(row[c] for c in impairment))
    applied = profiles.get(cache_key)
    if applied is None:
        applied = profiles[cache_key] = _impairment(row, impairment, scenario, line)
    item, value = item_value(row, items, implicit, line)
    training = bool_cell(row["training"], "training", line) if row.get("training") else False
    return _Checked(
        game=game,
        game_id=game.pk,
        scenario=scenario,
        label=row["scenario"],
        applied=applied,
        item=item,
        value=value,
        training=training,
        factors=_factors(row, questions, line),
    )


def _factor_value(row: dict[str, str], column: str, factor: Factor, line: int) -> float | str:
    """One factor cell, checked against the agent's limits for its field."""
    raw = row[column]
    if factor.kind == "nominal":
        if raw not in factor.choices:
            raise ImportRejected(f"{column}: {raw!r} is not one of {list(factor.choices)}", line)
        return raw
    value = number_cell(row, column, line)
    unit = f" {factor.unit}" if factor.unit else ""
    if factor.minimum is not None and value < factor.minimum:
        raise ImportRejected(
            f"{column}: {value:g} is less than the minimum of {factor.minimum:g}{unit}", line
        )
    if factor.maximum is not None and value > factor.maximum:
        raise ImportRejected(
            f"{column}: {value:g} is greater than the maximum of {factor.maximum:g}{unit}", line
        )
    field = FIELDS.get(factor.key)
    if field is not None and field.type == "integer" and not value.is_integer():
        raise ImportRejected(f"{column}: {value:g} is not a whole number", line)
    return value


def _impairment(
    row: dict[str, str], columns: list[str], scenario: Scenario, line: int
) -> dict[str, dict[str, Any]]:
    """The rating's profile: the scenario's factor values, the row's where it has them."""
    values = {
        direction: flatten_direction(scenario.direction(prefix))
        for direction, prefix in DIRECTION_PREFIXES.items()
    }
    for column in columns:
        if row[column] == "":
            continue
        parsed = parse_column(column)
        assert parsed is not None  # columns are factor columns
        direction, factor = parsed
        value = _factor_value(row, column, factor, line)
        expected = values[direction][factor.key]
        differs = (
            value != expected
            if isinstance(value, str) or isinstance(expected, str)
            else abs(value - expected) > TOLERANCE
        )
        if differs:
            shown = value if isinstance(value, str) else f"{value:g}"
            wanted = expected if isinstance(expected, str) else f"{expected:g}"
            raise ImportRejected(
                f"{column}: {shown} does not match scenario {row['scenario']} ({wanted}); "
                "a rating must carry its scenario's impairment",
                line,
            )
        values[direction][factor.key] = value
    try:
        # complete and canonical, like the agent's read-back (every field explicit)
        return {
            direction: checked_direction(direction, unflatten_direction(flat))
            for direction, flat in values.items()
        }
    except ProfileError as exc:
        raise ImportRejected("; ".join(e["message"] for e in exc.errors), line) from None


def _factors(
    row: dict[str, str], questions: dict[str, dict[str, Any]], line: int
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if row.get("age"):
        try:
            age = int(row["age"])
        except ValueError:
            raise ImportRejected(f"age: {row['age']!r} is not a whole number", line) from None
        if not 10 <= age <= 120:
            raise ImportRejected(f"age: {age} is outside 10..120", line)
        out["age"] = age
    if row.get("skill"):
        if row["skill"] not in Skill.values:
            raise ImportRejected(f"skill: {row['skill']!r} is not one of {Skill.values}", line)
        out["skill"] = row["skill"]
    if row.get("genre_preference"):
        out["genre_preference"] = bool_cell(row["genre_preference"], "genre_preference", line)
    for key, question in questions.items():
        raw = row.get(key, "")
        if not raw:
            continue
        if question["kind"] == "choice":
            if raw not in question.get("choices", []):
                raise ImportRejected(f"{key}: {raw!r} is not one of {question['choices']}", line)
            out[key] = raw
        elif question["kind"] == "boolean":
            out[key] = bool_cell(raw, key, line)
        else:
            try:
                out[key] = int(raw)
            except ValueError:
                raise ImportRejected(f"{key}: {raw!r} is not a whole number", line) from None
    return out


def write_ratings(study: Study, sessions: dict[str, _Session], digest: str) -> ImportResult:
    """Store the checked sessions (call inside a transaction): participants, sessions,
    ratings and answers by bulk inserts of ``WRITE_CHUNK`` rows."""
    now = timezone.now()
    phases = {q["key"]: q.get("phase", "post") for q in study.questionnaire}
    participants = {p.code: p for p in study.participants.all()}
    new_codes = sorted({entry.rater for entry in sessions.values()} - set(participants))
    added = Participant.objects.bulk_create(
        [Participant(study=study, code=code) for code in new_codes], batch_size=WRITE_CHUNK
    )
    if connection.features.can_return_rows_from_bulk_insert:
        participants.update((p.code, p) for p in added)  # their ids came back
    else:
        participants = {p.code: p for p in study.participants.all()}
    _record_attributes(sessions, participants)
    taken = set(
        Session.objects.filter(study=study)
        .exclude(state=State.ABORTED)
        .values_list("participant_id", "game_id")
    )
    for entry in sessions.values():
        if (participants[entry.rater].pk, entry.game_id) in taken:
            raise ImportRejected(
                f"participant {entry.rater} already has a session with this game "
                f"(session {entry.key}); was the file imported before?",
                entry.line,
                "session_id",
            )
        taken.add((participants[entry.rater].pk, entry.game_id))
    # Training ratings lead the session's order, as in a session run in the lab.
    ordered = {
        key: sorted(entry.ratings.values(), key=lambda r: not r["training"])
        for key, entry in sessions.items()
    }
    insert_rows(
        Session,
        (
            {
                "study_id": study.pk,
                "study_version": study.version,
                "participant_id": participants[entry.rater].pk,
                "game_id": entry.game_id,
                "station_id": None,
                "state": State.COMPLETED,
                "order_policy": "imported",
                "seed": 0,
                "order": [order_entry(r) for r in ordered[entry.key]],
                "current_index": len(ordered[entry.key]) - 1,
                "imported": True,
                "message": f"Imported from session {entry.key!r} of a ratings CSV ({digest}).",
                "completed_at": now,
            }
            for entry in sessions.values()
        ),
        now=now,
        chunk=WRITE_CHUNK,
    )
    # A participant has one live session per game (a constraint), so the pair finds it.
    live = dict(
        (((participant, game), pk))
        for pk, participant, game in Session.objects.filter(study=study)
        .exclude(state=State.ABORTED)
        .values_list("pk", "participant_id", "game_id")
    )
    created = {
        key: live[(participants[entry.rater].pk, entry.game_id)] for key, entry in sessions.items()
    }
    ratings = insert_rows(
        Rating, _ratings(created, ordered, digest, now), now=now, chunk=WRITE_CHUNK
    )
    _bulk(Answer, _answers(sessions, created, phases, now))
    return ImportResult(
        sessions=len(sessions), ratings=ratings, participants_created=len(new_codes)
    )


def _record_attributes(sessions: dict[str, _Session], participants: dict[str, Participant]) -> None:
    """A participant's age and skill from the file: set when unknown, else must agree."""
    changed: dict[str, set[str]] = {}
    for entry in sessions.values():
        participant = participants[entry.rater]
        for attribute in ("age", "skill"):
            value = entry.factors.get(attribute)
            if value is None:
                continue
            current = getattr(participant, attribute)
            if current in (None, ""):
                setattr(participant, attribute, value)
                changed.setdefault(attribute, set()).add(participant.code)
            elif current != value:
                raise ImportRejected(
                    f"{attribute}: {value!r} but participant {participant.code} is recorded "
                    f"with {current!r}",
                    entry.line,
                )
    for attribute, codes in changed.items():
        Participant.objects.bulk_update(
            [participants[code] for code in codes], [attribute], batch_size=WRITE_CHUNK
        )


def _ratings(
    created: dict[str, int],
    ordered: dict[str, list[dict[str, Any]]],
    digest: str,
    now: Any,
) -> Iterator[dict[str, Any]]:
    # Equal values share one object, so the insert prepares each distinct one once.
    shared: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}
    for key, session in created.items():
        for index, row in enumerate(ordered[key]):
            values = shared.setdefault(tuple(row["values"].items()), row["values"])
            yield {
                "session_id": session,
                "scenario_id": row["scenario"].id,
                "order_index": index,
                "round": 0 if row["training"] else 1,
                "values": values,
                "training": row["training"],
                "response_ms": row["response_ms"],
                "since_end_ms": row["since_end_ms"],
                "rated_at": now,
                "applied_profile": row["applied"],
                "provenance": row["provenance"],
                "idempotency_key": f"import-{digest}-{row['line']}",
                "source": "import",
            }


def _answers(
    sessions: dict[str, _Session],
    created: dict[str, int],
    phases: dict[str, str],
    now: Any,
) -> Iterator[Answer]:
    for key, entry in sessions.items():
        for name, value in entry.factors.items():
            if name in ("age", "skill"):
                continue
            yield Answer(
                session_id=created[key],
                phase="pre" if name == "genre_preference" else phases.get(name, "post"),
                key=name,
                value=value,
                answered_at=now,
            )


def _bulk(model: Any, objects: Iterable[Any]) -> int:
    """Insert ``objects`` in chunks of ``WRITE_CHUNK`` (never all of them in memory)."""
    count = 0
    chunk: list[Any] = []
    for obj in objects:
        chunk.append(obj)
        if len(chunk) == WRITE_CHUNK:
            model.objects.bulk_create(chunk)
            count += len(chunk)
            chunk = []
    if chunk:
        model.objects.bulk_create(chunk)
        count += len(chunk)
    return count
