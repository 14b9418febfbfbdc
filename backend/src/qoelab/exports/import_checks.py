"""The import's checks of a row against the study in the database.

The file has passed the tidy-format contract (:mod:`qoelab.exports.import_table`); what
is left is what only the study knows: its games (and their pace classes), its scenarios
(and their impairments: a row whose impairment disagrees with its scenario's would
mislabel a rating), the participant columns' values and the questionnaire's answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from netem_profile import (
    DIRECTION_PREFIXES,
    ProfileError,
    flatten_direction,
    parse_column,
    unflatten_direction,
)

from qoelab.exports.import_cells import ImportRejected, bool_cell
from qoelab.participants.models import Skill
from qoelab.studies.directions import checked_direction
from qoelab.studies.models import Scenario

TOLERANCE = 1e-6


@dataclass(frozen=True)
class Checked:
    """What a row's cells (besides rater, session and times) stand for, once checked."""

    game_id: int
    scenario: Scenario
    label: str
    applied: dict[str, dict[str, Any]]
    item: str
    value: int | float
    training: bool
    factors: dict[str, Any]


@dataclass(frozen=True)
class StudyDesign:
    """What rows are checked against: the study's games, scenarios (by export name),
    items (scale discrete?) and questionnaire."""

    games: dict[str, Any]
    scenarios: dict[str, Scenario]
    discrete: dict[str, bool]
    questions: dict[str, dict[str, Any]]
    #: (scenario id, the row's factor values) → the rating's profile
    profiles: dict[tuple[int, tuple[Any, ...]], dict[str, dict[str, Any]]]


def text_of(value: Any) -> str:
    """A cell's text: a number the CSV parser read (age ``25``) as it was written."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def check_row(
    row: dict[str, Any], design: StudyDesign, impairment: list[str], line: int
) -> Checked:
    """Check a row's game, scenario, impairment and answers against the study."""
    game = design.games.get(row["game"])
    if game is None:
        names = ", ".join(sorted(design.games))
        raise ImportRejected(f"game: {row['game']!r} is not a game of this study ({names})", line)
    if row["game_pace"] != game.pace:
        raise ImportRejected(
            f"game_pace: {row['game_pace']!r} but {game.name!r} is {game.pace!r}", line
        )
    scenario = design.scenarios.get(row["scenario"])
    if scenario is None:
        raise ImportRejected(f"scenario: {row['scenario']!r} is not a scenario of this study", line)
    key = (scenario.pk, tuple(row[c] for c in impairment))
    applied = design.profiles.get(key)
    if applied is None:
        applied = design.profiles[key] = _impairment(row, impairment, scenario, line)
    item = row["item"]
    value = row["rating"]
    return Checked(
        game_id=game.pk,
        scenario=scenario,
        label=row["scenario"],
        applied=applied,
        item=item,
        value=int(value) if design.discrete[item] else float(value),
        training=bool(row["training"]),
        factors=_factors(row, design.questions, line),
    )


def _impairment(
    row: dict[str, Any], columns: list[str], scenario: Scenario, line: int
) -> dict[str, dict[str, Any]]:
    """The rating's profile: the scenario's factor values, which the row's must equal."""
    values = {
        direction: flatten_direction(scenario.direction(prefix))
        for direction, prefix in DIRECTION_PREFIXES.items()
    }
    for column in columns:
        parsed = parse_column(column)
        assert parsed is not None  # columns are factor columns
        direction, factor = parsed
        value = row[column]
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


def _whole(key: str, text: str, line: int) -> int:
    try:
        return int(text)
    except ValueError:
        raise ImportRejected(f"{key}: {text!r} is not a whole number", line) from None


def _factors(
    row: dict[str, Any], questions: dict[str, dict[str, Any]], line: int
) -> dict[str, Any]:
    """The participant's age and skill, and the session's answers, of the row."""
    out: dict[str, Any] = {}
    # an empty cell: not answered (the participant's or session's value stays unknown)
    row = {key: value for key, value in row.items() if text_of(value) != ""}
    if "age" in row:
        age = _whole("age", text_of(row["age"]), line)
        if not 10 <= age <= 120:
            raise ImportRejected(f"age: {age} is outside 10..120", line)
        out["age"] = age
    if "skill" in row:
        if row["skill"] not in Skill.values:
            raise ImportRejected(f"skill: {row['skill']!r} is not one of {Skill.values}", line)
        out["skill"] = row["skill"]
    if "genre_preference" in row:
        out["genre_preference"] = bool_cell(
            text_of(row["genre_preference"]), "genre_preference", line
        )
    for key, question in questions.items():
        if key not in row:
            continue
        raw = text_of(row[key])
        if question["kind"] == "choice":
            if raw not in question.get("choices", []):
                raise ImportRejected(f"{key}: {raw!r} is not one of {question['choices']}", line)
            out[key] = raw
        elif question["kind"] == "boolean":
            out[key] = bool_cell(raw, key, line)
        else:
            out[key] = _whole(key, raw, line)
    return out
