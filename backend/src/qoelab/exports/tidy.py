"""Ratings out: the tidy CSV of ``qoe-analysis``, a JSON document, and sureal's dataset.

The tidy CSV is in long format, one row per rating *and rating item* (an optional item
left without a value has no row), with the columns of
:data:`qoe_analysis.tidy_columns.TIDY_COLUMNS` (the contract between the two)::

    rater_id, session_id, game, game_pace, scenario,
    ds_delay_ms, us_delay_ms, ds_jitter_ms, us_jitter_ms, …, ds_corrupt_pct, us_corrupt_pct,
    item, rating, training, response_ms, since_end_ms, agent_backend, agent_version

— one column per impairment factor of the registry and direction
(:func:`netem_profile.factor_columns`, ``ds_`` = downstream, server→client; ``us_`` =
upstream) — followed by participant/session factor columns: ``age``, ``skill``,
``genre_preference`` (yes/no: does the rater favour the game's genre) and one column per
choice, integer or boolean question of the study's questionnaire (e.g. ``willing_to_pay``,
``attitude``).

The impairment columns hold what the agent *reported as installed* during play: the
rating's ``applied_profile``, which is the agent's verified read-back
(``installed`` of ``PUT /v1/profile``: per direction every field of the agent's profile,
``gilbert_elliott`` an object or null), or, for imported ratings, the profile the import
stored. :func:`netem_profile.flatten_direction` turns each direction into factor values (a
field the profile does not hold is neutral, e.g. jitter in a rating imported from a
delay/loss-only CSV).

``item`` is the rating item's key, ``rating`` the value on its scale (the items and their
scales are the sidecar, :func:`qoelab.studies.rating_items.sidecar`), ``training`` 1 for a
rating of the training phase (exported, marked; the analysis leaves it out), the times in
ms (empty when unknown, e.g. for imported ratings). ``agent_backend`` and ``agent_version``
are the rating's provenance (``Rating.provenance``): the netem agent backend that applied
the impairment (``netlink``; ``dry-run`` = nothing applied to a kernel; ``import`` for an
imported rating whose file did not say) and the agent's version; empty when unknown.

Rules: only ratings of completed sessions by default; the retest round (round 2) is left
out by default because the analysis allows one rating per rater, session and scenario —
with ``include_retest`` it is exported under the session id ``<id>-retest``. A factor
column that would have a missing value in any row is left out entirely (the analysis
rejects missing values). A scenario row of a later study version is named ``CODE.vN``.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast
from netem_profile import DIRECTION_PREFIXES, FACTORS, flatten_direction
from qoe_analysis.csv_cells import escape_text_cell
from qoe_analysis.tidy_columns import AGENT_BACKEND, AGENT_VERSION, FACTOR_COLUMNS, TIDY_COLUMNS

from qoelab.core.errors import BadRequest
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import Session
from qoelab.runs.state_machine import State
from qoelab.studies.models import Scenario, Study
from qoelab.studies.rating_items import sidecar
from qoelab.studies.study_document import export_study_document

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


def _number(value: Any) -> str:
    number = round(float(value), 9)
    return repr(float(int(number))) if number == int(number) else repr(number)


def _factor(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def value_text(value: float) -> str:
    """A rating value as CSV text: ``4`` for an integer, ``5.25`` otherwise."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _optional(value: int | None) -> str:
    return "" if value is None else str(value)


def factor_values(applied: dict[str, Any] | None) -> dict[str, str]:
    """Factor column → CSV text for a stored profile (both directions, every factor)."""
    row: dict[str, str] = {}
    for direction, prefix in DIRECTION_PREFIXES.items():
        values = flatten_direction((applied or {}).get(direction))
        for factor in FACTORS:
            value = values[factor.key]
            row[f"{prefix}_{factor.key}"] = (
                str(value) if factor.kind == "nominal" else _number(value)
            )
    return row


def provenance_columns(provenance: Any) -> dict[str, str]:
    """``agent_backend``/``agent_version`` of a rating's provenance (empty = unknown)."""
    known = provenance if isinstance(provenance, dict) else {}
    return {
        AGENT_BACKEND: str(known.get("backend") or ""),
        AGENT_VERSION: str(known.get("agent_version") or ""),
    }


def ratings_for_export(study: Study, *, include_incomplete: bool = False) -> QuerySet[Rating]:
    ratings = Rating.objects.filter(session__study=study).select_related(
        "session__participant", "session__game", "scenario"
    )
    if not include_incomplete:
        ratings = ratings.filter(session__state=State.COMPLETED)
    return ratings.order_by("session_id", "order_index")


#: Columns written as numbers; every other column is text, escaped against spreadsheet
#: formulas (:func:`qoe_analysis.csv_cells.escape_text_cell`, OWASP "CSV Injection").
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


@dataclass(frozen=True)
class TidyTable:
    """The tidy table: ``records`` are its rows as tuples of cell texts in ``columns``
    order, not yet escaped for spreadsheets (:meth:`to_csv` does that)."""

    columns: list[str]
    records: list[tuple[str, ...]]
    #: Further numeric columns (the study's integer questions).
    numeric: frozenset[str] = frozenset()

    def __len__(self) -> int:
        return len(self.records)

    @property
    def rows(self) -> list[dict[str, str]]:
        """The rows as dictionaries column → text (for readers that want names)."""
        return [dict(zip(self.columns, record, strict=True)) for record in self.records]

    def is_text(self, column: str) -> bool:
        return column not in NUMERIC_COLUMNS and column not in self.numeric

    def cell(self, column: str, value: str) -> str:
        """A cell as written: a text cell that a spreadsheet would run gets a ``'``."""
        return str(escape_text_cell(value)) if self.is_text(column) else value

    def escaped_records(self) -> list[tuple[str, ...]]:
        """``records`` with every text cell escaped (:meth:`cell`).

        A text column holds few distinct values (raters, games, scenarios…), so each
        distinct value is escaped once, and only a column where one changes is rebuilt.
        """
        records = self.records
        by_column: list[Any] | None = None
        for index, column in enumerate(self.columns):
            if not self.is_text(column):
                continue
            values = {record[index] for record in records}
            escaped = {value: str(escape_text_cell(value)) for value in values}
            if all(escaped[value] == value for value in values):
                continue  # the usual case: no cell of the column looks like a formula
            if by_column is None:
                by_column = list(zip(*records, strict=True))
            by_column[index] = [escaped[value] for value in by_column[index]]
        return records if by_column is None else list(zip(*by_column, strict=True))

    def to_csv(self) -> str:
        """The CSV text: a header of ``columns``, one line per record (``\\n`` endings,
        cells quoted only when needed: :data:`csv.QUOTE_MINIMAL`)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns)
        writer.writerows(self.escaped_records())
        return out.getvalue()


class _JsonTexts:
    """JSON texts decoded once per distinct text (a study's ratings repeat a few applied
    profiles, provenances and value sets thousands of times)."""

    def __init__(self) -> None:
        self._decoded: dict[str | None, Any] = {}

    def __call__(self, text: str | None) -> Any:
        try:
            return self._decoded[text]
        except KeyError:
            value = None if text is None else json.loads(text)
            self._decoded[text] = value
            return value


def _as_text(field: str) -> Cast:
    """A JSON column read as its text, so that it is decoded once per distinct value."""
    return Cast(field, output_field=TextField())


def _answers(study: Study) -> dict[int, dict[str, Any]]:
    """Session id → question key → the decoded answer."""
    decode = _JsonTexts()
    answers: dict[int, dict[str, Any]] = {}
    rows = Answer.objects.filter(session__study=study).values_list(
        "session_id", "key", _as_text("value")
    )
    for session_id, key, text in rows:
        answers.setdefault(session_id, {})[key] = decode(text)
    return answers


def tidy_table(
    study: Study, *, include_retest: bool = False, include_incomplete: bool = False
) -> TidyTable:
    """The tidy table of the module's rules (see the module docstring).

    Read column-wise: one query for the ratings' needed columns (no model objects), their
    JSON columns as text; the factor values and provenance are computed once per distinct
    applied profile and provenance text, the rating values once per distinct value set,
    and the participant/session columns once per session.
    """
    labels = scenario_labels(study)
    questions = question_columns(study)
    items = [item["key"] for item in study.rating_items]
    answers = _answers(study)
    sessions = {
        pk: rest
        for pk, *rest in Session.objects.filter(study=study).values_list(
            "id",
            "participant__code",
            "participant__age",
            "participant__skill",
            "game__name",
            "game__pace",
        )
    }
    ratings = Rating.objects.filter(session__study=study)
    if not include_incomplete:
        ratings = ratings.filter(session__state=State.COMPLETED)
    if not include_retest:
        ratings = ratings.filter(round__lte=1)
    columns = ratings.order_by("session_id", "order_index").values_list(
        "session_id",
        "round",
        "scenario_id",
        "training",
        "response_ms",
        "since_end_ms",
        _as_text("applied_profile"),
        _as_text("provenance"),
        _as_text("values"),
    )
    decode = _JsonTexts()
    factor_parts: dict[str | None, tuple[str, ...]] = {}
    provenance_parts: dict[str | None, tuple[str, str]] = {}
    item_parts: dict[str | None, tuple[tuple[str, str], ...]] = {}
    # Per emitted rating: (session id, round) and the cells from ``scenario`` to the end of
    # the provenance, in column order, except the session's own leading cells.
    rated: list[tuple[int, int, tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...]]]
    rated = []
    for (
        session_id,
        round_,
        scenario_id,
        training,
        response_ms,
        since_end_ms,
        applied_text,
        provenance_text,
        values_text,
    ) in columns:
        present = item_parts.get(values_text)
        if present is None:
            values = decode(values_text)
            present = item_parts[values_text] = tuple(
                (item, value_text(values[item])) for item in items if item in values
            )
        if not present:
            continue  # no value for any declared item: no row
        factors = factor_parts.get(applied_text)
        if factors is None:
            flat = factor_values(decode(applied_text))
            factors = factor_parts[applied_text] = tuple(flat[column] for column in FACTOR_COLUMNS)
        provenance = provenance_parts.get(provenance_text)
        if provenance is None:
            known = provenance_columns(decode(provenance_text))
            provenance = provenance_parts[provenance_text] = (
                known[AGENT_BACKEND],
                known[AGENT_VERSION],
            )
        tail = (
            "1" if training else "0",
            _optional(response_ms),
            _optional(since_end_ms),
            *provenance,
        )
        rated.append((session_id, round_, (labels[scenario_id], *factors), present, tail))
    # A factor column is kept only when no emitted row would leave it empty; its value is
    # the session's (participant or answer), so the sessions with a row decide.
    with_rows = {session_id for session_id, *_ in rated}
    candidates: dict[int, dict[str, str]] = {}
    for session_id in with_rows:
        _code, age, skill, _game, _pace = sessions[session_id]
        session_answers = answers.get(session_id, {})
        candidates[session_id] = {
            "age": _factor(age),
            "skill": skill,
            "genre_preference": _factor(session_answers.get("genre_preference")),
            **{key: _factor(session_answers.get(key)) for key in questions},
        }
    factors_kept = [
        column
        for column in [*PARTICIPANT_COLUMNS, *questions]
        if with_rows and all(cells[column] != "" for cells in candidates.values())
    ]
    heads: dict[tuple[int, int], tuple[str, ...]] = {}
    trailers: dict[int, tuple[str, ...]] = {
        session_id: tuple(cells[column] for column in factors_kept)
        for session_id, cells in candidates.items()
    }
    records: list[tuple[str, ...]] = []
    for session_id, round_, middle, present, tail in rated:
        head = heads.get((session_id, round_))
        if head is None:
            code, _age, _skill, game, pace = sessions[session_id]
            label = str(session_id) if round_ <= 1 else f"{session_id}-retest"
            head = heads[(session_id, round_)] = (code, label, game, pace)
        trailer = tail + trailers[session_id]
        for item, rating in present:
            records.append((*head, *middle, item, rating, *trailer))
    integers = {q["key"] for q in study.questionnaire if q.get("kind") == "integer"}
    return TidyTable(
        columns=[*TIDY_COLUMNS, *factors_kept], records=records, numeric=frozenset(integers)
    )


def tidy_csv(study: Study, **options: bool) -> str:
    return tidy_table(study, **options).to_csv()


# --- JSON ----------------------------------------------------------------------------------


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def study_json(study: Study) -> dict[str, Any]:
    """Everything about a study's data: design, sessions, answers, ratings (all rounds)."""
    labels = scenario_labels(study)
    scenarios = {s.pk: s for s in Scenario.objects.filter(study=study)}
    sessions: Iterable[Session] = (
        Session.objects.filter(study=study)
        .select_related("participant", "game", "station")
        .prefetch_related("ratings", "answers")
        .order_by("id")
    )
    return {
        "format": "qoelab.ratings/v1",
        "study": {**export_study_document(study), "id": study.pk, "version": study.version},
        "scale_labels": study.scale_labels,
        **sidecar(study),
        "training": study.training,
        "participants": [
            {
                "code": p.code,
                "age": p.age,
                "skill": p.skill,
                "genre_preferences": p.genre_preferences,
                "consent_at": _iso(p.consent_at),
            }
            for p in study.participants.order_by("id")
        ],
        "sessions": [
            {
                "id": s.pk,
                "participant": s.participant.code,
                "game": s.game.name,
                "game_pace": s.game.pace,
                "station": s.station.name if s.station else None,
                "state": s.state,
                "study_version": s.study_version,
                "order_policy": s.order_policy,
                "seed": s.seed,
                "order": [
                    {
                        "scenario": labels[e["scenario"]],
                        "round": e.get("round", 1),
                        "training": bool(e.get("training")),
                    }
                    for e in s.order
                ],
                "imported": s.imported,
                "started_at": _iso(s.started_at),
                "completed_at": _iso(s.completed_at),
                "answers": {a.key: a.value for a in s.answers.all()},
                "ratings": [
                    {
                        "position": r.order_index + 1,
                        "round": r.round,
                        "scenario": labels[r.scenario_id],
                        "requested_profile": scenarios[r.scenario_id].profile(),
                        "applied_profile": r.applied_profile,
                        "provenance": r.provenance,
                        "values": r.values,
                        "training": r.training,
                        "response_ms": r.response_ms,
                        "since_end_ms": r.since_end_ms,
                        "scenario_started_at": _iso(r.scenario_started_at),
                        "scenario_ended_at": _iso(r.scenario_ended_at),
                        "rated_at": _iso(r.rated_at),
                        "source": r.source,
                    }
                    for r in sorted(s.ratings.all(), key=lambda r: r.order_index)
                ],
            }
            for s in sessions
        ],
    }


# --- sureal --------------------------------------------------------------------------------


def sureal_dataset(study: Study, item: str | None = None) -> dict[str, Any]:
    """One rating item's ratings as a sureal dataset (JSON variant, ``os`` as dictionaries).

    ``item`` defaults to the study's first rating item (``overall``); sureal models one
    opinion score per stimulus, so each item is its own dataset. Contents are the games
    (``ref_videos``), each stimulus is a (game, scenario) pair (``dis_videos``), observers
    are the participants' codes; a retest rating makes the observer's entry a list
    ``[first, retest]`` (sureal's repetitions). Training ratings are left out, as in every
    analysis. ``ref_score`` is the item's scale maximum. Each stimulus lists the
    ``agent_backends`` its ratings were taken under (provenance; ``dry-run`` means nothing
    was applied to a kernel, ``""`` unknown), and the dataset counts ratings per backend.
    Load it with ``sureal.tools.misc.import_json_file`` / ``sureal --dataset FILE.json``.
    """
    declared = study.rating_items[0] if item is None else study.rating_item(item)
    if declared is None:
        keys = ", ".join(i["key"] for i in study.rating_items)
        raise BadRequest(f"item: {item!r} is not a rating item of this study ({keys})")
    key = declared["key"]
    labels = scenario_labels(study)
    games = list(study.games.order_by("id"))
    content = {game.pk: index for index, game in enumerate(games)}
    stimuli: dict[tuple[int, int], dict[str, Any]] = {}
    backends: dict[str, int] = {}
    for rating in ratings_for_export(study).filter(training=False):
        if key not in rating.values:
            continue
        value = rating.values[key]
        session = rating.session
        stimulus = stimuli.setdefault(
            (session.game_id, rating.scenario_id),
            {
                "asset_id": len(stimuli),
                "content_id": content[session.game_id],
                "os": {},
                "path": f"qoelab/{study.slug}/{session.game.name}/{labels[rating.scenario_id]}",
                "scenario": labels[rating.scenario_id],
                "game": session.game.name,
                "game_pace": session.game.pace,
                "agent_backends": [],
            },
        )
        backend = provenance_columns(rating.provenance)[AGENT_BACKEND]
        if backend not in stimulus["agent_backends"]:
            stimulus["agent_backends"].append(backend)
        backends[backend] = backends.get(backend, 0) + 1
        observer = session.participant.code
        scores = stimulus["os"]
        if observer in scores:
            previous = scores[observer]
            scores[observer] = (
                [*previous, value] if isinstance(previous, list) else [previous, value]
            )
        else:
            scores[observer] = value
    return {
        "dataset_name": study.slug.replace("-", "_"),
        "item": key,
        "ref_score": float(declared["scale"]["max"]),
        "agent_backends": dict(sorted(backends.items())),
        "ref_videos": [
            {
                "content_id": content[game.pk],
                "content_name": game.name,
                "path": f"qoelab/{study.slug}/{game.name}",
            }
            for game in games
        ],
        "dis_videos": sorted(stimuli.values(), key=lambda s: s["asset_id"]),
    }
