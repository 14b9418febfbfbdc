"""An analysis-only study (imported from a dataset) is never run at a station: creating
or starting a session is refused (409) with a message that says why; its study detail
says that it is analysis-only, and no request can change that."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from qoelab.participants.models import Participant
from qoelab.runs.models import DATASET_ORDER, Session
from qoelab.studies.models import Game, Scenario, Study

pytestmark = pytest.mark.django_db

REFUSAL = "is analysis-only (imported from a dataset): it cannot be run at a station"


@pytest.fixture
def imported(researcher: object) -> Study:
    study = Study.objects.create(
        slug="imported", title="Imported", owner=researcher, analysis_only=True
    )
    Game.objects.create(study=study, name="Racing", pace="fast")
    Scenario.objects.create(study=study, code="C0001", is_baseline=True)
    Participant.objects.create(study=study, code="wired-a.Player_1")
    return study


def test_a_session_of_an_analysis_only_study_is_refused(
    researcher_client: APIClient, imported: Study
) -> None:
    body = {"participant": imported.participants.get().pk, "game": imported.games.get().pk}
    response = researcher_client.post("/api/v1/sessions/", body, format="json")
    assert response.status_code == 409, response.content
    assert response.json() == {
        "detail": f"study 'Imported' {REFUSAL}; create a lab study to collect new ratings",
        "field": "study",
    }
    assert not Session.objects.exists()
    Study.objects.filter(pk=imported.pk).update(analysis_only=False)  # the same, runnable
    assert researcher_client.post("/api/v1/sessions/", body, format="json").status_code == 201


def test_starting_a_session_of_an_analysis_only_study_is_refused(
    researcher_client: APIClient, imported: Study
) -> None:
    session = Session.objects.create(
        study=imported,
        study_version=1,
        participant=imported.participants.get(),
        game=imported.games.get(),
        order_policy="random",
        seed=1,
        order=[],
    )
    response = researcher_client.post(f"/api/v1/sessions/{session.pk}/start/")
    assert response.status_code == 409, response.content
    assert REFUSAL in response.json()["detail"]
    session.refresh_from_db()
    assert session.state == "created"


def test_the_flag_is_shown_and_read_only(researcher_client: APIClient, imported: Study) -> None:
    url = f"/api/v1/studies/{imported.pk}/"
    assert researcher_client.get(url).json()["analysis_only"] is True
    response = researcher_client.patch(url, {"analysis_only": False}, format="json")
    assert response.status_code == 200 and response.json()["analysis_only"] is True
    assert researcher_client.get(url).json()["analysis_only"] is True
    created = researcher_client.post(
        "/api/v1/studies/", {"slug": "lab", "title": "Lab", "analysis_only": True}, format="json"
    )
    assert created.status_code == 201 and created.json()["analysis_only"] is False


def test_a_dataset_rater_may_play_a_game_in_several_sessions(imported: Study) -> None:
    """The one-session-per-game rule is a lab's; a dataset's sessions are exempt."""
    person, game = imported.participants.get(), imported.games.get()
    for _ in range(2):
        Session.objects.create(
            study=imported,
            study_version=1,
            participant=person,
            game=game,
            order_policy=DATASET_ORDER,
            seed=0,
            order=[],
            state="completed",
        )
    assert Session.objects.filter(participant=person, game=game).count() == 2
