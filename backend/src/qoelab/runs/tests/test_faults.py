"""Acceptance 2: faults — the agent down, refusing or lying; retries; restarts; tokens."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import requests
from django.conf import settings
from django.utils import timezone
from rest_framework.test import APIClient

from qoelab.ratings.models import Rating
from qoelab.runs import services
from qoelab.runs.models import Session
from qoelab.runs.tests.lab import Lab, fill_questionnaire, participant_view, rate
from qoelab.studies.models import Study
from qoelab.testing import AgentDouble, DryRunAgent, free_port, wait_for

MANAGE = Path(settings.BACKEND_DIR) / "manage.py"

Started = tuple[Lab, dict[str, Any], APIClient]


def _setup(researcher_client: APIClient, study: Study, url: str, token: str) -> Started:
    study.owner = researcher_client.handler._force_user  # type: ignore[attr-defined]
    study.save()
    lab = Lab(researcher_client)
    station = lab.station("Seat", url, token)
    person = lab.participant(study.pk, "P1")
    session = lab.session(person["id"], study.games.first().pk, station["id"])  # type: ignore[union-attr]
    lab.post(f"/api/v1/sessions/{session['id']}/start/")
    screen = lab.screen(session)
    fill_questionnaire(screen, session["id"])
    return lab, session, screen


@pytest.fixture
def started(
    researcher_client: APIClient, example_study: Study, dry_run_agent: DryRunAgent
) -> Started:
    """A session on a station of the dry-run agent, started, its questionnaire filled in."""
    return _setup(researcher_client, example_study, dry_run_agent.url, dry_run_agent.token)


@pytest.mark.slow
@pytest.mark.django_db
def test_agent_down_at_applying_pauses_and_resumes_when_it_is_back(
    researcher_client: APIClient,
    dry_run_agent: DryRunAgent,
    started: Started,
) -> None:
    lab, session, screen = started
    sid = session["id"]
    dry_run_agent.stop()
    console = lab.post(f"/api/v1/sessions/{sid}/advance/")
    assert console["state"] == "paused" and console["paused_from"] == "applying"
    assert "unreachable" in console["message"] and "scenario 1 of 10 (B)" in console["message"]
    view = participant_view(screen, sid)
    assert view["step"] == "paused" and "unreachable" not in str(view)
    # No rating can be recorded for that scenario, by anyone.
    assert rate(screen, sid, 4, 1).status_code == 409
    response = researcher_client.post(
        f"/api/v1/sessions/{sid}/rate/",
        {"score": 4, "position": 1, "idempotency_key": "researcher-1"},
        format="json",
    )
    assert response.status_code == 409 and "paused" in response.json()["detail"]
    assert Rating.objects.count() == 0
    # Resuming while the agent is still down pauses again, with a new message.
    assert lab.post(f"/api/v1/sessions/{sid}/resume/")["state"] == "paused"
    dry_run_agent.start()
    console = lab.post(f"/api/v1/sessions/{sid}/resume/")
    assert console["state"] == "playing" and console["position"] == 1
    assert console["applied_profile"]["upstream"]["delay_ms"] == 0.0
    lab.post(f"/api/v1/sessions/{sid}/advance/")
    assert rate(screen, sid, 5, 1).status_code == 201
    assert Rating.objects.get().applied_profile["downstream"]["loss_pct"] == 0.0


@pytest.mark.slow
@pytest.mark.django_db
def test_agent_refusing_the_token_pauses_the_session(
    researcher_client: APIClient, example_study: Study, dry_run_agent: DryRunAgent
) -> None:
    _lab, session, screen = _setup(
        researcher_client, example_study, dry_run_agent.url, "not-the-agents-token-at-all"
    )
    # Already free play needs the agent (to make the station unimpaired): it refuses.
    console = researcher_client.get(f"/api/v1/sessions/{session['id']}/").json()
    assert console["state"] == "paused" and console["paused_from"] == "free_play"
    assert "HTTP 401" in console["message"] and "invalid bearer token" in console["message"]
    assert participant_view(screen, session["id"])["step"] == "paused"
    assert rate(screen, session["id"], 3, 1).status_code == 409


@pytest.fixture
def lying_agent() -> Iterator[AgentDouble]:
    neutral = {"delay_ms": 0.0, "jitter_ms": 0.0, "loss_pct": 0.0}
    double = AgentDouble({"upstream": {**neutral, "delay_ms": 999.0}, "downstream": neutral})
    double.start()
    try:
        yield double
    finally:
        double.stop()


@pytest.mark.django_db
def test_agent_reporting_a_different_state_pauses_the_session(
    researcher_client: APIClient, example_study: Study, lying_agent: AgentDouble
) -> None:
    lab, session, screen = _setup(
        researcher_client, example_study, lying_agent.url, "double-token-0123456789"
    )
    console = lab.post(f"/api/v1/sessions/{session['id']}/advance/")
    assert console["state"] == "paused"
    assert "different state" in console["message"] and "999" in console["message"]
    assert console["applied_profile"] is None
    assert rate(screen, session["id"], 3, 1).status_code == 409
    assert ("PUT", "/v1/profile") in lying_agent.requests


@pytest.mark.slow
@pytest.mark.django_db
def test_a_duplicate_rating_submission_creates_one_rating(
    started: Started,
) -> None:
    lab, session, screen = started
    sid = session["id"]
    lab.post(f"/api/v1/sessions/{sid}/advance/")
    lab.post(f"/api/v1/sessions/{sid}/advance/")
    first = rate(screen, sid, 4, 1, key="retry-me-0001")
    again = rate(screen, sid, 4, 1, key="retry-me-0001")
    assert first.status_code == 201 and again.status_code == 200
    assert again.json()["created"] is False
    assert Rating.objects.count() == 1
    # The retry did not advance the session a second time.
    assert participant_view(screen, sid)["position"] == 2
    conflicting = rate(screen, sid, 2, 1, key="retry-me-0001")
    assert conflicting.status_code == 409 and "already used" in conflicting.json()["detail"]
    assert Rating.objects.get().values == {"overall": 4}


@pytest.mark.django_db
def test_a_participant_token_opens_its_own_session_only(
    researcher_client: APIClient, example_study: Study
) -> None:
    example_study.owner = researcher_client.handler._force_user  # type: ignore[attr-defined]
    example_study.save()
    lab = Lab(researcher_client)
    games = list(example_study.games.all())
    person = lab.participant(example_study.pk, "P1")
    mine = lab.session(person["id"], games[0].pk, None)
    theirs = lab.session(person["id"], games[1].pk, None)
    screen = lab.screen(mine)
    assert participant_view(screen, mine["id"])["step"] == "waiting"
    assert screen.get(f"/api/v1/participant/sessions/{theirs['id']}/").status_code == 403
    response = rate(screen, theirs["id"], 5, 1)
    assert response.status_code == 403
    for action in ("questionnaire", "finish-free-play", "post-questions"):
        path = f"/api/v1/participant/sessions/{theirs['id']}/{action}/"
        assert screen.post(path, {}, format="json").status_code == 403, action
    # Researcher endpoints are not reachable with a participant token either.
    assert screen.get(f"/api/v1/sessions/{mine['id']}/").status_code in {401, 403}
    anonymous = APIClient()
    assert anonymous.get(f"/api/v1/participant/sessions/{mine['id']}/").status_code in {401, 403}
    anonymous.credentials(HTTP_X_PARTICIPANT_TOKEN="guessed-token")
    assert anonymous.get(f"/api/v1/participant/sessions/{mine['id']}/").status_code in {401, 403}
    assert Rating.objects.count() == 0


@pytest.mark.slow
@pytest.mark.django_db
def test_the_scenario_timer_and_the_lease_heartbeat(
    researcher_client: APIClient,
    dry_run_agent: DryRunAgent,
    started: Started,
) -> None:
    lab, session, screen = started
    sid = session["id"]
    lab.post(f"/api/v1/sessions/{sid}/advance/")
    # A controlled clock: the scenario started 20 s ago, the lease was renewed 20 s ago.
    past = timezone.now() - timedelta(seconds=20)
    Session.objects.filter(pk=sid).update(scenario_started_at=past, lease_renewed_at=past)
    before = dry_run_agent.request("GET", "/v1/profile")["lease_expires_at"]
    view = participant_view(screen, sid)  # polling renews the (overdue) lease
    assert view["step"] == "playing" and 39 <= view["seconds_remaining"] <= 40
    assert dry_run_agent.request("GET", "/v1/profile")["lease_expires_at"] > before
    assert Session.objects.get(pk=sid).lease_renewed_at > past
    # The minute is over: the next poll shows the rating step, ended on the timer.
    started = timezone.now() - timedelta(seconds=61)
    Session.objects.filter(pk=sid).update(scenario_started_at=started)
    assert participant_view(screen, sid)["step"] == "rating"
    row = Session.objects.get(pk=sid)
    assert row.scenario_ended_at == started + timedelta(seconds=60)
    assert rate(screen, sid, 5, 1).status_code == 201
    # The agent loses the profile mid-play (e.g. its lease ran out): the heartbeat notices.
    dry_run_agent.request("DELETE", "/v1/profile")
    Session.objects.filter(pk=sid).update(lease_renewed_at=timezone.now() - timedelta(seconds=11))
    console = researcher_client.get(f"/api/v1/sessions/{sid}/").json()
    assert console["state"] == "paused" and "Heartbeat failed" in console["message"]
    # paused from the phase it was in (issue 35); resuming replays the scenario in full
    assert console["paused_from"] == "playing"


@pytest.mark.slow
@pytest.mark.django_db
def test_a_session_paused_too_long_has_its_impairment_cleared(
    dry_run_agent: DryRunAgent,
    started: Started,
) -> None:
    lab, session, _screen = started
    sid = session["id"]
    lab.post(f"/api/v1/sessions/{sid}/advance/")
    lab.post(f"/api/v1/sessions/{sid}/pause/", {"reason": "participant needs a break"})
    assert dry_run_agent.request("GET", "/v1/profile")["applied"] is True
    paused_at = Session.objects.get(pk=sid).paused_at
    assert paused_at is not None
    assert services.expire_sessions(now=paused_at + timedelta(seconds=299)) == []
    assert services.expire_sessions(now=paused_at + timedelta(seconds=301)) == [sid]
    assert dry_run_agent.request("GET", "/v1/profile")["applied"] is False
    assert Session.objects.get(pk=sid).impairment_cleared_at is not None
    assert services.expire_sessions(now=paused_at + timedelta(seconds=900)) == []  # once
    # Resuming replays the interrupted scenario from its start.
    console = lab.post(f"/api/v1/sessions/{sid}/resume/")
    assert console["state"] == "playing" and console["position"] == 1
    assert dry_run_agent.request("GET", "/v1/profile")["applied"] is True
    # Aborting clears the impairment and frees the station.
    console = lab.post(f"/api/v1/sessions/{sid}/abort/", {"reason": "test"})
    assert console["state"] == "aborted"
    assert dry_run_agent.request("GET", "/v1/profile")["applied"] is False


# --- a real server restart ---------------------------------------------------------------


class Server:
    """`manage.py runserver` on its own SQLite file (as `make demo` runs it)."""

    def __init__(self, data_dir: Path) -> None:
        self.env = {
            **{
                k: v
                for k, v in os.environ.items()
                if k not in {"DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"}
            },
            "QOELAB_DATA_DIR": str(data_dir),
        }
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None
        self.log = data_dir / "server.log"

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, str(MANAGE), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    def start(self) -> None:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, str(MANAGE), "runserver", f"127.0.0.1:{self.port}", "--noreload"],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )

        def healthy() -> bool:
            assert self.process is not None and self.process.poll() is None, self.log.read_text()
            try:
                return requests.get(f"{self.url}/healthz", timeout=1).status_code == 200
            except requests.RequestException:
                return False

        wait_for("the web server", healthy, timeout=60, interval=0.2)

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)  # a crash, not a clean shutdown
        self.process.wait(timeout=20)


@pytest.mark.slow
def test_a_server_restart_mid_session_resumes_at_the_same_scenario(
    tmp_path: Path, dry_run_agent: DryRunAgent
) -> None:
    server = Server(tmp_path)
    server.manage("migrate", "--noinput", "-v", "0")
    server.manage("ensure_demo_user", "--username", "lab", "--password", "lab-password-1")
    example = settings.FIXTURES_DIR / "studies" / "cloud-gaming-2014.json"
    server.manage("load_study", str(example), "--owner", "lab")
    server.manage(
        "ensure_station",
        "--name",
        "Seat 1",
        "--agent-url",
        dry_run_agent.url,
        f"--token={dry_run_agent.token}",
    )
    server.start()
    api = requests.Session()
    api.auth = ("lab", "lab-password-1")
    try:
        study = api.get(f"{server.url}/api/v1/studies/").json()[0]
        detail = api.get(f"{server.url}/api/v1/studies/{study['id']}/").json()
        station = api.get(f"{server.url}/api/v1/stations/").json()[0]
        person = api.post(
            f"{server.url}/api/v1/participants/", json={"study": study["id"], "age": 30}
        ).json()
        session = api.post(
            f"{server.url}/api/v1/sessions/",
            json={
                "participant": person["id"],
                "game": detail["games"][0]["id"],
                "station": station["id"],
            },
        ).json()
        sid = session["id"]
        base = f"{server.url}/api/v1/sessions/{sid}"
        screen = requests.Session()
        screen.headers["X-Participant-Token"] = session["participant_token"]
        mine = f"{server.url}/api/v1/participant/sessions/{sid}"
        assert api.post(f"{base}/start/").status_code == 200
        body = {"consent": True, "skill": "low", "genre_preference": False}
        assert screen.post(f"{mine}/questionnaire/", json=body).status_code == 200
        assert api.post(f"{base}/advance/").json()["state"] == "playing"
        for position in (1, 2):
            api.post(f"{base}/advance/")
            key = f"restart-test-{position}"
            answer = screen.post(
                f"{mine}/rate/", json={"score": 4, "position": position, "idempotency_key": key}
            )
            assert answer.status_code == 201, answer.text
        before = api.get(f"{base}/").json()
        assert before["state"] == "playing" and before["position"] == 3

        server.kill()
        server.start()

        view = screen.get(f"{mine}/").json()
        assert view["step"] == "playing" and view["position"] == 3
        after = api.get(f"{base}/").json()
        assert after["current_scenario"] == before["current_scenario"]
        assert after["order"] == before["order"] and after["seed"] == before["seed"]
        # A retry of a rating sent before the restart is still recognised.
        retry = screen.post(
            f"{mine}/rate/", json={"score": 4, "position": 2, "idempotency_key": "restart-test-2"}
        )
        assert retry.status_code == 200 and retry.json()["created"] is False
        api.post(f"{base}/advance/")
        answer = screen.post(
            f"{mine}/rate/", json={"score": 3, "position": 3, "idempotency_key": "restart-test-3"}
        )
        assert answer.status_code == 201, answer.text
        assert len(api.get(f"{base}/").json()["ratings"]) == 3
    finally:
        if server.process is not None and server.process.poll() is None:
            server.kill()
