"""The long-format CSV import: any declared scale (a 0..6 dataset), items, training rows."""

from __future__ import annotations

import json

import pytest
from qoe_analysis.scales import parse_sidecar
from rest_framework.test import APIClient

from qoelab.exports.tests.import_helpers import imported, refused
from qoelab.exports.tests.test_exports import completed_session
from qoelab.ratings.models import Rating
from qoelab.studies.models import Study
from qoelab.studies.rating_items import GAMING_PRESET
from qoelab.studies.tests.test_rating_items_api import ZERO_TO_SIX

HEADER = "rater_id,session_id,game,game_pace,scenario,ds_delay_ms,item,rating"


@pytest.fixture
def owned(researcher_client: APIClient, owned_example_study: Study) -> Study:
    return owned_example_study  # researcher_client first: the study's owner is its user


VALUES = [3, 0, 6, 5, 1, 2]  # per rater R1, R2 and scenario B, D1, D3


def zero_to_six_csv() -> str:
    game = "Gran Turismo HD Concept"
    scenarios = (("B", 0), ("D1", 80), ("D3", 300))
    rows = [
        f"R{rater},s{rater},{game},fast,{code},{delay},overall,{VALUES[3 * (rater - 1) + index]}"
        for rater in (1, 2)
        for index, (code, delay) in enumerate(scenarios)
    ]
    return "\n".join([HEADER, *rows]) + "\n"


@pytest.mark.django_db
def test_a_zero_to_six_dataset_imports_once_the_scale_is_declared(
    researcher_client: APIClient, owned: Study
) -> None:
    text = zero_to_six_csv()
    # Undeclared (ACR-5): the 0 on line 3 is refused with its line, and nothing is written.
    refused(researcher_client, owned, text, "line 3:", "rating 0 of item 'overall'")
    response = researcher_client.patch(
        f"/api/v1/studies/{owned.pk}/", {"rating_items": [ZERO_TO_SIX]}, format="json"
    )
    assert response.status_code == 200, response.content
    assert imported(researcher_client, owned, text) == {
        "sessions": 2,
        "ratings": 6,
        "participants_created": 2,
    }
    stored = Rating.objects.order_by("session_id", "order_index")
    assert [r.values for r in stored] == [{"overall": v} for v in VALUES]


@pytest.mark.django_db
def test_rows_naming_an_undeclared_item_or_a_value_off_scale_are_refused(
    researcher_client: APIClient, owned: Study
) -> None:
    c = researcher_client
    good = "R1,s1,Gran Turismo HD Concept,fast,B,0,overall,4"
    refused(
        c,
        owned,
        f"{HEADER}\n{good}\nR1,s1,Gran Turismo HD Concept,fast,D1,80,fun,4\n",
        "line 3",
        "fun",
    )
    refused(
        c,
        owned,
        f"{HEADER}\n{good}\nR1,s1,Gran Turismo HD Concept,fast,D1,80,overall,4.5\n",
        "line 3",
        "overall",
    )
    refused(
        c,
        owned,
        f"{HEADER}\n{good}\n{good}\n",
        "line 3",
        "duplicated rating of rater 'R1', session 's1', scenario 'B', item 'overall'",
    )


@pytest.mark.django_db
def test_long_format_with_training_rows_round_trips(
    researcher_client: APIClient, owned: Study, example_study: Study
) -> None:
    owned.rating_items = GAMING_PRESET
    owned.acceptance = {"item": "acceptance"}
    owned.save()
    session = completed_session(owned, "P1", 0)
    # Values on each item's scale, a training rating first, and response times.
    for rating in Rating.objects.filter(session=session):
        rating.values = {
            "overall": rating.values["overall"],
            "input_quality": 2.5,
            "acceptance": 1,
        }  # video_quality left out: no row
        rating.response_ms = 1000 + rating.order_index
        rating.since_end_ms = 50
        rating.training = rating.order_index == 0
        rating.round = 0 if rating.training else 1
        rating.save()
    text = researcher_client.get(f"/api/v1/studies/{owned.pk}/export/csv/").content.decode()
    lines = text.splitlines()
    assert len(lines) == 1 + 10 * 3
    assert lines[0].endswith(
        "item,rating,training,response_ms,since_end_ms,agent_backend,agent_version,age,skill,"
        "genre_preference,willing_to_pay,attitude"
    )
    clone = researcher_client.post(
        f"/api/v1/studies/{owned.pk}/clone/", {"slug": "again", "title": "Again"}, format="json"
    ).json()
    other = Study.objects.get(pk=clone["id"])
    assert imported(researcher_client, other, text)["ratings"] == 10
    stored = list(Rating.objects.filter(session__study=other).order_by("order_index"))
    assert [r.training for r in stored] == [True] + [False] * 9
    assert stored[0].values == {"overall": 1, "input_quality": 2.5, "acceptance": 1}
    assert [r.response_ms for r in stored] == [1000 + i for i in range(10)]
    again = researcher_client.get(f"/api/v1/studies/{other.pk}/export/csv/").content.decode()
    strip = lambda t: sorted(line.split(",", 2)[2] for line in t.splitlines()[1:])  # noqa: E731
    assert strip(again) == strip(text)


@pytest.mark.django_db
def test_the_public_zero_to_six_fixture_imports_with_its_sidecar(
    researcher_client: APIClient,
) -> None:
    """fixtures/data/scale_0_6.csv (no item column) into a study that declares its sidecar."""
    from django.conf import settings

    folder = settings.FIXTURES_DIR / "data"
    sidecar = json.loads((folder / "scale_0_6.items.json").read_text(encoding="utf-8"))
    lab = researcher_client
    study = lab.post("/api/v1/studies/", {"slug": "zero-six", "title": "0..6"}, format="json")
    sid = study.json()["id"]
    for name, pace in (("racing", "fast"), ("soccer", "slow")):
        lab.post("/api/v1/games/", {"study": sid, "name": name, "pace": pace}, format="json")
    for code, delay in (("B", 0), ("D1", 100), ("D2", 200), ("D3", 300)):
        direction = {"delay_ms": delay}
        body = {"study": sid, "code": code, "is_baseline": code == "B"}
        response = lab.post(
            "/api/v1/scenarios/",
            {**body, "upstream": direction, "downstream": direction},
            format="json",
        )
        assert response.status_code == 201, response.content
    response = lab.patch(
        f"/api/v1/studies/{sid}/",
        {"rating_items": sidecar["items"], "acceptance": sidecar["acceptance"]},
        format="json",
    )
    assert response.status_code == 200, response.content
    text = (folder / "scale_0_6.csv").read_text(encoding="utf-8")
    counts = imported(lab, Study.objects.get(pk=sid), text)
    rows = text.strip().splitlines()[1:]
    assert counts["ratings"] == len(rows)
    values = sorted(r.values["quality"] for r in Rating.objects.filter(session__study_id=sid))
    assert values == sorted(int(row.rsplit(",", 1)[1]) for row in rows)
    assert values[0] == 0 and values[-1] == 6
    exported = lab.get(f"/api/v1/studies/{sid}/export/items/").json()
    assert exported == parse_sidecar(sidecar).to_dict()  # the same declaration, normalised
