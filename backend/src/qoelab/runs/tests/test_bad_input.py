"""Acceptance 3: bad input to every write endpoint → 4xx with a message, database unchanged."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from qoelab.exports.tests.import_helpers import refused
from qoelab.ratings.models import Rating
from qoelab.runs.models import Session
from qoelab.runs.tests.db_snapshot import snapshot
from qoelab.runs.tests.lab import Lab, fill_questionnaire, participant_view
from qoelab.studies.models import Study
from qoelab.testing import AgentDouble


def message_of(response: Any) -> str:
    body = response.json()
    return str(body)


def rejected(call: Callable[[], Any], status: int | tuple[int, ...], *words: str) -> Any:
    before = snapshot()
    response = call()
    statuses = status if isinstance(status, tuple) else (status,)
    assert response.status_code in statuses, (response.status_code, response.content)
    text = message_of(response)
    for word in words:
        assert word in text, (word, text)
    assert snapshot() == before, "the database changed"
    return response


@pytest.fixture
def neutral_agent() -> Any:
    neutral = {"delay_ms": 0.0, "jitter_ms": 0.0, "loss_pct": 0.0}
    double = AgentDouble({"upstream": neutral, "downstream": neutral}).start()
    yield double
    double.stop()


@pytest.fixture
def lab(researcher_client: APIClient, example_study: Study) -> Lab:
    example_study.owner = researcher_client.handler._force_user  # type: ignore[attr-defined]
    example_study.save()
    return Lab(researcher_client)


@pytest.mark.django_db
def test_study_game_and_scenario_writes(lab: Lab, example_study: Study) -> None:
    c = lab.researcher
    sid = example_study.pk
    rejected(lambda: c.post("/api/v1/studies/", {"title": "x"}, format="json"), 400, "slug")
    rejected(
        lambda: c.post(
            "/api/v1/studies/",
            {"slug": "s2", "title": "t", "scale_labels": ["only-one"]},
            format="json",
        ),
        400,
        "scale_labels",
    )
    rejected(
        lambda: c.patch(
            f"/api/v1/studies/{sid}/",
            {"questionnaire": [{"key": "age", "phase": "post", "kind": "text", "text": "?"}]},
            format="json",
        ),
        400,
        "built-in",
    )
    rejected(
        lambda: c.patch(f"/api/v1/studies/{sid}/", {"seconds_per_scenario": 1}, format="json"),
        400,
        "seconds_per_scenario",
    )
    rejected(
        lambda: c.post(
            "/api/v1/games/",
            {"study": sid, "name": "Gran Turismo HD Concept", "pace": "fast"},
            format="json",
        ),
        400,
        "already has a game",
    )
    rejected(
        lambda: c.post(
            "/api/v1/games/", {"study": sid, "name": "X", "pace": "warp"}, format="json"
        ),
        400,
        "pace",
    )
    rejected(
        lambda: c.post(
            "/api/v1/games/", {"study": 999, "name": "X", "pace": "fast"}, format="json"
        ),
        400,
        "study",
    )
    rejected(
        lambda: c.post(
            "/api/v1/scenarios/",
            {"study": sid, "code": "J1", "upstream": {"delay_ms": 10, "jitter_ms": 3000}},
            format="json",
        ),
        400,
        "upstream.jitter_ms",
        "at most 2147 ms",
    )
    rejected(
        lambda: c.post("/api/v1/scenarios/", {"study": sid, "code": "D1"}, format="json"),
        400,
        "already has a scenario D1",
    )
    rejected(
        lambda: c.post(
            "/api/v1/scenarios/", {"study": sid, "code": "B2", "is_baseline": True}, format="json"
        ),
        400,
        "baseline",
    )
    rejected(
        lambda: c.post(
            "/api/v1/scenarios/",
            {"study": sid, "code": "L9", "downstream": {"loss_pct": 101}},
            format="json",
        ),
        400,
        "downstream.loss_pct",
        "greater than the maximum of 100",
    )
    rejected(
        lambda: c.post("/api/v1/scenarios/", {"study": sid, "code": "lower"}, format="json"),
        400,
        "code",
    )
    baseline = example_study.active_scenarios().get(is_baseline=True)
    rejected(lambda: c.delete(f"/api/v1/scenarios/{baseline.pk}/"), 409, "baseline")
    # Someone else's study: 403, and anonymous writes are refused too.
    other = APIClient()
    other.force_authenticate(get_user_model().objects.create_user("bob", password="bob-pw-123"))
    rejected(
        lambda: other.patch(f"/api/v1/studies/{sid}/", {"title": "mine"}, format="json"),
        403,
        "owner",
    )
    rejected(lambda: APIClient().delete(f"/api/v1/studies/{sid}/"), (401, 403))


@pytest.mark.django_db
def test_station_and_participant_writes(lab: Lab, example_study: Study) -> None:
    c = lab.researcher
    rejected(
        lambda: c.post(
            "/api/v1/stations/",
            {"name": "S", "agent_url": "ftp://x", "agent_token": "0123456789abcdef"},
            format="json",
        ),
        400,
        "agent_url",
    )
    rejected(
        lambda: c.post(
            "/api/v1/stations/",
            {"name": "S", "agent_url": "http://127.0.0.1:1", "agent_token": "short"},
            format="json",
        ),
        400,
        "agent_token",
    )
    lab.participant(example_study.pk, "P1")
    rejected(
        lambda: c.post(
            "/api/v1/participants/", {"study": example_study.pk, "code": "P1"}, format="json"
        ),
        400,
        "already has a participant",
    )
    rejected(
        lambda: c.post(
            "/api/v1/participants/",
            {"study": example_study.pk, "code": "Jane Doe <jane@example.org>"},
            format="json",
        ),
        400,
        "code",
    )
    rejected(
        lambda: c.post(
            "/api/v1/participants/", {"study": example_study.pk, "age": 7}, format="json"
        ),
        400,
        "age",
    )
    rejected(
        lambda: c.post(
            "/api/v1/participants/", {"study": example_study.pk, "skill": "expert"}, format="json"
        ),
        400,
        "skill",
    )


@pytest.mark.django_db
def test_session_writes(lab: Lab, example_study: Study, neutral_agent: AgentDouble) -> None:
    c = lab.researcher
    other_study = Study.objects.create(slug="other", title="Other", owner=example_study.owner)
    foreign_game = other_study.games.create(name="Other game", pace="slow")
    person = lab.participant(example_study.pk, "P1")
    game = example_study.games.first()
    assert game is not None
    rejected(
        lambda: c.post(
            "/api/v1/sessions/",
            {"participant": person["id"], "game": foreign_game.pk},
            format="json",
        ),
        400,
        "another study",
    )
    rejected(
        lambda: c.post("/api/v1/sessions/", {"participant": 999, "game": game.pk}, format="json"),
        400,
        "participant",
    )
    station = lab.station("Seat", neutral_agent.url, "double-token-0123456789")
    session = lab.session(person["id"], game.pk, station["id"])
    sid = session["id"]
    rejected(
        lambda: c.post(
            "/api/v1/sessions/", {"participant": person["id"], "game": game.pk}, format="json"
        ),
        409,
        "already has a session",
    )
    screen = lab.screen(session)
    # Wrong state for every step before the session starts.
    rejected(lambda: c.post(f"/api/v1/sessions/{sid}/pause/", {}, format="json"), 409, "running")
    rejected(lambda: c.post(f"/api/v1/sessions/{sid}/resume/"), 409, "paused")
    rejected(
        lambda: screen.post(
            f"/api/v1/participant/sessions/{sid}/questionnaire/",
            {"consent": True, "skill": "low", "genre_preference": True},
            format="json",
        ),
        409,
        "questionnaire",
    )
    rejected(
        lambda: screen.post(
            f"/api/v1/participant/sessions/{sid}/rate/",
            {"score": 3, "position": 1, "idempotency_key": "abcdefgh1"},
            format="json",
        ),
        409,
        "state rating",
    )
    rejected(
        lambda: c.post(f"/api/v1/sessions/{sid}/post-questions/", {"answers": {}}, format="json"),
        409,
        "post-session",
    )
    lab.post(f"/api/v1/sessions/{sid}/start/")
    rejected(lambda: c.post(f"/api/v1/sessions/{sid}/start/"), 409, "already")
    rejected(lambda: c.post(f"/api/v1/sessions/{sid}/advance/"), 409, "questionnaire")
    # Questionnaire: consent, skill, the genre question are required and checked.
    q = f"/api/v1/participant/sessions/{sid}/questionnaire/"
    rejected(
        lambda: screen.post(q, {"skill": "low", "genre_preference": True}, format="json"),
        400,
        "consent",
    )
    rejected(
        lambda: screen.post(
            q, {"consent": True, "skill": "pro", "genre_preference": True}, format="json"
        ),
        400,
        "skill",
    )
    rejected(
        lambda: screen.post(
            q,
            {"consent": True, "skill": "low", "genre_preference": True, "answers": {"x": 1}},
            format="json",
        ),
        400,
        "unknown question",
    )
    fill_questionnaire(screen, sid)
    lab.post(f"/api/v1/sessions/{sid}/advance/")  # → playing scenario 1
    r = f"/api/v1/participant/sessions/{sid}/rate/"
    rejected(
        lambda: screen.post(
            r, {"score": 3, "position": 1, "idempotency_key": "abcdefgh2"}, format="json"
        ),
        409,
        "playing",
    )  # the rating comes after the play period
    lab.post(f"/api/v1/sessions/{sid}/advance/")  # → rating
    for body, status, word in [
        ({"score": 6, "position": 1, "idempotency_key": "abcdefgh3"}, 400, "from 1 to 5"),
        ({"score": 0, "position": 1, "idempotency_key": "abcdefgh4"}, 400, "from 1 to 5"),
        ({"score": "good", "position": 1, "idempotency_key": "abcdefgh5"}, 400, "score"),
        ({"score": 4, "position": 1}, 400, "idempotency_key"),
        ({"score": 4, "position": 1, "idempotency_key": "short"}, 400, "idempotency_key"),
        ({"score": 4, "position": 2, "idempotency_key": "abcdefgh6"}, 409, "stale"),
    ]:
        rejected(lambda body=body: screen.post(r, body, format="json"), status, word)
    # The researcher names a scenario: an unknown one, or one that is not being rated.
    rr = f"/api/v1/sessions/{sid}/rate/"
    rejected(
        lambda: c.post(
            rr,
            {"score": 4, "position": 1, "idempotency_key": "abcdefgh7", "scenario": 99999},
            format="json",
        ),
        400,
        "not a scenario of this study",
    )
    not_current = example_study.active_scenarios().exclude(is_baseline=True).first()
    assert not_current is not None
    rejected(
        lambda: c.post(
            rr,
            {"score": 4, "position": 1, "idempotency_key": "abcdefgh8", "scenario": not_current.pk},
            format="json",
        ),
        400,
        "not the scenario being rated",
    )
    assert participant_view(screen, sid)["step"] == "rating"
    rejected(lambda: c.delete(f"/api/v1/sessions/{sid}/"), 409, "not started")
    assert Session.objects.get(pk=sid).state == "rating"


@pytest.mark.usefixtures("tasks_in_process")
@pytest.mark.django_db
def test_import_rejects_a_bad_file_whole(lab: Lab, example_study: Study) -> None:
    c = lab.researcher
    url = f"/api/v1/studies/{example_study.pk}/import/"
    header = (
        "rater_id,session_id,game,game_pace,scenario,ds_delay_ms,us_delay_ms,ds_loss_pct,"
        "us_loss_pct,rating\n"
    )
    good = "R1,s1,Gran Turismo HD Concept,fast,D1,80,80,0,0,4\n"

    def post(text: str) -> Any:
        return c.generic("POST", url, text.encode(), content_type="text/csv")

    cases = [
        ("", "empty"),
        ("a,b\n1,2\n", "required column"),
        (header + good + "R1,s1,Gran Turismo HD Concept,fast,D1,80,80,0,0,4\n", "line 3"),
        (header + good + "R2,s2,Gran Turismo HD Concept,fast,ZZ,0,0,0,0,3\n", "line 3: scenario"),
        (header + good + "R2,s2,Gran Turismo HD Concept,fast,D2,200,200,0,0,9\n", "line 3: rating"),
        (header + good + "R2,s2,Gran Turismo HD Concept,fast,D2,200,200,0,0,x\n", "line 3: rating"),
        (header + good + "R2,s2,Gran Turismo HD Concept,fast,D2,1,200,0,0,3\n", "does not match"),
        (header + good + "R2,s2,Tetris,fast,D2,200,200,0,0,3\n", "line 3: game"),
        (header + good + "R2,s2,Gran Turismo HD Concept,slow,D2,200,200,0,0,3\n", "game_pace"),
        (header + good + "R2,s2,Gran Turismo HD Concept,fast,D2,200\n", "line 3"),
        (header + good + 'R2,s2,"Gran Turismo,fast,D2,200,200,0,0,3\n', "line"),
        (
            header.replace("rating\n", "rating,shoe_size\n") + good.replace("4\n", "4,42\n"),
            "unknown column",
        ),
    ]
    # Refused before any job exists (400): not CSV at all, or nothing in it.
    at_once = {"", header + good + 'R2,s2,"Gran Turismo,fast,D2,200,200,0,0,3\n'}
    for text, word in cases:
        if text in at_once:
            rejected(lambda text=text: post(text), 400, word)
        else:  # the job fails, naming the line; nothing but the failed job is stored
            refused(c, example_study, text, word)
    rejected(lambda: c.post(url, {}, format="multipart"), 400, "file")
    # The good file is imported; sent again, the answer is its job (200), nothing doubles.
    first = post(header + good)
    assert first.status_code == 202 and first.json()["state"] == "succeeded", first.content
    again = post(header + good)
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    assert Rating.objects.filter(session__study=example_study).count() == 1
    # Another file with the same session is refused whole.
    refused(c, example_study, header + good.replace(",4\n", ",5\n"), "already has a session")


@pytest.mark.django_db
def test_analysis_without_ratings_is_refused(lab: Lab, example_study: Study) -> None:
    response = rejected(
        lambda: lab.researcher.post(
            f"/api/v1/studies/{example_study.pk}/analysis/", {}, format="json"
        ),
        400,
        "no ratings",
    )
    # The explorer tells "nothing to analyse yet" from a bad request by this code.
    assert response.json()["code"] == "no_ratings"
    rejected(
        lambda: lab.researcher.post(
            f"/api/v1/studies/{example_study.pk}/analysis/",
            {"reliable_only": "maybe"},
            format="json",
        ),
        400,
        "reliable_only",
    )
