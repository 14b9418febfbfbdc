"""Writing a loaded dataset as a new analysis-only study, in the caller's transaction.

The study, its games and scenarios (:mod:`qoelab.datasets.design`), then in bulk
(:func:`qoelab.exports.bulk_insert.insert_rows`, chunks of ``WRITE_CHUNK`` rows):

* a participant per rater (the loader's namespaced codes, ``wired-a.Player_1``);
* a completed, imported session per session of the data (derived by the loader when the
  files had none), order policy ``dataset``: a rater of a dataset may have played a game in
  several sessions (the one-session-per-game rule is a lab's, ``runs.Session``);
* a rating per session, condition and training flag, with a value per rating item, in file
  order (training first, as in a lab session); its profile is its scenario's, its
  provenance ``{"backend": "import"}``, its source ``import``;
* the session's answer to each question (context and questionnaire columns);
* the loader's summary and warnings (:class:`qoelab.datasets.models.StudyDataset`), which
  every analysis of the study carries (``meta.dataset``, ``warnings``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.utils import timezone
from qoe_analysis.scales import is_discrete
from qoe_analysis.tidy.columns import GAME, ITEM, RATER, RATING, SCENARIO, SESSION, TRAINING

from qoelab.datasets.design import (
    Conditions,
    create_games,
    create_scenarios,
    create_study,
    question_columns,
    question_key,
)
from qoelab.datasets.models import DatasetJob, StudyDataset
from qoelab.exports.bulk_insert import insert_rows
from qoelab.participants.models import Participant
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import DATASET_ORDER, Session, new_token
from qoelab.runs.state_machine import State
from qoelab.studies.models import Study

if TYPE_CHECKING:
    from qoe_analysis.dataset.loader import LoadedDataset

WRITE_CHUNK = 2000
_PROVENANCE = {"backend": "import"}


@dataclass(frozen=True)
class Written:
    study: Study
    sessions: int
    ratings: int
    participants: int
    scenarios: int


@dataclass
class _Session:
    """One session of the data: who, which game, its ratings in order."""

    key: str
    rater: str
    game: str
    token: str
    #: (scenario name, training) → {item: value}, in the order of first rows
    ratings: dict[tuple[str, bool], dict[str, Any]]
    answers: dict[str, Any]


def _sessions(dataset: LoadedDataset, discrete: dict[str, bool]) -> dict[str, _Session]:
    """The data's sessions with their ratings and answers, in file order."""
    table = dataset.ratings
    n = len(table)
    first_item = next(iter(discrete))
    items = table[ITEM].astype(str).tolist() if ITEM in table.columns else [first_item] * n
    training = (
        [bool(v) for v in table[TRAINING].tolist()] if TRAINING in table.columns else [False] * n
    )
    columns = question_columns(dataset)
    answer_cells = [(question_key(c), table[c].tolist()) for c in columns]
    sessions: dict[str, _Session] = {}
    rows = zip(
        table[SESSION].astype(str).tolist(),
        table[RATER].astype(str).tolist(),
        table[GAME].astype(str).tolist(),
        table[SCENARIO].astype(str).tolist(),
        table[RATING].tolist(),
        strict=True,
    )
    for i, (key, rater, game, scenario, value) in enumerate(rows):
        entry = sessions.get(key)
        if entry is None:
            answers = {name: _answer(cells[i]) for name, cells in answer_cells}
            entry = sessions[key] = _Session(key, rater, game, new_token(), {}, answers)
        item = items[i]
        values = entry.ratings.setdefault((scenario, training[i]), {})
        values[item] = int(value) if discrete[item] else float(value)
    return sessions


def _answer(value: Any) -> Any:
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int | float) else str(value)


def _participants(study: Study, sessions: dict[str, _Session]) -> dict[str, int]:
    codes = sorted({s.rater for s in sessions.values()})
    Participant.objects.bulk_create(
        [Participant(study=study, code=code) for code in codes], batch_size=WRITE_CHUNK
    )
    return dict(Participant.objects.filter(study=study).values_list("code", "id"))


def _ordered(entry: _Session) -> list[tuple[str, bool, dict[str, Any]]]:
    """The session's ratings: training first, then in the order of the files."""
    ratings = [(scenario, train, values) for (scenario, train), values in entry.ratings.items()]
    return sorted(ratings, key=lambda r: not r[1])


def _session_rows(
    study: Study,
    sessions: dict[str, _Session],
    people: dict[str, int],
    games: dict[str, int],
    conditions: Conditions,
    message: str,
) -> Iterator[dict[str, Any]]:
    now = timezone.now()
    for entry in sessions.values():
        ordered = _ordered(entry)
        order = [
            {
                "scenario": conditions.ids[s],
                "round": 0 if t else 1,
                **({"training": True} if t else {}),
            }
            for s, t, _ in ordered
        ]
        yield {
            "study_id": study.pk,
            "study_version": study.version,
            "participant_id": people[entry.rater],
            "game_id": games[entry.game],
            "station_id": None,
            "state": State.COMPLETED,
            "order_policy": DATASET_ORDER,
            "seed": 0,
            "order": order,
            "current_index": max(0, len(order) - 1),
            "imported": True,
            "message": f"{message} (session {entry.key})",
            "token": entry.token,
            "completed_at": now,
            "ended_at": now,
        }


def _rating_rows(
    sessions: dict[str, _Session], ids: dict[str, int], conditions: Conditions, job_id: int
) -> Iterator[dict[str, Any]]:
    now = timezone.now()
    for entry in sessions.values():
        for index, (scenario, training, values) in enumerate(_ordered(entry)):
            yield {
                "session_id": ids[entry.token],
                "scenario_id": conditions.ids[scenario],
                "order_index": index,
                "round": 0 if training else 1,
                "values": values,
                "training": training,
                "rated_at": now,
                "applied_profile": conditions.profiles[scenario],
                "provenance": _PROVENANCE,
                "idempotency_key": f"dataset-{job_id}-{index}",
                "source": "import",
            }


def _answer_rows(sessions: dict[str, _Session], ids: dict[str, int]) -> Iterator[dict[str, Any]]:
    now = timezone.now()
    for entry in sessions.values():
        for key, value in entry.answers.items():
            yield {
                "session_id": ids[entry.token],
                "phase": "pre",
                "key": key,
                "value": value,
                "answered_at": now,
            }


def write_dataset(job: DatasetJob, dataset: LoadedDataset, *, title: str) -> Written:
    """Create the study of ``dataset`` (call inside a transaction; see the module doc)."""
    from qoe_analysis.jsonable import json_ready

    study = create_study(dataset, title=title, owner=job.created_by)
    games = create_games(study, dataset.ratings)
    conditions = create_scenarios(study, dataset.ratings)
    discrete = {i["key"]: is_discrete(i["scale"]) for i in study.rating_items}
    sessions = _sessions(dataset, discrete)
    people = _participants(study, sessions)
    now = timezone.now()
    message = f"Imported from a dataset (import job {job.pk})"
    rows = _session_rows(study, sessions, people, games, conditions, message)
    insert_rows(Session, rows, now=now, chunk=WRITE_CHUNK)
    ids = dict(Session.objects.filter(study=study).values_list("token", "id"))
    ratings = insert_rows(
        Rating, _rating_rows(sessions, ids, conditions, job.pk), now=now, chunk=WRITE_CHUNK
    )
    insert_rows(Answer, _answer_rows(sessions, ids), now=now, chunk=WRITE_CHUNK)
    StudyDataset.objects.create(
        study=study,
        descriptor=job.descriptor,
        summary=json_ready(dataset.summary),
        warnings=json_ready(dataset.warnings),
    )
    return Written(study, len(sessions), ratings, len(people), len(conditions))
