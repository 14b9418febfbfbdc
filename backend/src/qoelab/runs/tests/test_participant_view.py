"""The participant's view carries no text of its own: the screen's texts are the client's
in the participant's language (issue 30: an English-only ``message`` no client read)."""

from __future__ import annotations

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from qoelab.participants.models import Participant
from qoelab.runs.services import create_session
from qoelab.studies.models import Study


@pytest.mark.django_db
def test_the_participant_view_has_a_step_and_no_message(example_study: Study) -> None:
    game = example_study.games.order_by("pk").first()
    assert game is not None
    participant = Participant.objects.create(study=example_study, code="P1")
    session = create_session(study=example_study, participant=participant, game=game, station=None)
    screen = APIClient()
    screen.credentials(HTTP_X_PARTICIPANT_TOKEN=session.token)

    response = screen.get(f"/api/v1/participant/sessions/{session.pk}/")

    assert response.status_code == 200, response.content
    view = response.json()
    assert view["step"] == "waiting"
    assert "message" not in view


def test_the_schema_of_the_participant_view_has_no_message() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    properties = schema["components"]["schemas"]["ParticipantView"]["properties"]
    assert "step" in properties and "message" not in properties
