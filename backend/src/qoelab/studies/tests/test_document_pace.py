"""A study design document whose game has a missing, empty or unknown pace class is refused
with the game's path and the choices (issue 35, item 1), not DRF's ``"" is not a valid
choice.`` — the import API and the loader answer the same message."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.studies.models import Study
from qoelab.studies.study_document import (
    StudyDocumentError,
    export_study_document,
    validate_study_document,
)

CHOICES = "choose fast, medium or slow"


def _document(study: Study, pace: object) -> dict[str, Any]:
    document = copy.deepcopy(export_study_document(study))
    document["slug"] = "paced"
    if pace == "missing":
        del document["games"][1]["pace"]
    else:
        document["games"][1]["pace"] = pace
    return document


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("pace", "message"),
    [
        ("missing", f"games[1].pace: missing; {CHOICES}"),
        (None, f"games[1].pace: missing; {CHOICES}"),
        ("", f"games[1].pace: empty; {CHOICES}"),
        ("frantic", f'games[1].pace: "frantic" is not a pace class; {CHOICES}'),
    ],
)
def test_the_import_names_the_game_and_the_pace_choices(
    researcher_client: APIClient, example_study: Study, pace: object, message: str
) -> None:
    document = _document(example_study, pace)
    response = researcher_client.post("/api/v1/studies/import-design/", document, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == message
    assert not Study.objects.filter(slug="paced").exists()
    with pytest.raises(StudyDocumentError) as raised:
        validate_study_document(document)
    assert str(raised.value) == message
