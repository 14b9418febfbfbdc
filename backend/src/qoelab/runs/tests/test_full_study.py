"""Acceptance 1: a whole study run through the API as a lab would run it.

A researcher creates the study of table 4.1 (ten scenarios, three games), two stations
(each bound to a real `netem-agent serve` in dry-run mode), three participants; each
participant completes a session; the export CSV has 30 rows whose impairments are what
the agents recorded; the analysis job completes through Celery.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from netem_agent import __version__ as NETEM_AGENT_VERSION
from qoe_analysis.tidy.columns import TIDY_COLUMNS
from rest_framework.test import APIClient

from qoelab.runs.tests.lab import (
    Lab,
    answer_post_questions,
    fill_questionnaire,
    participant_view,
    rate,
)
from qoelab.testing import DryRunAgent, wait_for

EXAMPLE = settings.FIXTURES_DIR / "studies" / "cloud-gaming-2014.json"


def score_for(profile: dict[str, Any]) -> int:
    """A plausible rater: worse with delay and loss (keeps the analysis meaningful)."""
    delay = profile["upstream"]["delay_ms"] + profile["downstream"]["delay_ms"]
    loss = profile["upstream"]["loss_pct"] + profile["downstream"]["loss_pct"]
    return max(1, min(5, round(5 - delay / 200 - loss * 1.2)))


def create_study(lab: Lab) -> dict[str, Any]:
    document = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    study = lab.post(
        "/api/v1/studies/",
        {"slug": "replication", "title": "Replication", "description": "table 4.1"},
        201,
    )
    for game in document["games"]:
        lab.post("/api/v1/games/", {"study": study["id"], **game}, 201)
    for scenario in document["scenarios"]:
        lab.post("/api/v1/scenarios/", {"study": study["id"], **scenario}, 201)
    detail: dict[str, Any] = lab.researcher.get(f"/api/v1/studies/{study['id']}/").json()
    assert [s["code"] for s in detail["scenarios"]] == [s["code"] for s in document["scenarios"]]
    assert detail["owner"] == "alice" and detail["scale_labels"][0] == "bad"
    return detail


def run_session(lab: Lab, session: dict[str, Any]) -> list[int]:
    """One participant's whole session; returns the scores given."""
    sid = session["id"]
    screen = lab.screen(session)
    assert participant_view(screen, sid)["step"] == "waiting"
    lab.post(f"/api/v1/sessions/{sid}/start/")
    assert participant_view(screen, sid)["step"] == "questionnaire"
    fill_questionnaire(screen, sid)
    view = participant_view(screen, sid)
    assert view["step"] == "free_play" and view["seconds_remaining"] > 590
    # The participant may not cut the 10 minutes of free play short; the researcher may.
    early = screen.post(f"/api/v1/participant/sessions/{sid}/finish-free-play/")
    assert early.status_code == 409 and "more seconds" in early.json()["detail"]
    console = lab.post(f"/api/v1/sessions/{sid}/advance/")
    assert console["state"] == "playing" and console["position"] == 1
    assert console["current_scenario"]["code"] == "B"  # baseline first
    scores = []
    for position in range(1, session["scenario_count"] + 1):
        view = participant_view(screen, sid)
        assert view["step"] == "playing" and view["position"] == position
        blob = json.dumps(view)
        for hint in ("delay", "loss", "jitter", "code", "profile", 'scenario"'):
            assert hint not in blob, (hint, blob)
        console = lab.researcher.get(f"/api/v1/sessions/{sid}/").json()
        applied = console["applied_profile"]
        assert (
            applied["upstream"]["delay_ms"]
            == console["current_scenario"]["requested_profile"]["upstream"]["delay_ms"]
        )
        lab.post(f"/api/v1/sessions/{sid}/advance/")  # the minute is over (researcher)
        view = participant_view(screen, sid)
        assert view["step"] == "rating" and [o["label"] for o in view["scale"]] == [
            "bad",
            "poor",
            "fair",
            "good",
            "excellent",
        ]
        score = score_for(applied)
        response = rate(screen, sid, score, position)
        assert response.status_code == 201, response.content
        scores.append(score)
    assert participant_view(screen, sid)["step"] == "post_questions"
    assert answer_post_questions(screen, sid)["step"] == "thanks"
    return scores


@pytest.fixture
def celery_worker_if_broker() -> Iterator[None]:
    """A real worker when a broker is configured (CI: Redis); else tasks run in-process."""
    if not os.environ.get("CELERY_BROKER_URL"):
        yield
        return
    from celery.contrib.testing.worker import start_worker

    from qoelab.celery import app

    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30):
        yield


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_lab_runs_the_whole_study(
    dry_run_agent: DryRunAgent,
    second_dry_run_agent: DryRunAgent,
    celery_worker_if_broker: None,
) -> None:
    user = get_user_model().objects.create_user("alice", password="alice-password-1")
    client = APIClient()
    client.force_authenticate(user)
    lab = Lab(client)
    study = create_study(lab)
    games = {g["pace"]: g["id"] for g in study["games"]}
    seat1 = lab.station("Seat 1", dry_run_agent.url, dry_run_agent.token)
    seat2 = lab.station("Seat 2", second_dry_run_agent.url, second_dry_run_agent.token)
    checked = lab.post(f"/api/v1/stations/{seat1['id']}/check/")
    assert checked["last_check_ok"] is True, checked
    people = [
        lab.participant(study["id"], code, age)
        for code, age in (("P1", 23), ("P2", 31), ("P3", 27))
    ]

    s1 = lab.session(people[0]["id"], games["fast"], seat1["id"])
    s2 = lab.session(people[1]["id"], games["medium"], seat2["id"])
    s3 = lab.session(people[2]["id"], games["slow"], seat1["id"])
    assert s1["order"][0]["code"] == "B" and len(s1["order"]) == 10
    assert sorted(e["code"] for e in s1["order"]) == sorted(s["code"] for s in study["scenarios"])

    lab.post(f"/api/v1/sessions/{s1['id']}/start/")
    # Seat 1 is taken until session 1 is over.
    busy = client.post(f"/api/v1/sessions/{s3['id']}/start/")
    assert busy.status_code == 409 and "busy" in busy.json()["detail"]
    assert participant_view(lab.screen(s1), s1["id"])["step"] == "questionnaire"
    _run_from_questionnaire(lab, s1)
    run_session(lab, s2)
    run_session(lab, s3)

    sessions = {s["id"]: s for s in client.get(f"/api/v1/sessions/?study={study['id']}").json()}
    assert {s["state"] for s in sessions.values()} == {"completed"}

    # --- the export: 30 rows, impairments = what the agents recorded -------------------
    response = client.get(f"/api/v1/studies/{study['id']}/export/csv/")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 30
    # identity, every factor column of the registry (ds then us per factor), the rating
    assert list(rows[0])[: len(TIDY_COLUMNS)] == list(TIDY_COLUMNS)
    assert list(TIDY_COLUMNS)[5:9] == ["ds_delay_ms", "us_delay_ms", "ds_jitter_ms", "us_jitter_ms"]
    assert {"age", "skill", "genre_preference", "willing_to_pay", "attitude"} <= set(rows[0])
    # provenance: every rating says which agent backend applied it (issue 13)
    assert {(row["agent_backend"], row["agent_version"]) for row in rows} == {
        ("dry-run", NETEM_AGENT_VERSION)
    }
    recorded = {
        seat1["id"]: dry_run_agent.applied_profiles(),
        seat2["id"]: second_dry_run_agent.applied_profiles(),
    }
    assert len(recorded[seat1["id"]]) == 20 and len(recorded[seat2["id"]]) == 10
    by_station: dict[int, list[dict[str, str]]] = {seat1["id"]: [], seat2["id"]: []}
    for row in rows:  # rows are ordered by session, then by position in the session
        by_station[sessions[int(row["session_id"])]["station"]].append(row)
    for station, station_rows in by_station.items():
        for row, installed in zip(station_rows, recorded[station], strict=True):
            for column in ("ds_delay_ms", "us_delay_ms", "ds_loss_pct", "us_loss_pct"):
                assert float(row[column]) == pytest.approx(installed[column], abs=1e-6), (
                    row,
                    installed,
                )
        assert [r["scenario"] for r in station_rows] == [
            entry["code"]
            for s in sessions.values()
            if s["station"] == station
            for entry in s["order"]
        ]

    # --- the analysis job, through Celery ------------------------------------------------
    job = lab.post(f"/api/v1/studies/{study['id']}/analysis/", {"reliable_only": False}, 202)

    def finished() -> dict[str, Any] | None:
        body: dict[str, Any] = client.get(f"/api/v1/analysis-jobs/{job['id']}/").json()
        return body if body["state"] in {"succeeded", "failed"} else None

    done = wait_for("the analysis job", finished, timeout=120, interval=0.2)
    assert done["state"] == "succeeded", done["error"]
    assert done["progress"] == 1.0 and done["input_rows"] == 30
    assert isinstance(done["result"], dict) and done["result"]
    # Asking again for the same data and version answers with the cached job.
    again = lab.post(f"/api/v1/studies/{study['id']}/analysis/", {"reliable_only": False}, 200)
    assert again["id"] == job["id"]
    if os.environ.get("CELERY_BROKER_URL"):
        assert settings.CELERY_TASK_ALWAYS_EAGER is False


def _run_from_questionnaire(lab: Lab, session: dict[str, Any]) -> None:
    # run_session's first two checks ("waiting", start) do not apply; the rest does.
    sid = session["id"]
    screen = lab.screen(session)
    fill_questionnaire(screen, sid)
    lab.post(f"/api/v1/sessions/{sid}/advance/")
    for position in range(1, session["scenario_count"] + 1):
        console = lab.researcher.get(f"/api/v1/sessions/{sid}/").json()
        assert console["state"] == "playing" and console["position"] == position
        lab.post(f"/api/v1/sessions/{sid}/advance/")
        assert rate(screen, sid, score_for(console["applied_profile"]), position).status_code == 201
    answer_post_questions(screen, sid, willing_to_pay="no", attitude="neutral")
