"""The participant poll's short path (``runs.participant_poll``) answers exactly as DRF does.

``ParticipantPollMiddleware`` answers a successful poll without the layers below it; these
tests send the same requests through the full stack (the middleware removed from
``MIDDLEWARE``) and compare status, every header (but the per-request X-Request-ID) and
the body byte for byte, and check that every other request is left to DRF (401, 403, the
browsable API, ``?format=``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from qoelab.runs import views
from qoelab.runs.models import Session
from qoelab.runs.participant_poll import load_by_token, participant_queryset
from qoelab.runs.tests.conftest import Playing
from qoelab.runs.tests.lab import Lab, fill_questionnaire
from qoelab.runs.tests.test_poll_queries import poll_path
from qoelab.testing import DryRunAgent

SHORT_PATH = "qoelab.runs.participant_poll.ParticipantPollMiddleware"


def screen_client(token: str | None) -> APIClient:
    """A new screen (a test client loads the middleware in force at its first request)."""
    client = APIClient()
    if token is not None:
        client.credentials(HTTP_X_PARTICIPANT_TOKEN=token)
    return client


@contextmanager
def without_short_path() -> Iterator[None]:
    with override_settings(MIDDLEWARE=[m for m in settings.MIDDLEWARE if m != SHORT_PATH]):
        yield


def answer(client: APIClient, path: str, **extra: Any) -> tuple[int, dict[str, str], bytes]:
    response = client.get(path, **extra)
    headers = {k: v for k, v in response.items() if k != "X-Request-ID"}
    assert response["X-Request-ID"]  # still set by ApiErrorMiddleware
    return response.status_code, headers, response.content


def both(token: str, path: str, **extra: Any) -> tuple[Any, Any]:
    short = answer(screen_client(token), path, **extra)
    with without_short_path():
        full = answer(screen_client(token), path, **extra)
    return short, full


@contextmanager
def drf_retrieves() -> Iterator[list[int]]:
    """Counts the polls that reach the DRF view (none: the short path answered)."""
    reached: list[int] = []
    original = views.ParticipantSessionViewSet.retrieve

    def counted(self: Any, request: Any, pk: str | None = None) -> Any:
        reached.append(1)
        return original(self, request, pk)

    with mock.patch.object(views.ParticipantSessionViewSet, "retrieve", counted):
        yield reached


def test_the_short_path_answers_a_poll_without_drf(playing: Playing) -> None:
    _, session = playing
    with drf_retrieves() as reached:
        response = screen_client(session["participant_token"]).get(poll_path(session))
    assert response.status_code == 200 and response.json()["step"] == "playing"
    assert not reached


@pytest.mark.parametrize("accept", [None, "*/*", "application/json"])
def test_playing_and_rating_views_are_the_same_on_both_paths(
    playing: Playing, accept: str | None
) -> None:
    lab, session = playing
    token, path = session["participant_token"], poll_path(session)
    extra = {"HTTP_ACCEPT": accept} if accept else {}
    row = Session.objects.get(pk=session["id"])
    assert row.scenario_started_at is not None
    # A fixed clock: the countdown (in the body and the ETag) is the same on both paths.
    fixed = row.scenario_started_at + timedelta(seconds=1, milliseconds=250)
    with mock.patch("django.utils.timezone.now", return_value=fixed):
        short, full = both(token, path, **extra)
        assert short == full and short[0] == 200
        assert b'"step":"playing"' in short[2]
        etag = short[1]["ETag"]
        short, full = both(token, path, HTTP_IF_NONE_MATCH=etag, **extra)
        assert short == full and short[0] == 304 and short[2] == b""
    lab.post(f"/api/v1/sessions/{session['id']}/advance/")  # → rating (two queries, items)
    short, full = both(token, path, **extra)
    assert short == full and short[0] == 200 and b'"step":"rating"' in short[2]
    short, full = both(token, path, HTTP_IF_NONE_MATCH=f'"x", W/{short[1]["ETag"]}', **extra)
    assert short == full and short[0] == 304


def test_the_questionnaire_view_is_the_same_on_both_paths(
    researcher_client: APIClient, owned_example_study: Any, dry_run_agent: DryRunAgent
) -> None:
    lab = Lab(researcher_client)
    station = lab.station("Seat 1", dry_run_agent.url, dry_run_agent.token)
    person = lab.participant(owned_example_study.pk, "P1")
    session = lab.session(person["id"], owned_example_study.games.first().pk, station["id"])
    token, path = session["participant_token"], poll_path(session)
    short, full = both(token, path)  # waiting
    assert short == full and b'"step":"waiting"' in short[2]
    lab.post(f"/api/v1/sessions/{session['id']}/start/")
    short, full = both(token, path)  # questionnaire: its questions and missing facts
    assert short == full and b'"step":"questionnaire"' in short[2]
    fill_questionnaire(lab.screen(session), session["id"])
    short, full = both(token, path)  # free play, counting down from minutes
    assert short[0] == full[0] == 200 and short[1].keys() == full[1].keys()


def test_requests_the_short_path_does_not_answer_get_drfs_answer(playing: Playing) -> None:
    lab, session = playing
    other_person = lab.participant(session["study"], "P2")
    other = lab.session(other_person["id"], session["game"], None)
    token, path = session["participant_token"], poll_path(session)
    cases: list[tuple[str, str | None, dict[str, Any], int]] = [
        (path, None, {}, 401),  # no token
        (path, "not-a-token", {}, 401),  # unknown token
        (poll_path(other), token, {}, 403),  # another session's token
        (f"/api/v1/participant/sessions/0{session['id']}/", token, {}, 403),  # not the same id
    ]
    for url, sent, extra, status in cases:
        short = answer(screen_client(sent), url, **extra)
        with without_short_path():
            full = answer(screen_client(sent), url, **extra)
        assert short == full and short[0] == status, (url, short, full)
        assert short[1]["Content-Type"] == "application/json"
    # Other renderers and format overrides are DRF's: the browsable API, ?format=json.
    screen = screen_client(token)
    html = screen.get(path, HTTP_ACCEPT="text/html")
    assert html.status_code == 200 and html["Content-Type"].startswith("text/html")
    indented = screen.get(path, HTTP_ACCEPT="application/json; indent=2")
    assert indented.status_code == 200 and indented.content.startswith(b"{\n")
    with drf_retrieves() as reached:
        assert screen.get(f"{path}?format=json").status_code == 200
    assert reached == [1]
    with drf_retrieves() as reached:
        refused = screen.get(path, HTTP_HOST="evil.example")
    assert refused.status_code == 400 and refused.json() == {"detail": "Bad request."}
    assert not reached  # ALLOWED_HOSTS: Django refuses it before any view


def test_a_due_step_is_taken_on_the_short_path(playing: Playing) -> None:
    _, session = playing
    Session.objects.filter(pk=session["id"]).update(
        scenario_started_at=timezone.now() - timedelta(hours=1)
    )
    with drf_retrieves() as reached:
        view = screen_client(session["participant_token"]).get(poll_path(session)).json()
    assert view["step"] == "rating" and not reached
    assert Session.objects.get(pk=session["id"]).state == "rating"


def test_load_by_token_builds_what_the_orm_builds(playing: Playing) -> None:
    _, session = playing
    token = session["participant_token"]
    with CaptureQueriesContext(connection) as queries:
        fast = load_by_token(token)
        assert fast is not None
        related = (fast.study, fast.game, fast.participant)  # cached: no query
    assert len(queries) == 1, [q["sql"] for q in queries]
    orm = participant_queryset().get(token=token)
    expected = (orm, orm.study, orm.game, orm.participant)
    for mine, theirs in zip((fast, *related), expected, strict=True):
        assert type(mine) is type(theirs) and mine.pk == theirs.pk
        for field in type(theirs)._meta.concrete_fields:
            assert getattr(mine, field.attname) == getattr(theirs, field.attname), field
        assert not mine._state.adding and mine._state.db == theirs._state.db
    assert load_by_token("no-such-token") is None


def test_a_failure_on_the_short_path_is_answered_by_the_full_stack(playing: Playing) -> None:
    """E.g. the database going away: DRF and ApiErrorMiddleware answer (and log) it as
    before (503 JSON with the request id: core/tests/test_database_outage.py)."""
    _, session = playing
    failing = mock.patch("qoelab.runs.participant_poll.poll", side_effect=RuntimeError("boom"))
    with failing, drf_retrieves() as reached:
        response = screen_client(session["participant_token"]).get(poll_path(session))
    assert response.status_code == 200 and response.json()["step"] == "playing"
    assert reached == [1]
