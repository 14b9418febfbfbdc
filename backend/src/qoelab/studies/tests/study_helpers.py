"""Helpers shared by the study API tests: an owned study, a second researcher, a lock."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from rest_framework.test import APIClient

from qoelab.participants.models import Participant
from qoelab.runs.services import create_session
from qoelab.studies.models import Study

#: A Gilbert–Elliott burst-loss model with every field set.
BURST = {"p_pct": 5.0, "r_pct": 40.0, "loss_bad_pct": 100.0, "loss_good_pct": 0.0}


def own(client: APIClient, study: Study) -> Study:
    study.owner = client.handler._force_user  # type: ignore[attr-defined]
    study.save()
    return study


def other_researcher() -> APIClient:
    client = APIClient()
    client.force_authenticate(get_user_model().objects.create_user("bob", password="bob-pw-123"))
    return client


def lock(study: Study) -> None:
    """A session makes the study's scenario rows immutable (see versioning)."""
    participant = Participant.objects.create(study=study, code="P1", age=30)
    game = study.games.first()
    assert game is not None
    create_session(study=study, participant=participant, game=game, station=None)
