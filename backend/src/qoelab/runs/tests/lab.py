"""Driving sessions through the HTTP API as a lab does (researcher console + participant)."""

from __future__ import annotations

import uuid
from typing import Any

from rest_framework.test import APIClient

from qoelab.runs.models import Session


class Lab:
    def __init__(self, researcher: APIClient) -> None:
        self.researcher = researcher

    def post(self, path: str, body: Any = None, expect: int | tuple[int, ...] = (200, 201)) -> Any:
        response = self.researcher.post(path, body or {}, format="json")
        expected = expect if isinstance(expect, tuple) else (expect,)
        assert response.status_code in expected, (path, response.status_code, response.content)
        return response.json() if response.content else None

    def station(self, name: str, url: str, token: str) -> dict[str, Any]:
        body = {"name": name, "agent_url": url, "agent_token": token}
        result: dict[str, Any] = self.post("/api/v1/stations/", body, 201)
        return result

    def participant(self, study: int, code: str, age: int = 25) -> dict[str, Any]:
        result: dict[str, Any] = self.post(
            "/api/v1/participants/", {"study": study, "code": code, "age": age}, 201
        )
        return result

    def session(self, participant: int, game: int, station: int | None) -> dict[str, Any]:
        body = {"participant": participant, "game": game, "station": station}
        result: dict[str, Any] = self.post("/api/v1/sessions/", body, 201)
        return result

    def screen(self, session: dict[str, Any]) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_X_PARTICIPANT_TOKEN=session["participant_token"])
        return client


def participant_view(client: APIClient, session_id: int) -> dict[str, Any]:
    response = client.get(f"/api/v1/participant/sessions/{session_id}/")
    assert response.status_code == 200, response.content
    result: dict[str, Any] = response.json()
    return result


def fill_questionnaire(client: APIClient, session_id: int, **extra: Any) -> dict[str, Any]:
    body = {"consent": True, "skill": "medium", "genre_preference": True, **extra}
    response = client.post(
        f"/api/v1/participant/sessions/{session_id}/questionnaire/", body, format="json"
    )
    assert response.status_code == 200, response.content
    result: dict[str, Any] = response.json()
    return result


def answer_post_questions(
    client: APIClient, session_id: int, willing_to_pay: str = "yes", attitude: str = "positive"
) -> dict[str, Any]:
    """The participant's answers after the last scenario; the view it answers with."""
    response = client.post(
        f"/api/v1/participant/sessions/{session_id}/post-questions/",
        {"answers": {"willing_to_pay": willing_to_pay, "attitude": attitude}},
        format="json",
    )
    assert response.status_code == 200, response.content
    result: dict[str, Any] = response.json()
    return result


def rate(
    client: APIClient, session_id: int, score: int, position: int, key: str | None = None
) -> Any:
    return client.post(
        f"/api/v1/participant/sessions/{session_id}/rate/",
        {"score": score, "position": position, "idempotency_key": key or uuid.uuid4().hex},
        format="json",
    )


def state(session_id: int) -> str:
    return Session.objects.get(pk=session_id).state
