"""The tidy CSV's factor columns: every registry factor per direction, out and back in."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from typing import Any

import pytest
from django.conf import settings
from netem_profile import DirectionProfile, GilbertElliott
from qoe_analysis.tidy.columns import TIDY_COLUMNS
from rest_framework.test import APIClient

from qoelab.exports.tests.import_helpers import imported, refused
from qoelab.exports.tidy import tidy_table
from qoelab.participants.models import Participant
from qoelab.ratings.models import Rating
from qoelab.runs.models import Session
from qoelab.runs.services import create_session
from qoelab.runs.state_machine import State
from qoelab.studies.models import Study
from qoelab.studies.study_document import export_study_document, load_study_document

SYNTHETIC = settings.FIXTURES_DIR / "synthetic" / "dissertation_shape" / "ratings.csv"
BURST = {"p_pct": 5.0, "r_pct": 40.0, "loss_bad_pct": 100.0, "loss_good_pct": 0.0}


def own(client: APIClient, study: Study) -> Study:
    study.owner = client.handler._force_user  # type: ignore[attr-defined]
    study.save()
    return study


def read_back(upstream: DirectionProfile, downstream: DirectionProfile) -> dict[str, Any]:
    """What the agent answers as ``installed`` (and the session stores as applied_profile):
    every field of its profile per direction, the station's queue limit included."""
    return {"upstream": upstream.to_dict(), "downstream": downstream.to_dict()}


def rated_session(study: Study, code: str, applied: dict[str, Any]) -> Session:
    """A completed session whose every rating carries ``applied`` as the verified state."""
    participant = Participant.objects.create(study=study, code=code, age=30, skill="high")
    game = study.games.order_by("id").first()
    assert game is not None
    session = create_session(study=study, participant=participant, game=game, station=None)
    for index, entry in enumerate(session.order):
        Rating.objects.create(
            session=session,
            scenario_id=entry["scenario"],
            order_index=index,
            round=entry["round"],
            values={"overall": 3},
            rated_at=datetime(2026, 1, 1, tzinfo=UTC),
            applied_profile=applied,
            idempotency_key=f"k-{session.pk}-{index}",
            source="participant",
        )
    Session.objects.filter(pk=session.pk).update(state=State.COMPLETED)
    return session


@pytest.mark.django_db
def test_every_factor_column_comes_from_the_agents_read_back(example_study: Study) -> None:
    applied = read_back(
        DirectionProfile(delay_ms=40, jitter_ms=10, loss_pct=1, queue_limit_packets=500),
        DirectionProfile(
            delay_ms=120,
            jitter_ms=10,
            jitter_distribution="pareto",
            gilbert_elliott=GilbertElliott(**BURST),
            rate_kbit=8000,
            duplicate_pct=0.5,
        ),
    )
    rated_session(example_study, "P1", applied)
    table = tidy_table(example_study)
    assert table.columns[: len(TIDY_COLUMNS)] == list(TIDY_COLUMNS)
    assert table.columns[len(TIDY_COLUMNS) :] == ["age", "skill"]  # per-rater columns
    row = table.rows[0]
    # upstream → us_, downstream → ds_
    assert (row["us_delay_ms"], row["ds_delay_ms"]) == ("40.0", "120.0")
    assert row["us_jitter_ms"] == row["ds_jitter_ms"] == "10.0"
    assert (row["us_jitter_distribution"], row["ds_jitter_distribution"]) == ("normal", "pareto")
    assert (row["us_loss_pct"], row["ds_loss_pct"]) == ("1.0", "0.0")
    assert (row["ds_ge_p_pct"], row["ds_ge_r_pct"]) == ("5.0", "40.0")
    assert (row["ds_ge_loss_bad_pct"], row["ds_ge_loss_good_pct"]) == ("100.0", "0.0")
    # no burst loss upstream: the neutral chain (p = 0, r = 100 %)
    assert (row["us_ge_p_pct"], row["us_ge_r_pct"]) == ("0.0", "100.0")
    assert (row["ds_rate_kbit"], row["us_rate_kbit"]) == ("8000.0", "0.0")
    assert row["ds_duplicate_pct"] == "0.5" and row["us_corrupt_pct"] == "0.0"
    assert "queue_limit_packets" not in ",".join(table.columns)  # a station setting
    # The scenario column is the played row's code, the impairment what the agent verified.
    assert {r["scenario"] for r in table.rows} == {s.code for s in example_study.scenarios.all()}


@pytest.mark.django_db
def test_a_ratings_stored_by_an_older_import_export_with_neutral_fields(
    example_study: Study,
) -> None:
    # Imports before the registry stored only delay, jitter and loss per direction.
    rated_session(
        example_study,
        "P1",
        {
            "upstream": {"delay_ms": 80.0, "loss_pct": 0.0, "jitter_ms": 0.0},
            "downstream": {"delay_ms": 80.0, "loss_pct": 0.0, "jitter_ms": 0.0},
        },
    )
    row = tidy_table(example_study).rows[0]
    assert row["us_delay_ms"] == "80.0" and row["ds_jitter_ms"] == "0.0"
    assert row["ds_ge_r_pct"] == "100.0" and row["ds_jitter_distribution"] == "normal"


@pytest.mark.django_db
def test_the_old_four_column_csv_still_imports(researcher_client: APIClient) -> None:
    """The dissertation-shaped fixture (delay and loss per direction only) imports whole."""
    from django.conf import settings as django_settings

    from qoelab.studies.study_document import read_study_document

    document = read_study_document(
        django_settings.FIXTURES_DIR / "studies" / "cloud-gaming-2014.json"
    )
    document = export_study_document(load_study_document(document).study)
    document["slug"] = "synthetic"
    document["games"] = [
        {"name": "racing", "pace": "fast", "genre": ""},
        {"name": "rpg", "pace": "medium", "genre": ""},
        {"name": "soccer", "pace": "slow", "genre": ""},
    ]
    study = own(researcher_client, load_study_document(document).study)
    text = SYNTHETIC.read_text(encoding="utf-8")
    assert imported(researcher_client, study, text)["ratings"] == len(text.splitlines()) - 1
    # Stored complete (like the agent's read-back); jitter is the scenario's (0).
    rating = Rating.objects.filter(session__study=study, scenario__code="M1").first()
    assert rating is not None
    assert rating.applied_profile["upstream"]["loss_pct"] == 1.5
    assert rating.applied_profile["upstream"]["gilbert_elliott"] is None
    exported = list(
        csv.DictReader(
            io.StringIO(
                researcher_client.get(f"/api/v1/studies/{study.pk}/export/csv/").content.decode()
            )
        )
    )
    m1 = next(r for r in exported if r["scenario"] == "M1")
    assert (m1["ds_delay_ms"], m1["us_loss_pct"], m1["us_jitter_ms"]) == ("40.0", "1.5", "0.0")


@pytest.mark.django_db
def test_any_subset_of_factor_columns_imports_and_burst_loss_round_trips(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = own(researcher_client, example_study)
    g1 = researcher_client.post(
        "/api/v1/scenarios/",
        {
            "study": study.pk,
            "code": "G1",
            "upstream": {"jitter_ms": 10},
            "downstream": {"delay_ms": 30, "jitter_ms": 10, "gilbert_elliott": BURST},
        },
        format="json",
    )
    assert g1.status_code == 201, g1.content
    header = "rater_id,session_id,game,game_pace,scenario,ds_ge_p_pct,us_jitter_ms,rating\n"
    body = (
        "R1,s1,Gran Turismo HD Concept,fast,G1,5,10,2\nR1,s1,Gran Turismo HD Concept,fast,B,0,0,5\n"
    )
    imported(researcher_client, study, header + body)
    rating = Rating.objects.get(session__study=study, scenario__code="G1")
    # the columns the file lacks are the scenario's (ds delay 30, ds jitter 10)
    assert rating.applied_profile["downstream"]["gilbert_elliott"] == BURST
    assert rating.applied_profile["downstream"]["delay_ms"] == 30.0
    assert rating.applied_profile["downstream"]["jitter_ms"] == 10.0
    assert rating.applied_profile["upstream"]["jitter_ms"] == 10.0
    exported = list(
        csv.DictReader(
            io.StringIO(
                researcher_client.get(f"/api/v1/studies/{study.pk}/export/csv/").content.decode()
            )
        )
    )
    g1_row = next(r for r in exported if r["scenario"] == "G1")
    assert (g1_row["ds_ge_p_pct"], g1_row["ds_ge_r_pct"], g1_row["us_jitter_ms"]) == (
        "5.0",
        "40.0",
        "10.0",
    )
    assert g1_row["ds_delay_ms"] == "30.0" and g1_row["ds_loss_pct"] == "0.0"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("header", "row", "expected"),
    [
        (
            "ds_loss_pct",
            "150",
            "line 3: ds_loss_pct: loss 150 % is outside the registry's range [0, 100] %",
        ),
        (
            "us_delay_ms",
            "-5",
            "line 3: us_delay_ms: delay -5 ms is outside the registry's range [0, ",
        ),
        ("ds_rate_kbit", "1.5", "line 3: ds_rate_kbit: 1.5 does not match scenario D1 (0)"),
        (
            "ds_jitter_distribution",
            "uniform",
            "line 3: ds_jitter_distribution: jitter distribution 'uniform' is not one of",
        ),
        ("us_ge_p_pct", "abc", "line 3: us_ge_p_pct: value 'abc' is not a number"),
        ("ds_delay_ms", "81", "line 3: ds_delay_ms: 81 does not match scenario D1 (80)"),
        ("ds_ge_p_pct", "2", "line 3: ds_ge_p_pct: 2 does not match scenario D1 (0)"),
        ("age", "30", "line 1: the table has no impairment factor column"),
        ("ds_bandwidth", "3", "line 1: unknown column(s) ds_bandwidth"),
    ],
)
def test_factor_values_are_checked_naming_line_and_column(
    researcher_client: APIClient, example_study: Study, header: str, row: str, expected: str
) -> None:
    study = own(researcher_client, example_study)
    text = (
        f"rater_id,session_id,game,game_pace,scenario,{header},rating\n"
        f"R1,s1,Gran Turismo HD Concept,fast,B,{'30' if header == 'age' else '0'},5\n"
        f"R1,s1,Gran Turismo HD Concept,fast,D1,{row},4\n"
    )
    if header in {"ds_jitter_distribution"}:
        text = text.replace(",B,0,", ",B,normal,")
    job = refused(researcher_client, study, text, expected)
    # the job names the column at fault
    assert job["error_line"] == int(expected.split(":")[0].removeprefix("line "))
    assert job["error_column"] == (header if job["error_line"] == 3 else "")
    assert not study.sessions.exists()
