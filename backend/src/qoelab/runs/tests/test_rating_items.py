"""Issue 15 through the API: the gaming preset, training on two anchors, response times,
and every refused rating (4xx naming the item, nothing stored)."""

from __future__ import annotations

import csv
import io
import uuid
from collections import Counter
from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.ratings.models import Rating
from qoelab.runs.tests.lab import Lab, answer_post_questions, fill_questionnaire, participant_view
from qoelab.runs.tests.test_bad_input import rejected
from qoelab.studies.models import Study
from qoelab.testing import DryRunAgent

DCR_ITEM = {
    "key": "degradation",
    "question": {"en": "How annoying was the degradation?", "de": "Wie störend?"},
    "scale": {"kind": "dcr5"},
    "required": True,
}


@pytest.fixture
def lab(researcher_client: APIClient, example_study: Study) -> Lab:
    example_study.owner = researcher_client.handler._force_user  # type: ignore[attr-defined]
    example_study.save()
    return Lab(researcher_client)


def patch_study(lab: Lab, study: Study, body: dict[str, Any]) -> dict[str, Any]:
    response = lab.researcher.patch(f"/api/v1/studies/{study.pk}/", body, format="json")
    assert response.status_code == 200, response.content
    result: dict[str, Any] = response.json()
    return result


def start_session(lab: Lab, study: Study, agent: DryRunAgent) -> tuple[dict[str, Any], APIClient]:
    """A session in its first scenario's play period (station bound to ``agent``)."""
    station = lab.station("Seat", agent.url, agent.token)
    person = lab.participant(study.pk, "P1")
    session = lab.session(person["id"], study.games.first().pk, station["id"])  # type: ignore[union-attr]
    screen = lab.screen(session)
    lab.post(f"/api/v1/sessions/{session['id']}/start/")
    fill_questionnaire(screen, session["id"])
    lab.post(f"/api/v1/sessions/{session['id']}/advance/")  # free play over → playing 1
    return session, screen


def rate(screen: APIClient, sid: int, position: int, values: dict[str, Any], **extra: Any) -> Any:
    body = {"values": values, "position": position, "idempotency_key": uuid.uuid4().hex}
    return screen.post(
        f"/api/v1/participant/sessions/{sid}/rate/", {**body, **extra}, format="json"
    )


def gaming_values(position: int) -> dict[str, Any]:
    return {
        "overall": 1 + position % 5,
        "input_quality": 1 + (position % 13) / 2,
        "video_quality": 7.0 - position / 4,
        "acceptance": position % 2,
    }


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_gaming_preset_with_training_on_two_anchors(
    dry_run_agent: DryRunAgent, lab: Lab, example_study: Study
) -> None:
    presets = lab.researcher.get("/api/v1/rating-presets/").json()
    assert [item["key"] for item in presets["gaming"]] == [
        "overall",
        "input_quality",
        "video_quality",
        "acceptance",
    ]
    patch_study(
        lab,
        example_study,
        {
            "rating_items": presets["gaming"],
            "acceptance": {"item": "acceptance"},
            "training": {"enabled": True, "scenarios": [], "seconds": 20},
            "min_response_ms": 800,
        },
    )
    session, screen = start_session(lab, example_study, dry_run_agent)
    sid = session["id"]
    # The default anchors: the baseline and the most impaired scenario (D3: 2 × 300 ms).
    assert [(e["code"], e["round"], e["training"]) for e in session["order"][:3]] == [
        ("B", 0, True),
        ("D3", 0, True),
        ("B", 1, False),
    ]
    assert session["training_count"] == 2 and session["scenario_count"] == 12
    view = participant_view(screen, sid)
    assert (view["training"], view["phase"], view["phase_position"], view["phase_count"]) == (
        True,
        "training",
        1,
        2,
    )
    assert view["position"] == 1 and 0 < view["seconds_remaining"] <= 20
    console = lab.researcher.get(f"/api/v1/sessions/{sid}/").json()
    assert console["phase"] == "training" and console["current_scenario"]["training"] is True
    for position in range(1, 13):
        applied = lab.researcher.get(f"/api/v1/sessions/{sid}/").json()["applied_profile"]
        assert applied is not None  # applied and verified by the agent, training included
        lab.post(f"/api/v1/sessions/{sid}/advance/")  # → rating
        view = participant_view(screen, sid)
        assert view["step"] == "rating" and [i["key"] for i in view["items"]] == [
            i["key"] for i in presets["gaming"]
        ]
        if position == 3:
            assert (view["phase"], view["phase_position"], view["phase_count"]) == ("test", 1, 10)
            assert view["training"] is False
        response = rate(screen, sid, position, gaming_values(position), response_ms=900 + position)
        assert response.status_code == 201, response.content
        assert response.json()["values"]["acceptance"] == position % 2
    answer_post_questions(screen, sid)
    ratings = list(Rating.objects.filter(session_id=sid).order_by("order_index"))
    assert [r.training for r in ratings] == [True, True] + [False] * 10
    assert [r.response_ms for r in ratings] == [900 + p for p in range(1, 13)]
    assert all(r.since_end_ms is not None and r.since_end_ms >= 0 for r in ratings)

    text = lab.researcher.get(f"/api/v1/studies/{example_study.pk}/export/csv/").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    test_rows = [row for row in rows if row["training"] == "0"]
    training_rows = [row for row in rows if row["training"] == "1"]
    assert Counter(row["scenario"] for row in test_rows) == {
        code: 4 for code in ("B", "D1", "D2", "D3", "L1", "L2", "M1", "M2", "A1", "A2")
    }
    assert Counter(row["scenario"] for row in training_rows) == {"B": 4, "D3": 4}
    first = [row for row in rows if row["response_ms"] == "901"]
    assert [(r["item"], r["rating"]) for r in first] == [
        ("overall", "2"),
        ("input_quality", "1.5"),
        ("video_quality", "6.75"),
        ("acceptance", "1"),
    ]
    assert all(row["since_end_ms"] != "" for row in rows)
    sidecar = lab.researcher.get(f"/api/v1/studies/{example_study.pk}/export/items/").json()
    assert sidecar == {
        "items": presets["gaming"],
        "acceptance": {"item": "acceptance"},
        "min_response_ms": 800,
    }
    sureal = lab.researcher.get(
        f"/api/v1/studies/{example_study.pk}/export/sureal/?item=input_quality"
    ).json()
    assert sureal["item"] == "input_quality" and sureal["ref_score"] == 7.0
    stimuli = {d["scenario"]: d["os"]["P1"] for d in sureal["dis_videos"]}
    assert len(stimuli) == 10 and stimuli["B"] == 1 + (3 % 13) / 2  # the test rating only


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_bad_values_are_refused_naming_the_item(
    dry_run_agent: DryRunAgent, lab: Lab, example_study: Study
) -> None:
    presets = lab.researcher.get("/api/v1/rating-presets/").json()
    patch_study(lab, example_study, {"rating_items": [*presets["gaming"][:3], DCR_ITEM]})
    session, screen = start_session(lab, example_study, dry_run_agent)
    sid = session["id"]
    lab.post(f"/api/v1/sessions/{sid}/advance/")  # → rating the baseline
    # Nothing to compare with yet: the DCR item is not asked (so not required) here.
    view = participant_view(screen, sid)
    assert [i["key"] for i in view["items"]] == ["overall", "input_quality", "video_quality"]
    good = {"overall": 4, "input_quality": 5.5, "video_quality": 6}
    path = f"/api/v1/participant/sessions/{sid}/rate/"

    def post(body: dict[str, Any]) -> Any:
        return screen.post(
            path, {"position": 1, "idempotency_key": "k" * 12, **body}, format="json"
        )

    for values, item in [
        ({**good, "input_quality": 7.5}, "input_quality"),  # a slider value outside its range
        ({**good, "input_quality": 0}, "input_quality"),
        ({**good, "overall": 3.5}, "overall"),  # not an integer on a discrete scale
        ({**good, "overall": "good"}, "overall"),
        ({"overall": 4, "input_quality": 5}, "video_quality"),  # a required item missing
        ({**good, "fun": 3}, "fun"),  # an unknown item key
        ({**good, "degradation": 4}, "degradation"),  # DCR without a rated baseline
    ]:
        response = rejected(lambda values=values: post({"values": values}), 400, item)
        assert response.json()["field"] == f"values.{item}"
    rejected(lambda: post({"score": 4}), 400, "score", "several items")
    rejected(lambda: post({"values": good, "response_ms": -5}), 400, "response_ms")

    first = post({"values": good, "response_ms": 2500})
    assert first.status_code == 201, first.content
    again = post({"values": good, "response_ms": 2500})  # a retry: the stored rating, unchanged
    assert again.status_code == 200 and again.json()["values"] == first.json()["values"]
    assert Rating.objects.count() == 1
    rejected(lambda: post({"values": {**good, "overall": 5}}), 409, "idempotency_key")

    lab.post(f"/api/v1/sessions/{sid}/advance/")  # scenario 2 played → rating
    view = participant_view(screen, sid)
    assert [i["key"] for i in view["items"]][-1] == "degradation"  # asked from now on
    rejected(lambda: rate(screen, sid, 2, good), 400, "degradation", "required")
    response = rate(screen, sid, 2, {**good, "degradation": 3})  # the baseline is rated now
    assert response.status_code == 201, response.content
    stored = Rating.objects.get(order_index=1)
    assert stored.values == {**good, "input_quality": 5.5, "video_quality": 6, "degradation": 3}
    assert stored.training is False and stored.response_ms is None
