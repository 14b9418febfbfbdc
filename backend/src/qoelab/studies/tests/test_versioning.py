"""Changing a scenario of a study with sessions creates a new version; ratings keep theirs."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from qoelab.participants.models import Participant
from qoelab.ratings.models import Rating
from qoelab.runs.services import create_session
from qoelab.studies.models import Scenario, Study


@pytest.mark.django_db
def test_editing_a_rated_scenario_versions_the_study(
    researcher_client: APIClient, example_study: Study
) -> None:
    example_study.owner = researcher_client.handler._force_user  # type: ignore[attr-defined]
    example_study.save()
    d1 = example_study.active_scenarios().get(code="D1")
    # Without sessions, edits happen in place.
    response = researcher_client.patch(
        f"/api/v1/scenarios/{d1.pk}/", {"label": "renamed"}, format="json"
    )
    assert response.status_code == 200 and response.json()["id"] == d1.pk
    assert Study.objects.get(pk=example_study.pk).version == 1
    # A session with a rating of D1.
    participant = Participant.objects.create(study=example_study, code="P1", age=20)
    game = example_study.games.first()
    assert game is not None
    session = create_session(study=example_study, participant=participant, game=game, station=None)
    rating = Rating.objects.create(
        session=session,
        scenario=d1,
        order_index=1,
        values={"overall": 4},
        rated_at=session.created_at,
        applied_profile={"upstream": d1.direction("us"), "downstream": d1.direction("ds")},
        idempotency_key="k" * 10,
        source="researcher",
    )
    response = researcher_client.patch(
        f"/api/v1/scenarios/{d1.pk}/", {"upstream": {"delay_ms": 90}}, format="json"
    )
    assert response.status_code == 200, response.content
    new = response.json()
    assert new["id"] != d1.pk and new["version"] == 2 and new["upstream"]["delay_ms"] == 90
    assert new["downstream"]["delay_ms"] == 80  # untouched fields carried over
    old = Scenario.objects.get(pk=d1.pk)
    assert old.us_delay_ms == 80 and old.retired_in_version == 2
    rating.refresh_from_db()
    assert rating.scenario_id == d1.pk  # the rating still means 80 ms
    study = researcher_client.get(f"/api/v1/studies/{example_study.pk}/").json()
    assert study["version"] == 2
    assert [s["id"] for s in study["scenarios"] if s["code"] == "D1"] == [new["id"]]
    assert session.order == Session_order(session.pk)
    # Deleting a scenario of a locked study retires it (the row stays for its ratings).
    l1 = example_study.active_scenarios().get(code="L1")
    assert researcher_client.delete(f"/api/v1/scenarios/{l1.pk}/").status_code == 204
    assert Scenario.objects.get(pk=l1.pk).retired_in_version == 3
    # The rating scale can no longer change.
    response = researcher_client.patch(
        f"/api/v1/studies/{example_study.pk}/", {"scale_labels": ["no", "yes"]}, format="json"
    )
    assert response.status_code == 400 and "relabel" in str(response.json())


def Session_order(pk: int) -> list[dict[str, object]]:
    from qoelab.runs.models import Session

    return list(Session.objects.get(pk=pk).order)
