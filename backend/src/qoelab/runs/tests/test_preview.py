"""The preview endpoint: every participant screen of the study, nothing read or written.

Fails if a screen type is missing (training, the DCR item, post questions), if a screen is
not what the participant's API would answer, if the endpoint writes a row, or if another
researcher's study can be previewed.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from qoelab.runs.participant_view import ParticipantViewSerializer
from qoelab.studies.models import Study
from qoelab.studies.rating_items import GAMING_PRESET


def preview(client: APIClient, study: Study, status: int = 200) -> dict[str, object]:
    response = client.get(f"/api/v1/studies/{study.pk}/preview/")
    assert response.status_code == status, response.content
    result: dict[str, object] = response.json()
    return result


@pytest.mark.django_db
def test_the_preview_lists_every_screen_type_in_session_order(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    study = owned_example_study
    items = [dict(item) for item in GAMING_PRESET]
    items.append(
        {
            "key": "degradation",
            "question": {"en": "Degradation?", "de": "Verschlechterung?"},
            "scale": {"kind": "dcr5", "min": 1, "max": 5},
            "required": True,
        }
    )
    study.rating_items = items
    study.training = {"enabled": True, "scenarios": [], "seconds": 30}
    study.questionnaire = [
        *study.questionnaire,
        {"key": "fun", "phase": "post", "kind": "boolean", "text": "Fun?"},
    ]
    study.save()

    with CaptureQueriesContext(connection) as queries:
        body = preview(researcher_client, study)
    writes = [q["sql"] for q in queries if q["sql"].split()[0] in {"INSERT", "UPDATE", "DELETE"}]
    assert writes == []

    screens = body["screens"]
    assert isinstance(screens, list)
    steps = [s["view"]["step"] for s in screens]
    assert steps == [
        "questionnaire",
        "free_play",
        "playing",
        "rating",
        "playing",
        "rating",
        "rating",
        "post_questions",
        "thanks",
    ]
    views = [s["view"] for s in screens]
    assert views[0]["needs"] == {"consent": True, "age": True, "skill": True}
    training_rating, first, second = views[3], views[5], views[6]
    assert training_rating["training"] and training_rating["phase"] == "training"
    assert (training_rating["phase_position"], training_rating["phase_count"]) == (1, 2)
    assert views[2]["seconds_remaining"] == 30.0
    # the baseline's rating has no DCR item; the next one asks every item
    assert "degradation" not in [i["key"] for i in first["items"]]
    assert [i["key"] for i in second["items"]] == [i["key"] for i in items]
    assert views[7]["questions"] == study.questions("post")
    assert views[7]["questions"][-1]["key"] == "fun"
    # the same document the participant's API answers: every field, valid values
    fields = set(ParticipantViewSerializer().fields)
    assert all(set(view) == fields for view in views)
    assert {view["session"] for view in views} == {0}
    assert [view["revision"] for view in views] == list(range(1, len(views) + 1))


@pytest.mark.django_db
def test_a_plain_study_has_no_training_or_dcr_screen(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    owned_example_study.free_play_minutes = 0
    owned_example_study.save()
    steps = [s["view"]["step"] for s in preview(researcher_client, owned_example_study)["screens"]]  # type: ignore[attr-defined]
    assert "free_play" not in steps and steps.count("rating") == 1
    assert steps[0] == "questionnaire" and steps[-1] == "thanks"


@pytest.mark.django_db
def test_only_researchers_of_the_study_preview_it(owned_example_study: Study) -> None:
    assert APIClient().get(f"/api/v1/studies/{owned_example_study.pk}/preview/").status_code in (
        401,
        403,
    )
    stranger = APIClient()
    stranger.force_authenticate(get_user_model().objects.create_user("eve", password="x-pass-1"))
    preview(stranger, owned_example_study, status=404)


@pytest.mark.django_db
def test_a_trapping_item_gets_its_screen(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    text = {"en": "Please select 'Poor' for this question.", "de": "Bitte 'Dürftig' wählen."}
    owned_example_study.quality_control = {
        "traps": [{"after": 1, "value": 2, "text": text}],
        "hidden_reference": {"scenario": None},
    }
    owned_example_study.save()
    screens = preview(researcher_client, owned_example_study)["screens"]
    traps = [s["view"] for s in screens if s["view"]["trap"] is not None]  # type: ignore[attr-defined,index]
    assert len(traps) == 1
    assert traps[0]["trap"] == text and traps[0]["step"] == "rating"
    assert [i["key"] for i in traps[0]["items"]] == ["overall"]
    assert traps[0]["items"][0]["required"] is True
    plain = [
        s["view"] for s in screens if s["view"]["step"] == "rating" and s["view"]["trap"] is None
    ]  # type: ignore[attr-defined,index]
    # the test slots count the trap and the hidden reference: 1 baseline + 9 others + 2
    assert plain[0]["phase_count"] == 12
