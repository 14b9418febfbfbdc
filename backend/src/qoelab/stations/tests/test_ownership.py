"""Issue 13, finding 1 ("Station takeover"): stations are owned, changed only by their owner
(or staff) and never while a session runs; the token goes only to the URL it was given
for. The attacker's URL is a real local listener that counts the requests reaching it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from qoelab.participants.models import Participant
from qoelab.runs.models import Session
from qoelab.runs.services import create_session, start
from qoelab.stations.models import Station
from qoelab.stations.tests.listener import listening
from qoelab.studies.models import Study
from qoelab.studies.study_document import load_study_document, read_study_document

TOKEN = "owner-station-token-0123456789"
NEW_TOKEN = "another-station-token-9876543210"


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def bob(db: Any) -> Any:
    return get_user_model().objects.create_user("bob", password="bob-password-1")


@pytest.fixture
def staff(db: Any) -> Any:
    return get_user_model().objects.create_user("sam", password="sam-password-1", is_staff=True)


def create_station(client: APIClient, url: str, **extra: Any) -> dict[str, Any]:
    body = {"name": "Seat 1", "agent_url": url, "agent_token": TOKEN, **extra}
    response = client.post("/api/v1/stations/", body, format="json")
    assert response.status_code == 201, response.content
    result: dict[str, Any] = response.json()
    return result


def run_session_on(station_id: int, study: Study) -> Session:
    """A session of ``study`` on the station, started (it holds the station from now on)."""
    participant = Participant.objects.create(study=study, code="P1", age=30)
    game = study.games.first()
    assert game is not None
    station = Station.objects.get(pk=station_id)
    session = create_session(study=study, participant=participant, game=game, station=station)
    return start(session.pk)


def attempts(client: APIClient, station_id: int, url: str) -> dict[str, int]:
    """Every way to change or use the station's agent, as the attacker would try them."""
    path = f"/api/v1/stations/{station_id}/"
    return {
        "patch": client.patch(path, {"agent_url": url}, format="json").status_code,
        "patch+token": client.patch(
            path, {"agent_url": url, "agent_token": NEW_TOKEN}, format="json"
        ).status_code,
        "put": client.put(
            path, {"name": "Mine", "agent_url": url, "agent_token": NEW_TOKEN}, format="json"
        ).status_code,
        "check": client.post(f"{path}check/").status_code,
        "apply-baseline": client.post(f"{path}apply-baseline/").status_code,
        "delete": client.delete(path).status_code,
    }


@pytest.mark.django_db
def test_station_takeover_by_a_second_researcher_is_refused_and_nothing_reaches_his_url(
    researcher: Any, bob: Any, owned_example_study: Study
) -> None:
    alice = client_for(researcher)
    with listening() as owners_agent, listening() as attackers:
        seat = create_station(alice, owners_agent.url)
        assert seat["owner"] == "alice" and seat["shared"] is False and seat["can_change"]
        session = run_session_on(seat["id"], owned_example_study)
        intruder = client_for(bob)

        # Not shared: the station does not exist for bob.
        assert bob_sees(intruder) == []
        assert attempts(intruder, seat["id"], attackers.url) == dict.fromkeys(
            ["patch", "patch+token", "put", "check", "apply-baseline", "delete"], 404
        )

        # Shared: bob may see it (read-only) but still not change, check or test it.
        Station.objects.filter(pk=seat["id"]).update(shared=True)
        assert [(s["name"], s["can_change"]) for s in bob_sees(intruder)] == [("Seat 1", False)]
        refused = attempts(intruder, seat["id"], attackers.url)
        assert refused == dict.fromkeys(refused, 403), refused
        detail = intruder.patch(
            f"/api/v1/stations/{seat['id']}/", {"notes": "x"}, format="json"
        ).json()["detail"]
        assert detail.startswith("station 'Seat 1' may be changed, checked or tested only by")

        # The owner herself cannot change it while her session runs.
        busy = attempts(alice, seat["id"], attackers.url)
        assert busy == dict.fromkeys(busy, 409), busy
        answer = alice.patch(f"/api/v1/stations/{seat['id']}/", {"notes": "x"}, format="json")
        assert answer.json() == {
            "detail": f"station 'Seat 1' is busy with session {session.pk} (questionnaire); "
            "it cannot be changed until the session ends"
        }

        assert attackers.requests == []
        assert owners_agent.requests == []
    station = Station.objects.get(pk=seat["id"])
    assert (station.agent_url, station.agent_token) == (owners_agent.url, TOKEN)
    assert station.agent_capabilities is None and station.last_checked_at is None
    assert station.notes == ""


def bob_sees(client: APIClient) -> list[dict[str, Any]]:
    response = client.get("/api/v1/stations/")
    assert response.status_code == 200
    result: list[dict[str, Any]] = response.json()
    return result


@pytest.mark.django_db
def test_a_new_agent_url_needs_the_token_in_the_same_request(researcher: Any) -> None:
    alice = client_for(researcher)
    with listening() as first, listening() as second:
        seat = create_station(alice, first.url)
        path = f"/api/v1/stations/{seat['id']}/"

        response = alice.patch(path, {"agent_url": second.url}, format="json")
        assert response.status_code == 400
        assert "agent_token" in json.dumps(response.json())
        assert "only ever sent to the URL it was given for" in json.dumps(response.json())
        # The same URL (also with a trailing slash) and other fields need no token.
        same = alice.patch(path, {"agent_url": first.url + "/", "notes": "n"}, format="json")
        assert same.status_code == 200, same.content

        moved = alice.patch(path, {"agent_url": second.url, "agent_token": NEW_TOKEN})
        assert moved.status_code == 200, moved.content
        assert moved.json()["agent_url"] == second.url
        alice.post(f"{path}check/")
        assert first.requests == []
        assert second.requests == [
            ("/healthz", ""),
            ("/v1/capabilities", f"Bearer {NEW_TOKEN}"),
        ]


@pytest.mark.django_db
def test_lists_show_own_and_shared_stations_and_staff_sees_all(
    researcher: Any, bob: Any, staff: Any
) -> None:
    Station.objects.create(name="A private", agent_url="http://127.0.0.1:9", owner=researcher)
    Station.objects.create(
        name="B shared", agent_url="http://127.0.0.1:9", owner=researcher, shared=True
    )
    Station.objects.create(name="C bob", agent_url="http://127.0.0.1:9", owner=bob)
    legacy = Station.objects.create(name="D legacy", agent_url="http://127.0.0.1:9", shared=True)

    def names(user: Any) -> list[tuple[str, bool]]:
        return [(s["name"], s["can_change"]) for s in bob_sees(client_for(user))]

    assert names(researcher) == [
        ("A private", True),
        ("B shared", True),
        ("D legacy", False),
    ]
    assert names(bob) == [("B shared", False), ("C bob", True), ("D legacy", False)]
    assert [name for name, may in names(staff) if may] == [
        "A private",
        "B shared",
        "C bob",
        "D legacy",
    ]
    # A station without owner: staff only.
    path = f"/api/v1/stations/{legacy.pk}/"
    assert client_for(researcher).patch(path, {"notes": "x"}, format="json").status_code == 403
    assert client_for(staff).patch(path, {"notes": "x"}, format="json").status_code == 200


@pytest.mark.django_db
def test_sessions_run_only_on_stations_the_researcher_may_use(researcher: Any, bob: Any) -> None:
    document = read_study_document(settings.FIXTURES_DIR / "studies" / "cloud-gaming-2014.json")
    study = load_study_document(document).study
    study.owner = bob
    study.save()
    participant = Participant.objects.create(study=study, code="P9", age=30)
    game = study.games.first()
    assert game is not None
    alices = Station.objects.create(name="Alice", agent_url="http://127.0.0.1:9", owner=researcher)
    body = {"participant": participant.pk, "game": game.pk, "station": alices.pk}

    refused = client_for(bob).post("/api/v1/sessions/", body, format="json")
    assert refused.status_code == 403
    assert "not shared" in refused.json()["detail"]
    assert not Session.objects.exists()

    alices.shared = True
    alices.save()
    created = client_for(bob).post("/api/v1/sessions/", body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["station"] == alices.pk


@pytest.mark.django_db
def test_ensure_station_gives_the_station_an_owner(researcher: Any) -> None:
    args = ["ensure_station", "--name", "Seat 1", "--agent-url", "http://127.0.0.1:9"]
    call_command(*args, f"--token={TOKEN}", "--if-absent")
    assert Station.objects.get(name="Seat 1").owner is None
    # A station from before ownership is adopted by --owner; an owned one keeps its owner.
    call_command(*args, f"--token={TOKEN}", "--if-absent", "--owner", "alice")
    assert Station.objects.get(name="Seat 1").owner == researcher
    get_user_model().objects.create_user("carol")
    call_command(*args, f"--token={TOKEN}", "--if-absent", "--owner", "carol")
    assert Station.objects.get(name="Seat 1").owner == researcher

    call_command(*args[:2], "Seat 2", *args[3:], f"--token={TOKEN}", "--owner", "carol", "--shared")
    seat2 = Station.objects.get(name="Seat 2")
    assert seat2.owner is not None and seat2.owner.get_username() == "carol" and seat2.shared
    with pytest.raises(CommandError, match="--owner: no user 'nobody'"):
        call_command(*args, f"--token={TOKEN}", "--owner", "nobody")
