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
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from netem_profile import DIRECTION_PREFIXES, FACTORS, flatten_direction
from qoe_analysis.csv_cells import escape_text_cell
from qoe_analysis.tidy_columns import AGENT_BACKEND, AGENT_VERSION, TIDY_COLUMNS

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
    columns: list[str]
    rows: list[dict[str, str]]
    #: Further numeric columns (the study's integer questions).
    numeric: frozenset[str] = frozenset()

    def cell(self, column: str, value: str) -> str:
        """A cell as written: a text cell that a spreadsheet would run gets a ``'``."""
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


def tidy_table(
    study: Study, *, include_retest: bool = False, include_incomplete: bool = False
) -> TidyTable:
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
            "response_ms": _optional(rating.response_ms),
            "since_end_ms": _optional(rating.since_end_ms),
            **provenance_columns(rating.provenance),
            "age": _factor(participant.age),
            "skill": participant.skill,
            "genre_preference": _factor(session_answers.get("genre_preference")),
        }
        for key in questions:
            row[key] = _factor(session_answers.get(key))
        for item in items:
            if item in rating.values:
                rows.append({**row, "item": item, "rating": value_text(rating.values[item])})
    factors = [
        column
        for column in [*PARTICIPANT_COLUMNS, *questions]
        if rows and all(row.get(column, "") != "" for row in rows)
    ]
    integers = {q["key"] for q in study.questionnaire if q.get("kind") == "integer"}
    return TidyTable(columns=[*TIDY_COLUMNS, *factors], rows=rows, numeric=frozenset(integers))


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
