"""Writing a checked import: participants, sessions, ratings and answers in bulk.

Call inside the import's transaction (:func:`qoelab.exports.importer.import_ratings`):
rows go in by bulk inserts of ``WRITE_CHUNK`` rows, never all of them in memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.utils import timezone

from qoelab.exports.bulk_insert import insert_rows
from qoelab.exports.import_cells import ImportRejected
from qoelab.exports.import_items import order_entry
from qoelab.exports.import_rows import ImportedSession
from qoelab.participants.models import Participant
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import Session
from qoelab.runs.state_machine import State
from qoelab.studies.models import Study

WRITE_CHUNK = 2000


@dataclass(frozen=True)
class ImportResult:
    sessions: int
    ratings: int
    participants_created: int


def write_ratings(study: Study, sessions: dict[str, ImportedSession], digest: str) -> ImportResult:
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


def _record_attributes(
    sessions: dict[str, ImportedSession], participants: dict[str, Participant]
) -> None:
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
    sessions: dict[str, ImportedSession],
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
