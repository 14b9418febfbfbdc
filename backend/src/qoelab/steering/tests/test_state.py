"""``GET /steering-services/{id}/state/`` against a real HTTP server playing the daemon:
a good document passes through validated; anything else is a 502/504 JSON naming what
failed, and the token only ever goes to the service's URL."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from qoelab.steering import status_client
from qoelab.steering.models import SteeringService
from qoelab.steering.tests.documents import good
from qoelab.steering.tests.status_server import TOKEN, status_server


@pytest.fixture
def alice(db: Any) -> Any:
    return get_user_model().objects.create_user("alice", password="alice-password-1")


def state(user: Any, url: str, token: str = TOKEN) -> Any:
    service = SteeringService.objects.create(
        owner=user, name=f"s{SteeringService.objects.count()}", status_url=url, token=token
    )
    client = APIClient()
    client.force_authenticate(user)
    return client.get(f"/api/v1/steering-services/{service.pk}/state/")


def test_a_good_document_is_returned_validated(alice: Any) -> None:
    document = good()
    document["extra"] = "not in the contract"
    with status_server(document) as server:
        response = state(alice, server.url)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["round_trip_ms"] >= 0 and body["fetched_at_unix"] > 0
    status = body["status"]
    assert "extra" not in status  # keys outside the contract are dropped
    assert status["classes"][0]["class"] == "cloud-gaming.fast"
    assert status["classes"][0]["flows"][0]["active_path"] == "b"
    assert status["paths"][0]["measurement"]["upstream"]["delay_ms_p95"] == 95.0
    assert status["events"][-1]["class"] == "cloud-gaming.fast"
    assert server.requests == [("/v1/status", f"Bearer {TOKEN}")]


def _break(document: dict[str, Any], how: str) -> str:
    """Spoil ``document`` one way; return the field the refusal must name."""
    if how == "string delay":
        document["paths"][1]["measurement"]["upstream"]["delay_ms_p95"] = "21"
        return "paths[1].measurement.upstream.delay_ms_p95"
    if how == "missing bounds":
        del document["classes"][0]["bounds"]["downstream"]
        return "classes[0].bounds.downstream"
    if how == "unknown actuator":
        document["actuator"]["kind"] = "p4"
        return "actuator.kind"
    if how == "unknown path":
        document["classes"][0]["flows"][0]["active_path"] = "c"
        return "classes[0].flows[0].active_path"
    if how == "bool sent":
        document["paths"][0]["measurement"]["downstream"]["sent"] = True
        return "paths[0].measurement.downstream.sent"
    if how == "event kind":
        document["events"][1]["kind"] = "teleport"
        return "events[1].kind"
    if how == "acceptable path not a string":
        document["classes"][0]["acceptable_paths"] = [3]
        return "classes[0].acceptable_paths[0]"
    raise AssertionError(how)


@pytest.mark.parametrize(
    "how",
    [
        "string delay",
        "missing bounds",
        "unknown actuator",
        "unknown path",
        "bool sent",
        "event kind",
        "acceptable path not a string",
    ],
)
def test_a_malformed_document_is_a_502_naming_the_field(alice: Any, how: str) -> None:
    document = good()
    field = _break(document, how)
    with status_server(document) as server:
        response = state(alice, server.url)
    assert response.status_code == 502
    body = response.json()
    assert body["failure"] == "malformed"
    assert body["field"] == field
    assert field in body["detail"]


def test_non_json_and_nan_are_502(alice: Any) -> None:
    with status_server() as server:
        server.body = b"<html>hello</html>"
        first = state(alice, server.url)
        server.body = b'{"service": NaN}'
        second = state(alice, server.url)
    assert first.status_code == 502 and first.json()["failure"] == "not_json"
    assert second.status_code == 502 and second.json()["failure"] == "not_json"


def test_a_wrong_token_is_a_502_saying_unauthorized(alice: Any) -> None:
    with status_server(good()) as server:
        response = state(alice, server.url, token="not-the-daemon-token-000")
    assert response.status_code == 502
    assert response.json()["failure"] == "unauthorized"
    assert "HTTP 401" in response.json()["detail"]


def test_a_slow_service_is_a_504(alice: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(status_client, "STATE_TIMEOUT_S", 0.2)
    with status_server(good()) as server:
        server.delay_s = 1.0
        response = state(alice, server.url)
    assert response.status_code == 504
    assert response.json()["failure"] == "timeout"
    assert "did not answer within 0.2 s" in response.json()["detail"]


def test_nothing_listening_is_a_502_refused(alice: Any) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    response = state(alice, f"http://127.0.0.1:{port}")
    assert response.status_code == 502
    assert response.json()["failure"] == "refused"


def test_plain_http_to_another_machine_is_not_contacted(alice: Any, settings: Any) -> None:
    settings.QOELAB_AGENT_ALLOW_PLAIN_HTTP = False
    # Stored before the rule changed: the token must still not travel in clear.
    response = state(alice, "http://192.0.2.1:8790")
    assert response.status_code == 502 and response.json()["failure"] == "plain_http"


def test_an_oversized_answer_is_not_read(alice: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(status_client, "MAX_STATUS_BYTES", 1000)
    with status_server(good()) as server:
        response = state(alice, server.url)
    assert response.status_code == 502 and response.json()["failure"] == "too_large"
