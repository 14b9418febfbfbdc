"""The study's participant language: model default, API, study documents, participant view."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from qoelab.participants.models import Participant
from qoelab.runs.services import create_session
from qoelab.studies.models import Study
from qoelab.studies.study_document import (
    StudyDocumentError,
    export_study_document,
    load_study_document,
    read_study_document,
)

EXAMPLE = settings.FIXTURES_DIR / "studies" / "cloud-gaming-2014.json"


def document(**changes: Any) -> dict[str, Any]:
    return copy.deepcopy(read_study_document(EXAMPLE)) | changes


@pytest.mark.django_db
def test_the_example_without_a_language_loads_as_english(example_study: Study) -> None:
    assert example_study.language == "en"
    body = APIClient().get(f"/api/v1/studies/{example_study.pk}/").json()
    assert body["language"] == "en"


@pytest.mark.django_db
def test_owner_sets_the_language_and_a_bad_one_is_400(
    researcher_client: APIClient, researcher: Any, example_study: Study
) -> None:
    example_study.owner = researcher
    example_study.save()
    url = f"/api/v1/studies/{example_study.pk}/"
    response = researcher_client.patch(url, {"language": "de"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["language"] == "de"
    assert Study.objects.get(pk=example_study.pk).language == "de"
    response = researcher_client.patch(url, {"language": "fr"}, format="json")
    assert response.status_code == 400
    assert "language" in response.json()
    created = researcher_client.post(
        "/api/v1/studies/", {"slug": "new", "title": "New"}, format="json"
    ).json()
    assert created["language"] == "en"


@pytest.mark.django_db
def test_documents_carry_the_language_optionally() -> None:
    study = load_study_document(document(language="de")).study
    assert study.language == "de"
    assert export_study_document(study)["language"] == "de"
    # A document without the key leaves the language of an existing study alone...
    result = load_study_document(document())
    assert (result.changed, Study.objects.get(pk=study.pk).language) == (False, "de")
    # ...and one that names a language sets it.
    result = load_study_document(document(language="en"))
    assert (result.changed, Study.objects.get(pk=study.pk).language) == (True, "en")
    with pytest.raises(StudyDocumentError, match="language"):
        load_study_document(document(language="fr"))


@pytest.mark.django_db
def test_the_participant_view_names_the_study_language(example_study: Study) -> None:
    example_study.language = "de"
    example_study.save()
    participant = Participant.objects.create(study=example_study, code="P1", age=30)
    game = example_study.games.first()
    assert game is not None
    session = create_session(study=example_study, participant=participant, game=game, station=None)
    client = APIClient()
    client.credentials(HTTP_X_PARTICIPANT_TOKEN=session.token)
    view = client.get(f"/api/v1/participant/sessions/{session.pk}/").json()
    assert view["step"] == "waiting" and view["language"] == "de"
