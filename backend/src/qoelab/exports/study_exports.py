"""Ratings out as documents: the study's data as JSON, and a rating item as sureal's dataset."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from qoe_analysis.io.csv_cells import escape_text_cell
from qoe_analysis.tidy.columns import AGENT_BACKEND

from qoelab import __version__
from qoelab.core.errors import BadRequest
from qoelab.exports.tidy import ratings_for_export
from qoelab.exports.tidy_cells import provenance_columns, scenario_labels
from qoelab.participants.withdrawal import TAKING_PART, taking_part
from qoelab.runs.models import Session
from qoelab.studies.models import Scenario, Study
from qoelab.studies.rating_items import sidecar
from qoelab.studies.study_document import export_study_document


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def study_json(study: Study) -> dict[str, Any]:
    """Everything about a study's data: design, sessions, answers, ratings (all rounds)."""
    labels = scenario_labels(study)
    scenarios = {s.pk: s for s in Scenario.objects.filter(study=study)}
    sessions: Iterable[Session] = (
        Session.objects.filter(study=study, **taking_part("participant__"))
        .select_related("participant", "game", "station")
        .prefetch_related("ratings", "answers")
        .order_by("id")
    )
    return {
        "format": "qoelab.ratings/v1",
        "qoelab_version": __version__,  # the release that wrote the file (CHANGELOG.md)
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
            for p in study.participants.filter(**TAKING_PART).order_by("id")
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

    The names (``content_name``, ``game``, ``scenario``) are escaped as the tidy CSV's
    text cells (:func:`qoe_analysis.io.csv_cells.escape_text_cell`, OWASP "CSV
    Injection"): tables made from the dataset (per-stimulus results) are opened in
    spreadsheets, and a legacy name ``=…`` (also behind U+200B, or ``＝…``) must not run
    there. ``path`` starts with ``qoelab/`` and is never a formula.
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
    for rating in ratings_for_export(study).filter(training=False, kind="scenario"):
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
                "scenario": escape_text_cell(labels[rating.scenario_id]),
                "game": escape_text_cell(session.game.name),
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
                "content_name": escape_text_cell(game.name),
                "path": f"qoelab/{study.slug}/{game.name}",
            }
            for game in games
        ],
        "dis_videos": sorted(stimuli.values(), key=lambda s: s["asset_id"]),
    }
