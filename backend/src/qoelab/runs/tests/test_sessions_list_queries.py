"""The researcher's sessions list reads a constant number of queries, whatever its length
(issue 30: it ran one scenario query per session for ``current_scenario``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from qoelab.participants.models import Participant
from qoelab.runs.models import Session
from qoelab.runs.services import create_session
from qoelab.runs.state_machine import State
from qoelab.studies.models import Study


def rating_sessions(study: Study, count: int, first: int) -> None:
    """``count`` sessions waiting for a rating, each at another scenario of its order."""
    game = study.games.order_by("pk").first()
    assert game is not None
    for n in range(first, first + count):
        participant = Participant.objects.create(study=study, code=f"Q{n}")
        session = create_session(study=study, participant=participant, game=game, station=None)
        Session.objects.filter(pk=session.pk).update(
            state=State.RATING, current_index=n % len(session.order)
        )


def listed(client: APIClient, study: Study) -> tuple[list[dict[str, Any]], int]:
    """The sessions list of ``study`` and the number of queries it took."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/api/v1/sessions/?study={study.pk}")
    assert response.status_code == 200, response.content
    body = response.json()
    rows: list[dict[str, Any]] = body["results"] if isinstance(body, dict) else body
    return rows, len(queries)


@pytest.mark.django_db
def test_the_sessions_list_takes_as_many_queries_for_two_sessions_as_for_seven(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    study = owned_example_study
    rating_sessions(study, 2, first=0)
    rows, few = listed(researcher_client, study)
    assert len(rows) == 2
    rating_sessions(study, 5, first=2)
    rows, many = listed(researcher_client, study)
    assert len(rows) == 7
    assert many == few, (few, many)
    for row in rows:
        session = Session.objects.get(pk=row["id"])
        entry = session.order[session.current_index]
        current = row["current_scenario"]
        assert (current["id"], current["code"]) == (entry["scenario"], entry["code"])
        assert current["requested_profile"] is not None
