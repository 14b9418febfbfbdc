"""Issue 13, finding 3: a rating stored just before the database failed is not stored twice.

In the PostgreSQL restart of the finding, two ratings were committed but answered with a
500 page. The rating is committed in its own transaction before the next scenario is
applied (qoelab.runs.services.rating); here the database fails right after that commit,
where the second transaction starts. The participant gets a 503 JSON answer, retries with
the same idempotency key, and gets the stored rating back (200, ``created: false``): one
rating, and the session goes on.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import OperationalError
from rest_framework.test import APIClient

from qoelab.ratings.models import Rating
from qoelab.runs.models import Session
from qoelab.runs.services import rating as rating_service
from qoelab.runs.state_machine import State
from qoelab.runs.tests.lab import Lab, fill_questionnaire, participant_view, rate
from qoelab.studies.models import Study
from qoelab.testing import DryRunAgent


@pytest.mark.slow
@pytest.mark.django_db
def test_a_rating_answered_503_after_its_commit_is_not_duplicated_on_retry(
    researcher_client: APIClient,
    owned_example_study: Study,
    dry_run_agent: DryRunAgent,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lab = Lab(researcher_client)
    station = lab.station("Seat", dry_run_agent.url, dry_run_agent.token)
    person = lab.participant(owned_example_study.pk, "P1")
    game = owned_example_study.games.first()
    assert game is not None
    session = lab.session(person["id"], game.pk, station["id"])
    sid = session["id"]
    lab.post(f"/api/v1/sessions/{sid}/start/")
    screen = lab.screen(session)
    fill_questionnaire(screen, sid)
    lab.post(f"/api/v1/sessions/{sid}/advance/")
    lab.post(f"/api/v1/sessions/{sid}/advance/")

    def database_gone(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("server closed the connection unexpectedly")

    with monkeypatch.context() as patch:
        patch.setattr(rating_service, "apply_current_scenario", database_gone)
        lost = rate(screen, sid, 4, 1, key="outage-retry-0001")
    assert lost.status_code == 503
    assert lost["Retry-After"] == "5"
    assert lost.json()["request_id"] == lost["X-Request-ID"]
    assert Rating.objects.filter(session_id=sid).count() == 1  # committed before the failure

    again = rate(screen, sid, 4, 1, key="outage-retry-0001")
    assert again.status_code == 200, again.content
    assert again.json()["created"] is False
    assert Rating.objects.filter(session_id=sid).count() == 1
    # The next poll applies the scenario that the failure left pending.
    view = participant_view(screen, sid)
    assert view["position"] == 2
    assert Session.objects.get(pk=sid).state == State.PLAYING
    assert len(dry_run_agent.applied_profiles()) == 2
