"""ITU-T P.808 quality control (issue 35, item 2): the plan's trap and hidden-reference slots,
the settings' validation, and a whole session through the API into the tidy CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.ratings.models import Rating
from qoelab.runs.qc_plan import with_quality_control
from qoelab.runs.tests.lab import Lab, answer_post_questions, participant_view
from qoelab.runs.tests.test_rating_items import lab, rate, start_session  # noqa: F401
from qoelab.studies.models import Scenario, Study
from qoelab.testing import DryRunAgent

TEXT = {"en": "Please select 'Poor' for this question.", "de": "Bitte wählen Sie 'Dürftig'."}


def trap(after: int | None, value: int = 2) -> dict[str, Any]:
    return {"after": after, "value": value, "text": TEXT}


def scenarios(n: int) -> list[Scenario]:
    return [Scenario(pk=i + 1, code=f"S{i}", is_baseline=i == 0) for i in range(n)]


def plain_order(n: int, training: int = 0) -> list[dict[str, Any]]:
    head = [{"scenario": 1, "code": "S0", "round": 0, "training": True}] * training
    return head + [{"scenario": i + 1, "code": f"S{i}", "round": 1} for i in range(n)]


def test_a_trap_follows_the_chosen_scenario_without_a_play_of_its_own() -> None:
    order = plain_order(6, training=2)
    planned = with_quality_control(order, {"traps": [trap(3)]}, scenarios(6), seed=1)
    assert len(planned) == len(order) + 1
    # after the 3rd test scenario (slot 5 of the order: 2 training slots first)
    assert planned[:5] == order[:5]
    assert planned[5] == {
        **{k: order[4][k] for k in ("scenario", "code", "round")},
        **{"qc": "trap", "trap": 1, "value": 2, "text": TEXT},
    }
    assert planned[6:] == order[5:]


def test_a_trap_past_the_end_comes_after_the_last_scenario() -> None:
    planned = with_quality_control(plain_order(3), {"traps": [trap(50)]}, scenarios(3), seed=1)
    assert planned[-1]["qc"] == "trap" and planned[-1]["code"] == "S2"


def test_hidden_reference_once_in_the_second_half_for_every_seed() -> None:
    qc = {"traps": [], "hidden_reference": {"scenario": None}}
    places = set()
    for seed in range(40):
        planned = with_quality_control(plain_order(10), qc, scenarios(10), seed=seed)
        repeats = [i for i, e in enumerate(planned) if e.get("qc") == "hidden_reference"]
        assert len(repeats) == 1 and planned[repeats[0]]["code"] == "S0"  # the baseline
        places.add(repeats[0])
    assert places <= set(range(5, 11)) and len(places) > 3  # 2nd half, and it varies


def test_hidden_reference_of_a_chosen_scenario_and_random_traps_are_seeded() -> None:
    qc = {"traps": [trap(None), trap(None, 4)], "hidden_reference": {"scenario": "S3"}}
    first = with_quality_control(plain_order(8), qc, scenarios(8), seed=7)
    assert first == with_quality_control(plain_order(8), qc, scenarios(8), seed=7)
    assert [e["code"] for e in first if e.get("qc") == "hidden_reference"] == ["S3"]
    traps = [i for i, e in enumerate(first) if e.get("qc") == "trap"]
    assert len(traps) == 2 and traps[0] + 1 != traps[1]  # two distinct places
    assert all(first[i - 1].get("qc") != "trap" for i in traps)


def test_no_checks_leave_the_order_as_it_is() -> None:
    order = plain_order(4)
    assert with_quality_control(order, {"traps": [], "hidden_reference": None}, [], seed=3) is order


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("qc", "message"),
    [
        ({"traps": [trap(1, 7)]}, "traps[0].value: 7 is not an integer from 1 to 5"),
        ({"traps": [trap(0)]}, "traps[0].after: the test scenario"),
        ({"traps": [trap(1)] * 4}, "traps: a list of 0 to 3"),
        ({"traps": [{**trap(1), "text": {"en": "x", "de": " "}}]}, "traps[0].text.de:"),
        ({"traps": [], "hidden_reference": {"scenario": "ZZ"}}, "'ZZ' is not a scenario"),
        ({"traps": [], "colour": 1}, "colour: unknown field"),
    ],
)
def test_settings_are_validated_with_clear_messages(
    researcher_client: APIClient, owned_example_study: Study, qc: dict[str, Any], message: str
) -> None:
    response = researcher_client.patch(
        f"/api/v1/studies/{owned_example_study.pk}/", {"quality_control": qc}, format="json"
    )
    assert response.status_code == 400, response.content
    assert message in response.json()["quality_control"][0]
    owned_example_study.refresh_from_db()
    assert owned_example_study.quality_control == {"traps": [], "hidden_reference": None}


@pytest.mark.django_db
def test_an_analysis_only_study_refuses_checks(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    Study.objects.filter(pk=owned_example_study.pk).update(analysis_only=True)
    response = researcher_client.patch(
        f"/api/v1/studies/{owned_example_study.pk}/",
        {"quality_control": {"traps": [trap(1)], "hidden_reference": None}},
        format="json",
    )
    # every setting of an analysis-only study is refused (qoelab.studies.analysis_only)
    assert response.status_code == 409, response.content
    assert "quality_control" in response.content.decode()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_session_with_a_trap_and_a_hidden_reference(
    dry_run_agent: DryRunAgent,
    lab: Lab,  # noqa: F811
    example_study: Study,
) -> None:
    qc = {"traps": [trap(2)], "hidden_reference": {"scenario": "B"}}
    response = lab.researcher.patch(
        f"/api/v1/studies/{example_study.pk}/", {"quality_control": qc}, format="json"
    )
    assert response.status_code == 200 and response.json()["quality_control"] == qc
    session, screen = start_session(lab, example_study, dry_run_agent)
    sid, order = session["id"], session["order"]
    assert len(order) == 12 and order[2]["code"] == order[1]["code"]  # trap after scenario 2
    assert [e["code"] for e in order].count("B") == 2
    kinds = []
    for position in range(1, 13):
        view = participant_view(screen, sid)
        if view["step"] != "rating":
            lab.post(f"/api/v1/sessions/{sid}/advance/")  # play over → rating
            view = participant_view(screen, sid)
        assert view["step"] == "rating"
        kinds.append("trap" if view["trap"] else "scenario")
        if view["trap"]:
            assert view["trap"] == TEXT and [i["key"] for i in view["items"]] == ["overall"]
            assert view["phase_position"] == 2  # no scenario of its own
        score = 5 if view["trap"] else 4  # the trap asked for 2: answered wrongly
        assert rate(screen, sid, position, {"overall": score}).status_code == 201
    assert kinds == ["scenario", "scenario", "trap"] + ["scenario"] * 9
    answer_post_questions(screen, sid)
    stored = Rating.objects.filter(session_id=sid).order_by("order_index")
    assert [r.kind for r in stored].count("scenario") == 10
    assert {r.kind for r in stored} == {"scenario", "trap", "hidden_reference"}

    text = lab.researcher.get(f"/api/v1/studies/{example_study.pk}/export/csv/").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["kind"] for r in rows] == ["scenario"] * 10 + ["trap", "hidden_reference"]
    assert rows[-2]["qc_expected"] == "2" and rows[-2]["rating"] == "5"
    assert {r["qc_failed"] for r in rows} == {"true"}
    assert rows[0]["qc_reasons"] == "trap 1: asked for 2 (Poor), answered 5"
    sureal = lab.researcher.get(f"/api/v1/studies/{example_study.pk}/export/sureal/").json()
    assert len(sureal["dis_videos"]) == 10  # the checks are no stimuli
    study = lab.researcher.get(f"/api/v1/studies/{example_study.pk}/").json()
    assert study["ratings_by_backend"] == {"dry-run": 10}  # as many as the analysis counts


@pytest.mark.django_db
def test_the_study_document_carries_the_checks(owned_example_study: Study) -> None:
    from qoelab.studies.study_document import (
        StudyDocumentError,
        export_study_document,
        load_study_document,
    )

    qc = {"traps": [trap(None)], "hidden_reference": {"scenario": "D1"}}
    Study.objects.filter(pk=owned_example_study.pk).update(quality_control=qc)
    owned_example_study.refresh_from_db()
    document = export_study_document(owned_example_study)
    assert document["quality_control"] == qc
    copy = load_study_document({**document, "slug": "qc-copy"}).study
    assert copy.quality_control == qc
    bad = {**document, "slug": "qc-bad", "quality_control": {"traps": [trap(1, 9)]}}
    with pytest.raises(StudyDocumentError, match="quality_control"):
        load_study_document(bad)
