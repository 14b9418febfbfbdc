"""Exports (tidy CSV readable by qoe_analysis, JSON, sureal) and the CSV import round trip."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest
from qoe_analysis import load_ratings
from rest_framework.test import APIClient

from qoelab.exports.tests.import_helpers import imported, refused
from qoelab.participants.models import Participant
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import Session
from qoelab.runs.services import create_session
from qoelab.runs.state_machine import State
from qoelab.studies.models import Game, Study
from qoelab.studies.study_document import export_study_document, load_study_document


def completed_session(study: Study, code: str, game_index: int, retest: bool = False) -> Session:
    participant, _ = Participant.objects.get_or_create(
        study=study, code=code, defaults={"age": 30, "skill": "high"}
    )
    game = list(study.games.order_by("id"))[game_index]
    session = create_session(study=study, participant=participant, game=game, station=None, seed=3)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    for index, entry in enumerate(session.order):
        scenario = study.scenarios.get(pk=entry["scenario"])
        Rating.objects.create(
            session=session,
            scenario=scenario,
            order_index=index,
            round=entry["round"],
            values={"overall": 1 + (index % 5)},
            rated_at=now,
            applied_profile=scenario.profile(),
            provenance={
                "backend": "netlink",
                "agent_version": "0.1.0",
                "kernel": None,
                "verified_at": "2026-01-01T00:00:00Z",
            },
            idempotency_key=f"key-{session.pk}-{index}",
            source="participant",
        )
    Answer.objects.create(
        session=session, phase="pre", key="genre_preference", value=True, answered_at=now
    )
    Answer.objects.create(
        session=session, phase="post", key="willing_to_pay", value="yes", answered_at=now
    )
    Answer.objects.create(
        session=session, phase="post", key="attitude", value="neutral", answered_at=now
    )
    Session.objects.filter(pk=session.pk).update(state=State.COMPLETED)
    return session


@pytest.mark.django_db
def test_csv_is_what_qoe_analysis_reads_and_imports_back(
    researcher_client: APIClient, example_study: Study
) -> None:
    example_study.owner = researcher_client.handler._force_user  # type: ignore[attr-defined]
    example_study.save()
    for code, game in (("P1", 0), ("P2", 1), ("P1", 2)):
        completed_session(example_study, code, game)
    response = researcher_client.get(f"/api/v1/studies/{example_study.pk}/export/csv/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    text = response.content.decode()
    table = load_ratings(io.StringIO(text))  # the analysis package's own validation
    assert len(table) == 30
    assert set(table.columns) >= {"age", "skill", "genre_preference", "willing_to_pay"}

    # Import into a second study with the same design: the same table comes out again.
    document = export_study_document(example_study)
    other = load_study_document(
        {**document, "slug": "elsewhere"},
        owner=researcher_client.handler._force_user,  # type: ignore[attr-defined]
    ).study
    counts = imported(researcher_client, other, text)
    assert counts == {"sessions": 3, "ratings": 30, "participants_created": 2}
    again = researcher_client.get(f"/api/v1/studies/{other.pk}/export/csv/").content.decode()
    strip = lambda t: sorted(line.split(",", 2)[2] for line in t.splitlines()[1:])  # noqa: E731
    assert again.splitlines()[0] == text.splitlines()[0]
    assert strip(again) == strip(text)  # same rows (session ids are new)
    # the provenance columns survive the round trip, as the file said them
    stored = Rating.objects.filter(session__study=other)
    assert {(r.source, r.provenance["backend"]) for r in stored} == {("import", "netlink")}


@pytest.mark.django_db
def test_an_import_without_provenance_columns_is_marked_import(
    researcher_client: APIClient, owned_example_study: Study, first_game: Game
) -> None:
    study = owned_example_study
    game = first_game
    scenario = study.scenarios.get(code="B")
    csv_text = (
        "rater_id,session_id,game,game_pace,scenario,ds_delay_ms,rating\n"
        f"R1,s1,{game.name},{game.pace},B,{scenario.profile()['downstream']['delay_ms']},4\n"
    )
    assert imported(researcher_client, study, csv_text)["ratings"] == 1
    assert Rating.objects.get().provenance == {"backend": "import"}
    exported = researcher_client.get(f"/api/v1/studies/{study.pk}/export/csv/").content.decode()
    row = next(csv.DictReader(io.StringIO(exported)))
    assert (row["agent_backend"], row["agent_version"]) == ("import", "")
    bad = csv_text.replace("rating\n", "rating,agent_backend\n").replace(",4\n", ",4,a b\n")
    job = refused(researcher_client, study, bad, "agent_backend")
    assert (job["error_line"], job["error_column"]) == (2, "agent_backend")


@pytest.mark.django_db
def test_json_and_sureal_exports(researcher_client: APIClient, example_study: Study) -> None:
    example_study.owner = researcher_client.handler._force_user  # type: ignore[attr-defined]
    example_study.retest_round = True
    example_study.save()
    completed_session(example_study, "P1", 0)
    completed_session(example_study, "P2", 0)
    body = researcher_client.get(f"/api/v1/studies/{example_study.pk}/export/json/").json()
    assert body["format"] == "qoelab.ratings/v1" and len(body["sessions"]) == 2
    assert len(body["sessions"][0]["ratings"]) == 19  # 10 + the 9 of the retest round
    csv_text = researcher_client.get(
        f"/api/v1/studies/{example_study.pk}/export/csv/"
    ).content.decode()
    assert len(csv_text.splitlines()) == 1 + 20  # the retest round is left out by default
    sureal = researcher_client.get(f"/api/v1/studies/{example_study.pk}/export/sureal/").json()
    assert sureal["ref_score"] == 5.0 and len(sureal["ref_videos"]) == 3
    stimuli = {d["scenario"]: d for d in sureal["dis_videos"]}
    assert len(stimuli) == 10 and set(stimuli["B"]["os"]) == {"P1", "P2"}
    repeated = stimuli["D1"]["os"]["P1"]
    assert isinstance(repeated, list) and len(repeated) == 2  # sureal's repetitions
    assert isinstance(stimuli["B"]["os"]["P1"], int)
    for video in sureal["dis_videos"]:
        assert {"asset_id", "content_id", "os", "path"} <= set(video)
        assert video["agent_backends"] == ["netlink"]  # provenance per stimulus
    assert sureal["agent_backends"] == {"netlink": 38}  # 19 ratings x 2 sessions, no training
    rated = body["sessions"][0]["ratings"][0]
    assert rated["provenance"]["backend"] == "netlink"
