"""Acceptance (issues 4 and 13): requests generated from the OpenAPI schema find no 5xx,
and every answer conforms to the schema: a documented status code, a documented content
type and a body that validates against the response schema.

Schemathesis loads /api/schema/ from the WSGI app in-process and sends generated (mostly
invalid) requests to every operation, authenticated as a researcher who owns a study
with a session (and, on the participant endpoints, with that session's token). It runs
on the suite's database (PostgreSQL in CI, DATABASE_URL from .ci/run). Bounded examples
keep the run within a couple of minutes on two busy cores.

Issue 34: the same operations with a header the app reads set to a value with a control
character (NUL, other C0 controls, DEL) or a session cookie whose octal escape unquotes to
U+0000: no 5xx, and every error under /api/ is JSON.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from qoelab.wsgi import application

MAX_EXAMPLES = 25
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def load_schema() -> Any:
    """The schema as /api/schema/ serves it, with calls going to the WSGI app in-process."""
    from drf_spectacular.generators import SchemaGenerator

    document = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True)))
    loaded = schemathesis.openapi.from_dict(document)
    loaded.app = application
    return loaded


@pytest.fixture
def in_process_requests() -> Any:
    """Like Django's test client: requests must not close the test's database connection."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def credentials(db: None, settings: Any, in_process_requests: None) -> dict[str, str]:
    # A fast password hasher: every generated request authenticates with HTTP basic.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from django.conf import settings as django_settings
    from django.contrib.auth import get_user_model

    from qoelab.participants.models import Participant
    from qoelab.runs.services import create_session
    from qoelab.studies.study_document import load_study_document, read_study_document

    user = get_user_model().objects.create_user("fuzzer", password="fuzzer-password-1")
    document = read_study_document(
        django_settings.FIXTURES_DIR / "studies" / "cloud-gaming-2014.json"
    )
    study = load_study_document(document, owner=user).study
    participant = Participant.objects.create(study=study, code="P1", age=30)
    game = study.games.first()
    assert game is not None
    session = create_session(study=study, participant=participant, game=game, station=None)
    basic = base64.b64encode(b"fuzzer:fuzzer-password-1").decode()
    return {"Authorization": f"Basic {basic}", "X-Participant-Token": session.token}


@pytest.mark.slow
def test_every_operation_answers_as_its_schema_says(credentials: dict[str, str]) -> None:
    failures: dict[str, str] = {}
    operations = 0
    for result in load_schema().get_all_operations():
        operation = result.ok()
        operations += 1

        @given(case=operation.as_strategy())
        @hypothesis_settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def check(case: Any) -> None:
            response = case.call(headers=credentials)
            try:
                case.validate_response(response, checks=CHECKS, headers=credentials)
            except (FailureGroup, Failure) as exc:
                found = exc.exceptions if isinstance(exc, FailureGroup) else (exc,)
                for failure in found:
                    key = f"{case.method} {case.operation.path} → {response.status_code}: "
                    key += failure.title
                    if key not in failures:
                        failures[key] = f"{failure.message[:400]}\n    body: {response.text[:200]}"

        check()
    assert operations > 40
    assert not failures, f"{len(failures)} distinct failures:\n" + "\n".join(
        f"{key}\n    {detail}" for key, detail in failures.items()
    )


HEADER_EXAMPLES = 10
#: The headers the app (or Django) reads, as WSGI environ keys; the values go straight into
#: the environ, as a lax server or proxy would pass them on (the test clients refuse some).
#: Authorization is the sign-in code's (qoelab.accounts).
READ_HEADERS = [
    "HTTP_X_PARTICIPANT_TOKEN",
    "HTTP_X_FORWARDED_FOR",
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_REQUEST_ID",
    "HTTP_X_CSRFTOKEN",
    "HTTP_X_HEALTH_TOKEN",
    "HTTP_HOST",
    "HTTP_ORIGIN",
    "HTTP_REFERER",
    "HTTP_IF_NONE_MATCH",
    "HTTP_ACCEPT_LANGUAGE",
    "HTTP_ACCEPT",
    "HTTP_COOKIE",
    "CONTENT_TYPE",
]
#: C0 controls but HTAB (allowed in a header value), and DEL.
CONTROLS = [chr(code) for code in (*range(0x00, 0x09), *range(0x0A, 0x20), 0x7F)]


def control_character_headers() -> Any:
    """One read header set to text with a control character, or a session cookie whose
    octal escape Django unquotes into U+0000 (it passes every HTTP server)."""
    text = st.text(alphabet="abcXYZ019=;,-_.: /", max_size=12)
    value = st.builds(lambda a, c, b: a + c + b, text, st.sampled_from(CONTROLS), text)
    plain = st.builds(lambda key, v: {key: v}, st.sampled_from(READ_HEADERS), value)
    escaped = st.just({"HTTP_COOKIE": 'sessionid="' + "a" * 28 + '\\000"'})
    return st.one_of(plain, escaped)


@pytest.mark.slow
def test_no_operation_gives_a_5xx_for_control_characters_in_headers(
    credentials: dict[str, str],
) -> None:
    failures: dict[str, str] = {}
    for result in load_schema().get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy(), bad=control_character_headers())
        @hypothesis_settings(
            max_examples=HEADER_EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            derandomize=True,
            database=None,
        )
        def check(case: Any, bad: dict[str, str]) -> None:
            response = case.call(headers=credentials, environ_overrides=bad)
            content_type = response.headers.get("content-type", [""])[0]
            if response.status_code >= 500 or (
                response.status_code >= 400 and not content_type.startswith("application/json")
            ):
                key = f"{case.method} {case.operation.path} {sorted(bad)} → {response.status_code}"
                failures.setdefault(key, f"{bad!r}: {response.text[:200]}")

        check()
    assert not failures, f"{len(failures)} distinct failures:\n" + "\n".join(
        f"{key}\n    {detail}" for key, detail in failures.items()
    )
