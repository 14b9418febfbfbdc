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
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
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
from qoe_analysis.tidy_columns import ITEM, ITEM_COLUMNS, REQUIRED_COLUMNS

from qoelab.exports.import_cells import ImportRejected, bool_cell, number_cell
from qoelab.exports.import_items import add_value, implicit_item, item_value, order_entry
from qoelab.exports.tidy import PARTICIPANT_COLUMNS, question_columns, scenario_labels
from qoelab.participants.models import Participant, Skill, participant_code_validator
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import Session
from qoelab.runs.state_machine import State
from qoelab.studies.directions import checked_direction
from qoelab.studies.models import Scenario, Study

MAX_IMPORT_BYTES = 5 * 1024 * 1024
MAX_ROWS = 100_000
FACTOR_COLUMNS = list(factor_columns())
TOLERANCE = 1e-6


@dataclass
class _Session:
    key: str
    rater: str
    game_id: int
    line: int
    rows: list[dict[str, Any]] = field(default_factory=list)
    factors: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ImportResult:
    sessions: int
    ratings: int
    participants_created: int


def _decode(data: bytes | str) -> str:
    if isinstance(data, str):
        return data
    if len(data) > MAX_IMPORT_BYTES:
        raise ImportRejected(f"the file is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MiB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportRejected(f"the file is not UTF-8 text ({exc.reason})") from None


def import_ratings_csv(study: Study, data: bytes | str) -> ImportResult:
    """Validate the whole file, then write it in one transaction (or raise ImportRejected)."""
    text = _decode(data)
    if len(text.encode()) > MAX_IMPORT_BYTES:
        raise ImportRejected(f"the file is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MiB")
    if not text.strip():
        raise ImportRejected("the file is empty", 1)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study.pk)
        sessions = _parse(study, text)
        return _write(study, sessions, digest)


def _parse(study: Study, text: str) -> dict[str, _Session]:
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    try:
        header = reader.fieldnames
    except csv.Error as exc:
        raise ImportRejected(f"malformed CSV ({exc})", 1) from None
    if not header:
        raise ImportRejected("the file has no header", 1)
    header = [h.strip() for h in header]
    reader.fieldnames = header
    duplicated = sorted({h for h in header if header.count(h) > 1})
    if duplicated:
        raise ImportRejected(f"column(s) {duplicated} appear more than once", 1)
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise ImportRejected(f"required column(s) missing: {', '.join(missing)}", 1)
    questions = {q["key"]: q for q in study.questionnaire if q["key"] in question_columns(study)}
    known = {*REQUIRED_COLUMNS, *ITEM_COLUMNS, *PARTICIPANT_COLUMNS, *FACTOR_COLUMNS, *questions}
    unknown = [c for c in header if c not in known]
    if unknown:
        raise ImportRejected(
            f"unknown column(s) {', '.join(unknown)}; allowed besides the required ones: "
            "the impairment factor columns (ds_delay_ms, us_delay_ms, …, see "
            "GET /api/v1/factors/) and "
            f"{', '.join([*ITEM_COLUMNS, *PARTICIPANT_COLUMNS, *questions])}",
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
    count = 0
    try:
        for row in reader:
            line = reader.line_num
            count += 1
            if count > MAX_ROWS:
                raise ImportRejected(f"more than {MAX_ROWS} rows", line)
            if None in row or any(value is None for value in row.values()):
                raise ImportRejected(
                    f"expected {len(header)} fields like the header, got a different number",
                    line,
                )
            row = {k: (v or "").strip() for k, v in row.items()}
            for column in REQUIRED_COLUMNS:
                if row[column] == "":
                    raise ImportRejected(f"{column}: missing value", line)
            rater = row["rater_id"]
            try:
                participant_code_validator(rater)
            except Exception:
                raise ImportRejected(
                    f"rater_id: {rater!r} is not a valid participant code", line
                ) from None
            game = games.get(row["game"])
            if game is None:
                raise ImportRejected(
                    f"game: {row['game']!r} is not a game of this study "
                    f"({', '.join(sorted(games))})",
                    line,
                )
            if row["game_pace"] != game.pace:
                raise ImportRejected(
                    f"game_pace: {row['game_pace']!r} but {game.name!r} is {game.pace!r}", line
                )
            scenario = scenarios.get(row["scenario"])
            if scenario is None:
                raise ImportRejected(
                    f"scenario: {row['scenario']!r} is not a scenario of this study", line
                )
            applied = _impairment(row, impairment, scenario, line)
            item, value = item_value(row, items, implicit, line)
            training = (
                bool_cell(row["training"], "training", line) if row.get("training") else False
            )
            key = (rater, row["session_id"], row["scenario"], training, item)
            if key in seen:
                raise ImportRejected(
                    f"a second {'training ' if training else ''}rating of item {item} for "
                    f"scenario {row['scenario']} by {rater} in session {row['session_id']}",
                    line,
                )
            seen.add(key)
            entry = sessions.get(row["session_id"])
            if entry is None:
                entry = sessions[row["session_id"]] = _Session(
                    row["session_id"], rater, game.pk, line
                )
            elif entry.rater != rater or entry.game_id != game.pk:
                raise ImportRejected(
                    f"session {row['session_id']} already has rater {entry.rater} and another "
                    "game; a session is one rater playing one game",
                    line,
                )
            factors = _factors(row, questions, line)
            for name, answer in factors.items():
                if name in entry.factors and entry.factors[name] != answer:
                    raise ImportRejected(
                        f"{name}: {answer!r} differs from {entry.factors[name]!r} earlier in "
                        f"session {row['session_id']}",
                        line,
                    )
                entry.factors[name] = answer
            add_value(entry.rows, row, scenario, applied, training, item, value, line)
    except csv.Error as exc:
        raise ImportRejected(f"malformed CSV ({exc})", reader.line_num) from None
    if not sessions:
        raise ImportRejected("the file contains no ratings", 2)
    return sessions


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


def _write(study: Study, sessions: dict[str, _Session], digest: str) -> ImportResult:
    now = timezone.now()
    phases = {q["key"]: q.get("phase", "post") for q in study.questionnaire}
    participants = {p.code: p for p in study.participants.all()}
    created_participants = 0
    ratings = 0
    for entry in sessions.values():
        participant = participants.get(entry.rater)
        if participant is None:
            participant = Participant.objects.create(study=study, code=entry.rater)
            participants[entry.rater] = participant
            created_participants += 1
        for attribute in ("age", "skill"):
            value = entry.factors.get(attribute)
            if value is None:
                continue
            current = getattr(participant, attribute)
            if current in (None, ""):
                setattr(participant, attribute, value)
                participant.save(update_fields=[attribute])
            elif current != value:
                raise ImportRejected(
                    f"{attribute}: {value!r} but participant {participant.code} is recorded "
                    f"with {current!r}",
                    entry.line,
                )
        if (
            Session.objects.filter(participant=participant, game_id=entry.game_id)
            .exclude(state=State.ABORTED)
            .exists()
        ):
            raise ImportRejected(
                f"participant {participant.code} already has a session with this game "
                f"(session {entry.key}); was the file imported before?",
                entry.line,
            )
        # Training ratings lead the session's order, as in a session run in the lab.
        rows = sorted(entry.rows, key=lambda r: not r["training"])
        session = Session.objects.create(
            study=study,
            study_version=study.version,
            participant=participant,
            game_id=entry.game_id,
            station=None,
            state=State.COMPLETED,
            order_policy="imported",
            seed=0,
            order=[order_entry(r) for r in rows],
            current_index=len(rows) - 1,
            imported=True,
            message=f"Imported from session {entry.key!r} of a ratings CSV ({digest}).",
            completed_at=now,
        )
        for index, row in enumerate(rows):
            Rating.objects.create(
                session=session,
                scenario=row["scenario"],
                order_index=index,
                round=0 if row["training"] else 1,
                values=row["values"],
                training=row["training"],
                response_ms=row["response_ms"],
                since_end_ms=row["since_end_ms"],
                rated_at=now,
                applied_profile=row["applied"],
                idempotency_key=f"import-{digest}-{row['line']}",
                source="import",
            )
            ratings += 1
        for key, value in entry.factors.items():
            if key in ("age", "skill"):
                continue
            Answer.objects.create(
                session=session,
                phase="pre" if key == "genre_preference" else phases.get(key, "post"),
                key=key,
                value=value,
                answered_at=now,
            )
    return ImportResult(
        sessions=len(sessions), ratings=ratings, participants_created=created_participants
    )
