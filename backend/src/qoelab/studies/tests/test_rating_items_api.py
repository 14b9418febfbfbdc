"""The study's rating items, acceptance rule, training and fast-rating floor through the API."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.participants.models import Participant
from qoelab.runs.services import create_session
from qoelab.runs.tests.test_bad_input import rejected
from qoelab.studies.cloning import clone_study
from qoelab.studies.models import Study
from qoelab.studies.rating_items import GAMING_PRESET, default_rating_items, legacy_items

ZERO_TO_SIX = {
    "key": "overall",
    "question": {"en": "Quality?", "de": "Qualität?"},
    "scale": {"kind": "discrete", "min": 0, "max": 6, "step": 1},
    "required": True,
}


@pytest.fixture
def owned(researcher_client: APIClient, owned_example_study: Study) -> Study:
    return owned_example_study  # researcher_client first: the study's owner is its user


def patch(client: APIClient, study: Study, body: dict[str, Any]) -> Any:
    return client.patch(f"/api/v1/studies/{study.pk}/", body, format="json")


@pytest.mark.django_db
def test_the_example_study_keeps_its_single_acr5_item(
    researcher_client: APIClient, owned: Study
) -> None:
    body = researcher_client.get(f"/api/v1/studies/{owned.pk}/").json()
    assert body["rating_items"] == default_rating_items()
    assert body["rating_items"][0]["scale"]["kind"] == "acr5"
    assert body["acceptance"] == {"item": "overall", "min": 3}
    assert body["training"] == {"enabled": False, "scenarios": [], "seconds": 60}
    assert body["min_response_ms"] == 1000


@pytest.mark.django_db
def test_presets_endpoint() -> None:
    body = APIClient().get("/api/v1/rating-presets/").json()
    assert body["gaming"] == GAMING_PRESET
    assert body["acr5"] == default_rating_items()
    assert set(body["scales"]) == {"acr5", "dcr5", "discrete", "continuous", "binary"}
    assert [i["scale"]["kind"] for i in GAMING_PRESET] == [
        "acr5",
        "continuous",
        "continuous",
        "binary",
    ]
    assert (GAMING_PRESET[1]["scale"]["min"], GAMING_PRESET[1]["scale"]["max"]) == (1, 7)


@pytest.mark.django_db
def test_settings_are_saved_and_cloned(researcher_client: APIClient, owned: Study) -> None:
    body = {
        "rating_items": [ZERO_TO_SIX, GAMING_PRESET[3]],
        "acceptance": {"item": "acceptance"},
        "training": {"enabled": True, "scenarios": ["B", "M2"], "seconds": 30},
        "min_response_ms": 700,
    }
    response = patch(researcher_client, owned, body)
    assert response.status_code == 200, response.content
    owned.refresh_from_db()
    assert owned.rating_items[0]["scale"]["max"] == 6
    assert owned.training == {"enabled": True, "scenarios": ["B", "M2"], "seconds": 30}
    clone = clone_study(owned, slug="copy", title="Copy", owner=None)
    assert (clone.rating_items, clone.acceptance, clone.training, clone.min_response_ms) == (
        owned.rating_items,
        {"item": "acceptance"},
        owned.training,
        700,
    )


@pytest.mark.django_db
def test_bad_settings_are_refused_naming_the_field(
    researcher_client: APIClient, owned: Study
) -> None:
    c = researcher_client
    bad_scale = {**ZERO_TO_SIX, "scale": {"kind": "discrete", "min": 0, "max": 20, "step": 1}}
    for body, words in [
        ({"rating_items": [bad_scale]}, ("rating_items[0].scale.max", "11 points")),
        ({"rating_items": [ZERO_TO_SIX, ZERO_TO_SIX]}, ("rating_items[1].key", "twice")),
        ({"rating_items": [{**ZERO_TO_SIX, "key": "Bad Key"}]}, ("rating_items[0].key",)),
        ({"rating_items": []}, ("rating_items",)),
        ({"acceptance": {"item": "fun"}}, ("acceptance.item", "fun")),
        ({"acceptance": {"item": "overall"}}, ("acceptance.min",)),
        ({"training": {"enabled": True, "scenarios": ["ZZ"]}}, ("training.scenarios", "ZZ")),
        ({"training": {"enabled": True, "seconds": 5}}, ("training.seconds",)),
        ({"min_response_ms": -1}, ("min_response_ms",)),
    ]:
        rejected(lambda body=body: patch(c, owned, body), 400, *words)
    # The acceptance rule must fit the new items (the old rule names "overall" on 1..5).
    rejected(lambda: patch(c, owned, {"rating_items": [GAMING_PRESET[3]]}), 400, "acceptance.item")


@pytest.mark.django_db
def test_items_are_frozen_once_the_study_has_sessions(
    researcher_client: APIClient, owned: Study
) -> None:
    participant = Participant.objects.create(study=owned, code="P1")
    create_session(study=owned, participant=participant, game=owned.games.first(), station=None)
    rejected(
        lambda: patch(researcher_client, owned, {"rating_items": GAMING_PRESET}),
        400,
        "rating_items",
        "has sessions",
    )
    # Settings that do not relabel stored ratings stay editable, as the other settings do.
    response = patch(researcher_client, owned, {"min_response_ms": 500})
    assert response.status_code == 200, response.content


@pytest.mark.django_db
def test_new_scale_labels_carry_over_to_the_legacy_overall_item(
    researcher_client: APIClient, owned: Study
) -> None:
    labels = ["1", "2", "3", "4", "5", "6", "7"]
    response = patch(researcher_client, owned, {"scale_labels": labels})
    assert response.status_code == 200, response.content
    owned.refresh_from_db()
    assert owned.rating_items == legacy_items(labels)
    assert owned.rating_items[0]["scale"] | {"labels": []} == {
        "kind": "discrete",
        "min": 1,
        "max": 7,
        "step": 1,
        "labels": [],
    }


@pytest.mark.django_db
def test_the_design_document_carries_the_rating_settings(
    researcher_client: APIClient, owned: Study
) -> None:
    from qoelab.studies.study_document import export_study_document

    assert "rating_items" not in export_study_document(owned)  # the defaults stay implicit
    settings = {
        "rating_items": GAMING_PRESET,
        "acceptance": {"item": "acceptance"},
        "training": {"enabled": True, "scenarios": ["B", "D3"], "seconds": 45},
        "min_response_ms": 1500,
    }
    assert patch(researcher_client, owned, settings).status_code == 200
    document = export_study_document(Study.objects.get(pk=owned.pk))
    assert {name: document[name] for name in settings} == settings
    response = researcher_client.post(
        "/api/v1/studies/import-design/", {**document, "slug": "imported"}, format="json"
    )
    assert response.status_code == 201, response.content
    assert {name: response.json()[name] for name in settings} == settings
    bad = {**document, "slug": "bad", "training": {"enabled": True, "scenarios": ["ZZ"]}}
    rejected(
        lambda: researcher_client.post("/api/v1/studies/import-design/", bad, format="json"),
        400,
        "training",
        "ZZ",
    )
