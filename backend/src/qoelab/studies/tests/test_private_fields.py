"""Issue 34, finding 5: the public study detail showed ``owner`` (the user name guessers
locked out) and the ratings per agent backend. Now only the owner, members and staff see
them; the design stays public, and the API schema marks both optional."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from qoelab.studies.models import Study
from qoelab.studies.private_fields import PRIVATE_DETAIL_FIELDS
from qoelab.studies.tests.study_helpers import other_researcher, own


def detail(client: APIClient, study: Study) -> dict[str, Any]:
    response = client.get(f"/api/v1/studies/{study.pk}/")
    assert response.status_code == 200, response.content
    body: dict[str, Any] = response.json()
    return body


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.mark.django_db
def test_strangers_see_the_design_without_owner_or_rating_counts(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = own(researcher_client, example_study)
    for stranger in (APIClient(), other_researcher()):
        body = detail(stranger, study)
        assert not set(PRIVATE_DETAIL_FIELDS) & body.keys(), body.keys()
        assert body["title"] == study.title and body["scenarios"] and body["games"]
        assert "alice" not in str(body)  # the owner's name appears nowhere else either


@pytest.mark.django_db
def test_owner_members_and_staff_see_them(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = own(researcher_client, example_study)
    users = get_user_model().objects
    member = users.create_user("carol", password="carol-password-1")
    study.members.add(member)
    staff = users.create_user("operator", password="operator-password-1", is_staff=True)
    for client in (researcher_client, client_for(member), client_for(staff)):
        body = detail(client, study)
        assert body["owner"] == "alice" and body["ratings_by_backend"] == {}


@pytest.mark.django_db
def test_strangers_cost_no_rating_count(researcher_client: APIClient, example_study: Study) -> None:
    """The counts are not computed for a caller who will not see them."""
    study = own(researcher_client, example_study)
    with CaptureQueriesContext(connection) as stranger:
        detail(APIClient(), study)
    with CaptureQueriesContext(connection) as owner:
        detail(researcher_client, study)
    assert not any("ratings_rating" in query["sql"] for query in stranger.captured_queries)
    assert any("ratings_rating" in query["sql"] for query in owner.captured_queries)


def test_the_schema_marks_them_optional() -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    study_detail = schema["components"]["schemas"]["StudyDetail"]
    assert set(PRIVATE_DETAIL_FIELDS) <= study_detail["properties"].keys()
    assert not set(PRIVATE_DETAIL_FIELDS) & set(study_detail["required"])
    assert {"id", "title", "scenarios", "version"} <= set(study_detail["required"])
    assert "only for the owner" in study_detail["properties"]["owner"]["description"]
