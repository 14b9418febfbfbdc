"""Issue 34: no header gives a 500. A NUL that reached PostgreSQL was one, for anyone: the
session cookie ``sessionid="…\\000"`` (unquoted into U+0000 by Django) and a NUL in
``X-Participant-Token``. Now every header, cookie and query parameter with a control
character is a 400 before anything reads it (qoelab.core.header_checks)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from qoelab.core.header_checks import (
    cookie_problem,
    header_name,
    header_problem,
    query_problem,
)

#: Every header the app reads (and a few it does not), as WSGI environ keys.
HEADERS = [
    "HTTP_X_FORWARDED_FOR",
    "HTTP_HOST",
    "HTTP_ORIGIN",
    "HTTP_REFERER",
    "HTTP_IF_NONE_MATCH",
    "HTTP_ACCEPT_LANGUAGE",
    "CONTENT_TYPE",
    "CONTENT_LENGTH",
    "HTTP_COOKIE",
    "HTTP_X_PARTICIPANT_TOKEN",
    "HTTP_X_REQUEST_ID",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_CSRFTOKEN",
    "HTTP_X_HEALTH_TOKEN",
    "HTTP_USER_AGENT",
    "HTTP_ACCEPT",
]
#: Values with control characters, as a lax server or proxy could pass them on.
BAD_VALUES = [
    "\x00",
    "A" * 30 + "\x00" + "B" * 30,
    "x\x01\x1f\x7f",
    "sessionid=" + "a" * 32 + "\x00; csrftoken=" + "b" * 32 + "\x00",
    "a\nb",
]
#: Values with no control character that gunicorn passes through: judged by the app.
ODD_VALUES = ['sessionid="' + "a" * 28 + '\\000"', "é\x85\xff", "sessionid=" + "a" * 40]


@pytest.fixture
def session_and_user(example_study: Any) -> tuple[Any, Any]:
    from django.contrib.auth import get_user_model

    from qoelab.participants.models import Participant
    from qoelab.runs.services import create_session

    user = get_user_model().objects.create_user("owner", password="owner-password-1")
    example_study.owner = user
    example_study.save()
    participant = Participant.objects.create(study=example_study, code="P1", age=30)
    game = example_study.games.first()
    session = create_session(study=example_study, participant=participant, game=game, station=None)
    return session, user


def paths(session: Any) -> list[tuple[str, str]]:
    study = session.study_id
    return [
        ("GET", "/healthz"),
        ("GET", "/api/v1/studies/"),
        ("GET", f"/api/v1/studies/{study}/"),
        ("POST", "/api/v1/auth/login/"),
        ("GET", "/api/v1/auth/me/"),
        ("GET", f"/api/v1/participant/sessions/{session.pk}/"),
        ("POST", f"/api/v1/participant/sessions/{session.pk}/rate/"),
        ("GET", f"/api/v1/sessions/?study={study}"),
        ("GET", "/admin/login/"),
    ]


def send(client: Client, method: str, path: str, meta: dict[str, str]) -> Any:
    return client.generic(method, path, b'{"a": 1}' if method == "POST" else b"", **meta)


def test_header_names_and_messages() -> None:
    assert header_name("HTTP_X_FORWARDED_FOR") == "X-Forwarded-For"
    assert header_name("CONTENT_TYPE") == "Content-Type"
    message = header_problem({"HTTP_X_PARTICIPANT_TOKEN": "tok\x00en", "HTTP_ACCEPT": "*/*"})
    assert message == (
        'The "X-Participant-Token" header contains the control character U+0000; header '
        "values may not (RFC 9110 §5.5)."
    )
    assert header_problem({"HTTP_USER_AGENT": "Mozilla\t(é\x85)", "REMOTE_ADDR": "\x00"}) is None
    assert "tok" not in message  # the value is never echoed
    assert cookie_problem({"sessionid": "ab\x00"}) == (
        'The cookie "sessionid" contains the control character U+0000 once unquoted; '
        "cookies may not (RFC 6265 §4.1.1)."
    )
    assert cookie_problem({"x\x01" * 30: "v"}) is not None
    assert '"x?x?x?' in str(cookie_problem({"x\x01" * 30: "v"}))
    assert query_problem([("study", "1"), ("q", "a\x00")]) == (
        'The query parameter "q" contains U+0000 (%00); no parameter takes it.'
    )
    assert query_problem([("q", "tab\tand newline\n")]) is None


@pytest.mark.django_db
def test_no_header_value_gives_a_500(session_and_user: tuple[Any, Any]) -> None:
    session, user = session_and_user
    failures = []
    for signed_in in (False, True):
        for method, path in paths(session):
            for key in HEADERS:
                for value in BAD_VALUES + ODD_VALUES:
                    client = Client(raise_request_exception=False)
                    if signed_in:
                        client.force_login(user)
                    meta = {"HTTP_X_PARTICIPANT_TOKEN": session.token, key: value}
                    if method == "POST":
                        meta.setdefault("CONTENT_TYPE", "application/json")
                    response = send(client, method, path, meta)
                    json_error = response.get("Content-Type", "").startswith("application/json")
                    if response.status_code >= 500 or (
                        path.startswith("/api/") and response.status_code >= 400 and not json_error
                    ):
                        failures.append((signed_in, method, path, key, value, response.status_code))
    assert not failures, failures[:10]


@pytest.mark.django_db
def test_control_characters_are_a_400_naming_the_header(
    session_and_user: tuple[Any, Any],
) -> None:
    session, _ = session_and_user
    path = f"/api/v1/participant/sessions/{session.pk}/"
    response = Client().get(path, HTTP_X_PARTICIPANT_TOKEN=session.token[:10] + "\x00")
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response["X-Request-ID"]
    assert response.json() == {
        "detail": 'The "X-Participant-Token" header contains the control character U+0000; '
        "header values may not (RFC 9110 §5.5)."
    }
    # The octal escape passes every HTTP server; Django unquotes it into a NUL.
    cookie = Client().get("/api/v1/auth/me/", HTTP_COOKIE='sessionid="' + "a" * 28 + '\\000"')
    assert cookie.status_code == 400
    assert 'cookie "sessionid"' in cookie.json()["detail"]
    query = Client().get("/api/v1/studies/", {"search": "a\x00b"})
    assert query.status_code == 400
    assert 'query parameter "search"' in query.json()["detail"]
    # Outside /api/ the answer is plain text.
    page = Client().get("/admin/login/", HTTP_REFERER="x\x00")
    assert page.status_code == 400
    assert page["Content-Type"] == "text/plain; charset=utf-8"
    assert page.content.decode().startswith('The "Referer" header contains')


@pytest.mark.django_db
def test_clean_requests_pass(session_and_user: tuple[Any, Any]) -> None:
    session, _ = session_and_user
    response = Client().get(
        f"/api/v1/participant/sessions/{session.pk}/",
        HTTP_X_PARTICIPANT_TOKEN=session.token,
        HTTP_USER_AGENT="Mozilla/5.0\t(X11; é)",
        HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9",
        QUERY_STRING="lang=de",
    )
    assert response.status_code == 200, response.content
