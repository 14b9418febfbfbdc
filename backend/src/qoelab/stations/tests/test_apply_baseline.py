"""POST /stations/{id}/apply-baseline/: the neutral profile through the real agent client."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.participants.models import Participant
from qoelab.runs.models import Session
from qoelab.runs.services import create_session, start
from qoelab.stations.models import Station
from qoelab.studies.models import Study
from qoelab.testing import AgentDouble, DryRunAgent, free_port

ZERO = {"delay_ms": 0.0, "jitter_ms": 0.0, "loss_pct": 0.0}


def station_for(
    url: str, owner: Any, token: str = "station-token-0123456789", name: str = "Seat 1"
) -> Station:
    return Station.objects.create(name=name, agent_url=url, agent_token=token, owner=owner)


def apply(client: APIClient, station: Station) -> Any:
    return client.post(f"/api/v1/stations/{station.pk}/apply-baseline/")


@pytest.mark.slow
@pytest.mark.django_db
def test_the_dry_run_agent_installs_and_verifies_the_neutral_profile(
    researcher_client: APIClient, researcher: Any, dry_run_agent: DryRunAgent
) -> None:
    station = station_for(dry_run_agent.url, researcher, dry_run_agent.token)
    # An impairment left over (e.g. by hand): the test replaces it with the baseline.
    dry_run_agent.request(
        "PUT",
        "/v1/profile",
        {"profile": {"upstream": {"delay_ms": 50.0}, "downstream": {}}, "lease_seconds": 30},
    )

    response = apply(researcher_client, station)

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["requested_profile"] == {"upstream": ZERO, "downstream": ZERO}
    assert body["verified_profile"] == {"upstream": ZERO, "downstream": ZERO}
    assert body["installed"]["upstream"]["delay_ms"] == 0.0
    assert body["backend"] == "dry-run"
    assert set(body["kernel"]) == {"upstream", "downstream"}
    assert body["lease_seconds"] == 10.0 and body["lease_expires_at"]
    assert body["station"]["id"] == station.pk and body["station"]["last_check_ok"] is True
    assert (
        "test profile (no impairment) recorded by the agent (nothing was applied to a kernel)"
        in (body["station"]["last_check_message"])
    )
    assert "agent_token" not in body["station"]
    station.refresh_from_db()
    assert station.last_check_ok is True and station.last_checked_at is not None

    # What the dry-run backend recorded: the 50 ms first, then all zeros in both directions.
    profiles = dry_run_agent.applied_profiles()
    assert profiles[0]["us_delay_ms"] == 50.0
    assert profiles[-1] == dict.fromkeys(
        [f"{p}_{f}" for p in ("us", "ds") for f in ("delay_ms", "jitter_ms", "loss_pct")], 0.0
    )
    # ... with the short lease, as the agent reports it.
    status = dry_run_agent.request("GET", "/v1/profile")
    assert status["applied"] is True and 0 < status["lease_seconds_remaining"] <= 10


@pytest.fixture
def lying_agent() -> Iterator[AgentDouble]:
    double = AgentDouble({"upstream": {**ZERO, "loss_pct": 2.5}, "downstream": ZERO}).start()
    try:
        yield double
    finally:
        double.stop()


@pytest.mark.django_db
def test_a_different_read_back_is_a_502_and_marks_the_station(
    researcher_client: APIClient, researcher: Any, lying_agent: AgentDouble
) -> None:
    station = station_for(lying_agent.url, researcher)
    response = apply(researcher_client, station)
    assert response.status_code == 502
    detail = response.json()["detail"]
    assert detail.startswith("The agent of station 'Seat 1' could not apply the test profile")
    assert "different state" in detail and "upstream.loss_pct" in detail and "2.5" in detail
    assert ("PUT", "/v1/profile") in lying_agent.requests
    station.refresh_from_db()
    assert station.last_check_ok is False
    assert station.last_check_message.startswith("test profile (no impairment) failed:")


@pytest.mark.slow
@pytest.mark.django_db
def test_a_wrong_token_and_an_unreachable_agent_are_502(
    researcher_client: APIClient, researcher: Any, dry_run_agent: DryRunAgent
) -> None:
    refused = station_for(dry_run_agent.url, researcher, "not-the-agents-token-000", name="Refused")
    response = apply(researcher_client, refused)
    assert response.status_code == 502
    assert "refused PUT /v1/profile (HTTP 401" in response.json()["detail"]

    down = station_for(f"http://127.0.0.1:{free_port()}", researcher, name="Down")
    response = apply(researcher_client, down)
    assert response.status_code == 502
    assert "unreachable" in response.json()["detail"]
    down.refresh_from_db()
    assert down.last_check_ok is False and "unreachable" in down.last_check_message
    # Nothing reached the agent with the wrong token.
    assert dry_run_agent.applied_profiles() == []


@pytest.mark.django_db
def test_a_station_held_by_a_session_is_409_and_the_agent_is_not_called(
    researcher_client: APIClient, researcher: Any, example_study: Study, lying_agent: AgentDouble
) -> None:
    station = station_for(lying_agent.url, researcher)
    participant = Participant.objects.create(study=example_study, code="P1", age=30)
    game = example_study.games.first()
    assert game is not None
    session = create_session(
        study=example_study, participant=participant, game=game, station=station
    )
    # Created but not started: the station is still free.
    assert apply(researcher_client, station).status_code == 502  # (the double lies)
    start(session.pk)
    assert Session.objects.get(pk=session.pk).state == "questionnaire"
    calls = len(lying_agent.requests)

    response = apply(researcher_client, station)

    assert response.status_code == 409
    assert response.json() == {
        "detail": f"station 'Seat 1' is busy with session {session.pk} (questionnaire); "
        "a test profile would replace its impairment"
    }
    assert len(lying_agent.requests) == calls


@pytest.mark.django_db
def test_only_researchers_may_test_a_station() -> None:
    station = station_for("http://127.0.0.1:9", None)
    assert APIClient().post(f"/api/v1/stations/{station.pk}/apply-baseline/").status_code == 403
    assert APIClient().get(f"/api/v1/stations/{station.pk}/apply-baseline/").status_code == 403


@pytest.mark.django_db
def test_unknown_station_is_404(researcher_client: APIClient) -> None:
    assert researcher_client.post("/api/v1/stations/999999/apply-baseline/").status_code == 404
