"""Participant tokens expire QOELAB_PARTICIPANT_TOKEN_DAYS after their session ended
(issue 34): every participant endpoint then answers 410 ``{"code": "token_expired"}``; a
running session's token never expires."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.apps import apps
from django.test import override_settings
from django.utils import timezone
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from qoelab.participants.models import Participant
from qoelab.runs import services
from qoelab.runs.migrations import __name__ as migrations_package
from qoelab.runs.models import Session
from qoelab.runs.services.impairment import end_session
from qoelab.runs.services.transitions import locked
from qoelab.runs.state_machine import State
from qoelab.studies.models import Study

DAYS = 7  # the default of QOELAB_PARTICIPANT_TOKEN_DAYS
BASE = "/api/v1/participant/sessions/{}/"
#: Every participant endpoint: (method, path after the session's URL, body).
ENDPOINTS = [
    ("get", "", None),
    ("post", "questionnaire/", {"consent": True}),
    ("post", "finish-free-play/", None),
    ("post", "rate/", {"values": {"overall": 3}, "position": 1, "idempotency_key": "k" * 16}),
    ("post", "post-questions/", {"answers": {}}),
]


def _session(study: Study, code: str = "P1") -> Session:
    game = study.games.order_by("pk").first()
    assert game is not None
    participant = Participant.objects.create(study=study, code=code)
    return services.create_session(study=study, participant=participant, game=game, station=None)


def _screen(session: Session) -> APIClient:
    screen = APIClient()
    screen.credentials(HTTP_X_PARTICIPANT_TOKEN=session.token)
    return screen


def _ended_ago(session: Session, age: timedelta) -> None:
    Session.objects.filter(pk=session.pk).update(ended_at=timezone.now() - age)


def _call(screen: APIClient, session: Session, method: str, path: str, body: Any) -> Any:
    send: Callable[..., Any] = getattr(screen, method)
    url = BASE.format(session.pk) + path
    return send(url) if body is None else send(url, body, format="json")


@pytest.mark.django_db
def test_an_aborted_sessions_token_works_for_the_set_days_then_every_endpoint_answers_410(
    example_study: Study,
) -> None:
    session = _session(example_study)
    services.abort(session.pk)
    session.refresh_from_db()
    assert session.ended_at is not None  # recorded by the save that ended it
    assert abs((timezone.now() - session.ended_at).total_seconds()) < 60
    screen = _screen(session)
    _ended_ago(session, timedelta(days=DAYS) - timedelta(minutes=1))
    ended = screen.get(BASE.format(session.pk))
    assert ended.status_code == 200 and ended.json()["step"] == "ended"

    _ended_ago(session, timedelta(days=DAYS, seconds=1))
    for method, path, body in ENDPOINTS:
        response = _call(screen, session, method, path, body)
        assert response.status_code == 410, (path, response.status_code, response.content)
        assert response["Content-Type"] == "application/json"
        answer = response.json()
        assert answer["code"] == "token_expired", answer
        assert "expired" in answer["detail"] and "ask the researcher" in answer["detail"]
        assert "study_title" not in answer and "game" not in answer  # nothing of the study


@pytest.mark.django_db
def test_an_etag_poll_of_an_expired_token_gets_410_not_304(example_study: Study) -> None:
    session = _session(example_study)
    screen = _screen(session)
    first = screen.get(BASE.format(session.pk))
    assert first.status_code == 200
    services.abort(session.pk)
    _ended_ago(session, timedelta(days=DAYS + 1))
    again = screen.get(BASE.format(session.pk), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 410 and again.json()["code"] == "token_expired"


@pytest.mark.django_db
def test_a_completed_session_records_its_end_and_its_token_expires(example_study: Study) -> None:
    session = _session(example_study)
    Session.objects.filter(pk=session.pk).update(state=State.POST_QUESTIONS)
    with locked(session.pk) as row:
        end_session(row, State.COMPLETED)  # the completion of submit_post_questions
    session.refresh_from_db()
    assert session.state == State.COMPLETED and session.ended_at is not None
    expires = session.token_expires_at()
    assert expires == session.ended_at + timedelta(days=DAYS)
    assert not session.token_expired(expires - timedelta(seconds=1))
    assert session.token_expired(expires)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("state", "step"),
    [(State.CREATED, "waiting"), (State.QUESTIONNAIRE, "questionnaire"), (State.PAUSED, "paused")],
)
def test_a_running_sessions_token_never_expires(
    example_study: Study, state: State, step: str
) -> None:
    session = _session(example_study)
    long_ago = timezone.now() - timedelta(days=400)
    Session.objects.filter(pk=session.pk).update(
        state=state, created_at=long_ago, started_at=long_ago, updated_at=long_ago
    )
    session.refresh_from_db()
    assert session.token_expires_at() is None
    assert not session.token_expired(timezone.now() + timedelta(days=4000))
    response = _screen(session).get(BASE.format(session.pk))
    assert response.status_code == 200 and response.json()["step"] == step


@pytest.mark.django_db
def test_the_days_come_from_the_setting(example_study: Study) -> None:
    session = _session(example_study)
    services.abort(session.pk)
    _ended_ago(session, timedelta(days=2))
    screen = _screen(session)
    with override_settings(QOELAB_PARTICIPANT_TOKEN_DAYS=3):
        assert screen.get(BASE.format(session.pk)).status_code == 200
    with override_settings(QOELAB_PARTICIPANT_TOKEN_DAYS=1):
        response = screen.get(BASE.format(session.pk))
        assert response.status_code == 410 and "more than 1 day ago" in response.json()["detail"]


@pytest.mark.django_db
def test_a_save_naming_its_fields_records_the_end_too(example_study: Study) -> None:
    session = _session(example_study)
    session.state = State.ABORTED
    session.save(update_fields=["state"])
    stored = Session.objects.get(pk=session.pk)
    assert stored.ended_at is not None and stored.ended_at == session.ended_at
    first = stored.ended_at
    stored.message = "later note"
    stored.save()
    assert Session.objects.get(pk=session.pk).ended_at == first  # stamped once, kept


@pytest.mark.django_db
def test_a_session_without_a_recorded_end_falls_back_to_its_completion(
    example_study: Study,
) -> None:
    """An import's sessions are inserted without save(): their completion time counts."""
    session = _session(example_study)
    completed = timezone.now() - timedelta(days=DAYS + 2)
    Session.objects.filter(pk=session.pk).update(
        state=State.COMPLETED, completed_at=completed, ended_at=None
    )
    session.refresh_from_db()
    assert session.token_expires_at() == completed + timedelta(days=DAYS)
    assert _screen(session).get(BASE.format(session.pk)).status_code == 410


@pytest.mark.django_db
def test_the_migration_backfills_sessions_that_ended_before_it(example_study: Study) -> None:
    from importlib import import_module

    migration = import_module(f"{migrations_package}.0004_session_ended_at")
    aborted, completed, running = (_session(example_study, code) for code in ("A", "C", "R"))
    changed = timezone.now() - timedelta(days=30)
    done = timezone.now() - timedelta(days=20)
    Session.objects.filter(pk=aborted.pk).update(state=State.ABORTED, updated_at=changed)
    Session.objects.filter(pk=completed.pk).update(state=State.COMPLETED, completed_at=done)
    Session.objects.filter(pk__in=[aborted.pk, completed.pk, running.pk]).update(ended_at=None)
    migration.backfill(apps, None)
    ends = dict(Session.objects.values_list("pk", "ended_at"))
    assert ends[aborted.pk] == changed and ends[completed.pk] == done
    assert ends[running.pk] is None


def test_the_schema_documents_410_on_every_participant_endpoint() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths = {p: ops for p, ops in schema["paths"].items() if p.startswith("/api/v1/participant/")}
    operations = [op for ops in paths.values() for op in ops.values() if isinstance(op, dict)]
    assert len(operations) == len(ENDPOINTS)
    for operation in operations:
        assert "410" in operation["responses"], operation["operationId"]
