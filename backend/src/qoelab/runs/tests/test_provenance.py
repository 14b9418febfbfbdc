"""Issue 13 finding 5: every rating says which agent backend applied its scenario, and in
production a dry-run agent is refused unless the study is a rehearsal."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.test import override_settings
from netem_agent import __version__ as AGENT_VERSION
from rest_framework.test import APIClient

from qoelab.exports.tidy import tidy_csv
from qoelab.ratings.models import Rating
from qoelab.runs.models import Session
from qoelab.runs.tests.lab import Lab, fill_questionnaire, rate
from qoelab.studies.models import Study
from qoelab.testing import DryRunAgent

# Each test runs a session on a real (dry-run) agent through the API.
pytestmark = [pytest.mark.slow, pytest.mark.django_db]


@pytest.fixture
def lab(researcher_client: APIClient) -> Lab:
    return Lab(researcher_client)


def _start(lab: Lab, study: Study, station: dict[str, Any]) -> dict[str, Any]:
    person = lab.participant(study.pk, "P1")
    game = study.games.first()
    assert game is not None
    session = lab.session(person["id"], game.pk, station["id"])
    lab.post(f"/api/v1/sessions/{session['id']}/start/")
    fill_questionnaire(lab.screen(session), session["id"])
    return session


def _rate_first(lab: Lab, session: dict[str, Any]) -> Rating:
    sid = session["id"]
    console = lab.post(f"/api/v1/sessions/{sid}/advance/")  # free play → applying → playing
    assert console["state"] == "playing", console
    lab.post(f"/api/v1/sessions/{sid}/advance/")  # → rating
    assert rate(lab.screen(session), sid, 4, 1).status_code == 201
    return Rating.objects.get(session_id=sid, order_index=0)


def test_a_dry_run_sessions_ratings_say_dry_run_and_so_does_the_tidy_csv(
    lab: Lab, researcher_client: APIClient, owned_example_study: Study, dry_run_agent: DryRunAgent
) -> None:
    station = lab.station("Seat", dry_run_agent.url, dry_run_agent.token)
    session = _start(lab, owned_example_study, station)
    rating = _rate_first(lab, session)
    stored = Session.objects.get(pk=session["id"])
    assert stored.applied_backend == "dry-run"
    assert stored.applied_agent_version == AGENT_VERSION
    assert set(stored.applied_kernel or {}) == {"upstream", "downstream"}
    provenance = dict(rating.provenance)
    kernel = provenance.pop("kernel")
    # a recording verifies nothing
    assert provenance == {"backend": "dry-run", "agent_version": AGENT_VERSION, "verified_at": None}
    # the kernel document of the rated scenario (the session's has moved on to the next)
    for direction in ("upstream", "downstream"):
        assert kernel[direction]["profile"] == rating.applied_profile[direction]
    console = researcher_client.get(f"/api/v1/sessions/{session['id']}/").json()
    assert console["applied_backend"] == "dry-run"
    detail = researcher_client.get(f"/api/v1/studies/{owned_example_study.pk}/").json()
    assert detail["ratings_by_backend"] == {"dry-run": 1} and detail["rehearsal"] is False
    rows = list(csv.DictReader(io.StringIO(tidy_csv(owned_example_study, include_incomplete=True))))
    assert rows and {(r["agent_backend"], r["agent_version"]) for r in rows} == {
        ("dry-run", AGENT_VERSION)
    }


@override_settings(IS_PRODUCTION=True)
def test_in_production_a_dry_run_agent_pauses_a_study_that_is_no_rehearsal(
    lab: Lab, owned_example_study: Study, dry_run_agent: DryRunAgent
) -> None:
    station = lab.station("Seat 7", dry_run_agent.url, dry_run_agent.token)
    session = _start(lab, owned_example_study, station)
    sid = session["id"]
    console = lab.post(f"/api/v1/sessions/{sid}/advance/")
    assert console["state"] == "paused" and console["paused_from"] == "applying"
    assert (
        "station 'Seat 7' runs a dry-run agent; this study is not marked as a rehearsal"
        in console["message"]
    )
    assert console["applied_profile"] is None and console["applied_backend"] == "dry-run"
    assert rate(lab.screen(session), sid, 4, 1).status_code == 409
    # resuming asks the agent again: still dry-run, still refused
    assert lab.post(f"/api/v1/sessions/{sid}/resume/")["state"] == "paused"
    assert Rating.objects.count() == 0
    # the recording was released at once, not left to the lease
    assert dry_run_agent.operations()[-1]["op"] == "qdisc_del"


@override_settings(IS_PRODUCTION=True)
def test_in_production_a_rehearsal_runs_on_a_dry_run_agent_and_is_marked(
    lab: Lab, researcher_client: APIClient, owned_example_study: Study, dry_run_agent: DryRunAgent
) -> None:
    edited = researcher_client.patch(
        f"/api/v1/studies/{owned_example_study.pk}/", {"rehearsal": True}, format="json"
    )
    assert edited.status_code == 200 and edited.json()["rehearsal"] is True
    station = lab.station("Seat", dry_run_agent.url, dry_run_agent.token)
    lab.post(f"/api/v1/stations/{station['id']}/check/")  # the check says dry-run: allowed
    session = _start(lab, owned_example_study, station)
    rating = _rate_first(lab, session)
    assert rating.provenance["backend"] == "dry-run"
    assert rating.provenance["verified_at"] is None


def test_in_production_a_station_last_checked_as_dry_run_gets_no_new_session(
    lab: Lab, researcher_client: APIClient, owned_example_study: Study, dry_run_agent: DryRunAgent
) -> None:
    station = lab.station("Seat 3", dry_run_agent.url, dry_run_agent.token)
    checked = lab.post(f"/api/v1/stations/{station['id']}/check/")
    assert checked["last_check_ok"] is True
    person = lab.participant(owned_example_study.pk, "P1")
    game = owned_example_study.games.first()
    assert game is not None
    body = {"participant": person["id"], "game": game.pk, "station": station["id"]}
    with override_settings(IS_PRODUCTION=True):
        refused = researcher_client.post("/api/v1/sessions/", body, format="json")
        assert refused.status_code == 409, refused.content
        assert (
            "runs a dry-run agent; this study is not marked as a rehearsal"
            in (refused.json()["detail"])
        )
        assert Session.objects.count() == 0
        owned_example_study.rehearsal = True
        owned_example_study.save()
        assert researcher_client.post("/api/v1/sessions/", body, format="json").status_code == 201
