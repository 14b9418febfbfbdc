"""Copies of a study's design: clone, import of a study document, the document round trip."""

from __future__ import annotations

import copy

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from qoelab.studies.models import Study
from qoelab.studies.study_document import export_study_document, load_study_document
from qoelab.studies.tests.study_helpers import BURST, lock, other_researcher, own


@pytest.mark.django_db
def test_clone_copies_design_and_settings_but_no_data(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = own(researcher_client, example_study)
    study.seconds_per_scenario, study.retest_round, study.language = 90, True, "de"
    study.save()
    researcher_client.post(
        "/api/v1/scenarios/",
        {"study": study.pk, "code": "G1", "downstream": {"gilbert_elliott": BURST}},
        format="json",
    )
    lock(study)
    bob = other_researcher()  # a study's design is public: anyone signed in may clone it
    response = bob.post(
        f"/api/v1/studies/{study.pk}/clone/",
        {"slug": "my-copy", "title": "My copy"},
        format="json",
    )
    assert response.status_code == 201, response.content
    clone = response.json()
    source = researcher_client.get(f"/api/v1/studies/{study.pk}/").json()
    assert clone["slug"] == "my-copy" and clone["title"] == "My copy"
    assert clone["owner"] == "bob" and clone["version"] == 1 and clone["id"] != study.pk
    for key in (
        "description",
        "scale_labels",
        "seconds_per_scenario",
        "free_play_minutes",
        "order_policy",
        "retest_round",
        "questionnaire",
        "language",
        "session_minutes",
    ):
        assert clone[key] == source[key], key
    strip = lambda items: [{k: v for k, v in i.items() if k != "id"} for i in items]  # noqa: E731
    assert strip(clone["scenarios"]) == strip(source["scenarios"])
    assert strip(clone["games"]) == strip(source["games"])
    copy_ = Study.objects.get(pk=clone["id"])
    assert not copy_.sessions.exists() and not copy_.participants.exists()
    # The slug must be new; anonymous callers may not clone.
    again = bob.post(
        f"/api/v1/studies/{study.pk}/clone/", {"slug": "my-copy", "title": "x"}, format="json"
    )
    assert again.status_code == 400 and "slug" in again.json()
    anonymous = APIClient().post(
        f"/api/v1/studies/{study.pk}/clone/", {"slug": "anon", "title": "x"}, format="json"
    )
    assert anonymous.status_code in {401, 403}
    assert APIClient().post(
        "/api/v1/studies/999/clone/", {"slug": "z", "title": "z"}, format="json"
    ).status_code in {401, 403}
    assert (
        bob.post(
            "/api/v1/studies/999/clone/", {"slug": "z", "title": "z"}, format="json"
        ).status_code
        == 404
    )


@pytest.mark.django_db
def test_import_design_creates_a_new_study_from_a_document(
    researcher_client: APIClient, example_study: Study
) -> None:
    document = export_study_document(example_study)
    document["slug"] = "imported"
    document["scenarios"].append(
        {
            "code": "G1",
            "label": "burst loss downstream",
            "is_baseline": False,
            "downstream": {"delay_ms": 20, "gilbert_elliott": BURST, "rate_kbit": 5000},
        }
    )
    response = researcher_client.post("/api/v1/studies/import-design/", document, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["slug"] == "imported" and body["owner"] == "alice"
    assert len(body["scenarios"]) == 11 and len(body["games"]) == 3
    g1 = body["scenarios"][-1]
    assert g1["downstream"]["gilbert_elliott"] == BURST and g1["downstream"]["rate_kbit"] == 5000
    assert g1["upstream"]["delay_ms"] == 0.0
    # The existing slug is refused: an import never changes another study.
    again = researcher_client.post("/api/v1/studies/import-design/", document, format="json")
    assert again.status_code == 400 and "exists already" in again.json()["detail"]
    bad = copy.deepcopy(document)
    bad["slug"] = "bad"
    bad["scenarios"][1]["upstream"]["loss_pct"] = 150
    response = researcher_client.post("/api/v1/studies/import-design/", bad, format="json")
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "scenarios[1].upstream.loss_pct: 150 is greater than the maximum of 100"
    )
    assert not Study.objects.filter(slug="bad").exists()
    assert (
        researcher_client.post(
            "/api/v1/studies/import-design/", ["not", "a", "document"], format="json"
        ).status_code
        == 400
    )
    anonymous = APIClient().post("/api/v1/studies/import-design/", document, format="json")
    assert anonymous.status_code in {401, 403}
    with override_settings(QOELAB_MAX_SCENARIOS=10):
        document["slug"] = "too-big"
        response = researcher_client.post("/api/v1/studies/import-design/", document, format="json")
    assert response.status_code == 400 and "11 scenarios" in response.json()["detail"]


@pytest.mark.django_db
def test_the_study_document_round_trips_every_field(example_study: Study) -> None:
    scenario = example_study.active_scenarios().get(code="A2")
    scenario.ds_extra = {"gilbert_elliott": BURST, "duplicate_pct": 0.5}
    scenario.ds_loss_pct = 0.0
    scenario.save()
    document = export_study_document(example_study)
    a2 = next(s for s in document["scenarios"] if s["code"] == "A2")
    # delay/jitter/loss always; the other fields only where they are not neutral
    assert a2["downstream"] == {
        "delay_ms": 120.0,
        "jitter_ms": 0.0,
        "loss_pct": 0.0,
        "gilbert_elliott": BURST,
        "duplicate_pct": 0.5,
    }
    assert a2["upstream"] == {"delay_ms": 0.0, "jitter_ms": 0.0, "loss_pct": 0.0}
    copy_ = load_study_document({**document, "slug": "round-trip"}).study
    assert export_study_document(copy_) == {**document, "slug": "round-trip"}
    assert load_study_document(document).changed is False
