"""Production smoke test: the deployed stack as separate processes, driven over HTTP.

gunicorn with production settings (QOELAB_ENV=production, behind a TLS proxy as far as
Django can tell), a Celery worker and the dry-run netem agent, against PostgreSQL and Redis
(own database, own Redis databases: smoke_stack.py). Through the HTTP API only, a
researcher runs one participant's complete session on a station bound to the agent,
imports a larger ratings file, and starts analysis jobs; the jobs run on the worker, and
survive the worker being stopped in the middle of them:

* hard stop — SIGKILL of the worker and its pool: the job's message was not acknowledged
  (acks_late), Redis gives it back after the visibility timeout (CELERY_VISIBILITY_TIMEOUT,
  a few seconds here), a newly started worker runs the job again from the start
  (attempt 2) and it succeeds;
* the pool process running the job dies, the worker lives (the OOM killer's choice): the
  worker hands the message back at once (reject_on_worker_lost) and runs the job again;
* warm stop — SIGTERM: the worker finishes the running job before it exits, and a
  restarted worker serves again.

The worker runs with the analysis paced (paced_worker.py) so that a job lasts a few seconds.
Run: cd deploy && ../.venv/bin/pytest -m system -s   (prints the timings)
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests
from smoke_stack import Api, Process, Stack, services, wait_for

STUDY = Path(__file__).resolve().parents[2] / "fixtures" / "studies" / "cloud-gaming-2014.json"
RESEARCHER = ("researcher", "qoelab-demo")  # manage.py ensure_demo_user
#: Redis re-delivers an unacknowledged message this long after it was delivered. A paced
#: job lasts 3-4 s: the timeout stays above that, as it must in production (docs/deploy.md),
#: and above the start-up of a new worker, so that the new worker is idle when the message
#: comes back and it is its periodic sweep (CELERY_UNACKED_RESTORE_INTERVAL) that restores it.
VISIBILITY_TIMEOUT_S = 12
STAGE_SECONDS = 0.35


@pytest.mark.system
def test_production_stack_finishes_jobs_across_worker_stops(tmp_path: Path) -> None:
    started = time.monotonic()
    timings: dict[str, Any] = {}
    with services() as backing:
        stack = Stack(
            tmp_path,
            backing,
            CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT_S),
            CELERY_UNACKED_RESTORE_INTERVAL="1",
            SMOKE_ANALYSIS_STAGE_SECONDS=str(STAGE_SECONDS),
        )
        try:
            _run(stack, timings)
        except BaseException:
            print(stack.report())
            raise
        finally:
            stack.stop_all()
    timings["total_s"] = round(time.monotonic() - started, 1)
    print("smoke timings:", json.dumps(timings, indent=1))


def _run(stack: Stack, timings: dict[str, Any]) -> None:
    t0 = time.monotonic()
    # --- one-shot commands as in docs/deploy.md, and the processes -------------------------
    agent = stack.agent()
    collectstatic = stack.manage_in_background("collectstatic", "--noinput")
    stack.manage("migrate", "--noinput")
    worker1 = stack.worker("smoke-1")  # starts up while the data is loaded
    stack.manage("ensure_demo_user")
    stack.manage("load_study", str(STUDY), "--owner", "researcher")
    wait_for("the agent", lambda: _up(f"{stack.agent_url}/healthz", agent), timeout=20)
    out = stack.manage(
        "ensure_station",
        "--name",
        "Smoke seat",
        "--agent-url",
        stack.agent_url,
        f"--token={stack.agent_token}",
        "--check",
    )
    assert "Agent health: ok" in out, out
    collectstatic.finish()  # before gunicorn: WhiteNoise indexes the static files at start
    web = stack.web()
    wait_for("gunicorn", lambda: _up(f"{stack.base_url}/healthz", web), timeout=30)
    researcher = Api(stack.base_url, auth=RESEARCHER)
    health = _worker_ready(researcher, worker1)
    assert health["database"]["vendor"] == "postgresql", health
    assert health["broker"]["mode"] == "broker" and health["worker"]["ok"], health
    timings["stack_up_s"] = round(time.monotonic() - t0, 1)
    timings["manage_s"] = stack.durations

    _check_production_mode(stack, researcher)

    # --- a complete session through the HTTP API ------------------------------------------
    t1 = time.monotonic()
    study = next(s for s in researcher.get("/api/v1/studies/") if s["slug"] == "cloud-gaming-2014")
    # The smoke seat's agent is a dry-run one: in production only a rehearsal may use it.
    study = researcher.call(
        "PATCH", f"/api/v1/studies/{study['id']}/", 200, json={"rehearsal": True}
    )
    assert study["rehearsal"] is True
    station = next(s for s in researcher.get("/api/v1/stations/") if s["name"] == "Smoke seat")
    session = _complete_session(stack, researcher, study, station)
    rows = _export_rows(researcher, study["id"])
    assert len(rows) == session["scenario_count"] == len(study["scenarios"])
    assert {row["agent_backend"] for row in rows} == {"dry-run"}
    # The export's impairments are what the agent installed, scenario by scenario.
    installed = _agent_installed_profiles(stack)
    assert len(installed) == len(rows)
    for row, profile in zip(rows, installed, strict=True):
        for column in ("ds_delay_ms", "us_delay_ms", "ds_loss_pct", "us_loss_pct"):
            assert abs(float(row[column]) - profile[column]) < 1e-6, (row, profile)
    timings["session_s"] = round(time.monotonic() - t1, 1)

    # --- more ratings: a synthetic study imported as a tidy CSV -----------------------------
    # The import is a job for the worker: the request answers at once (202).
    submitted = researcher.post(
        f"/api/v1/studies/{study['id']}/import/",
        data=_synthetic_ratings(study).encode(),
        headers={"Content-Type": "text/csv"},
        expect=202,
    )
    imported = _wait_imported(researcher, submitted, worker1)
    assert imported["worker"].startswith("smoke-1@"), imported
    timings["import_s"] = _duration(imported)
    total_rows = len(rows) + imported["ratings"]

    # --- hard stop: SIGKILL the worker in the middle of a job ------------------------------
    job = researcher.post(f"/api/v1/studies/{study['id']}/analysis/", {"reliable_only": False}, 202)
    # The job is queued before its input is read (the results cache, issue 16): the worker
    # builds the ratings table, so input_rows is known when it has run.
    assert job["state"] == "queued", job
    running = _wait_running(researcher, job["id"], worker1)
    assert running["worker"].startswith("smoke-1@") and running["attempts"] == 1, running
    killed_at = time.monotonic()
    worker1.kill_group()
    assert worker1.popen is not None and worker1.popen.returncode == -9
    timings["hard_stop"] = {
        "job": job["id"],
        "killed_at_progress": running["progress"],
        "killed_at_stage": running["stage"],
        "job_age_at_kill_s": round(killed_at - running["_seen_queued_at"], 1),
    }
    after_kill = researcher.get(f"/api/v1/analysis-jobs/{job['id']}/")
    assert after_kill["state"] == "running" and after_kill["worker"] == running["worker"]
    broker = _redis(stack.services.broker_url)
    assert broker.hlen("unacked") == 1, "the killed worker's message should wait in Redis"

    worker2 = stack.worker("smoke-2")
    _worker_ready(researcher, worker2)
    waiting = researcher.get(f"/api/v1/analysis-jobs/{job['id']}/")
    timings["hard_stop"]["new_worker_ready_after_s"] = round(time.monotonic() - killed_at, 1)
    # Normally the new worker is up before the visibility timeout has passed: the job still
    # stands as the dead worker left it, until the new worker's periodic sweep restores the
    # message. (On a slow machine the new worker's start-up scan restores it instead.)
    timings["hard_stop"]["restored_by"] = (
        "periodic sweep" if waiting["attempts"] == 1 else "start-up scan"
    )
    done = _wait_finished(researcher, job["id"], worker2, timeout=VISIBILITY_TIMEOUT_S + 40)
    recovered_in = time.monotonic() - killed_at
    assert done["state"] == "succeeded", done
    assert done["worker"].startswith("smoke-2@") and done["attempts"] == 2, done
    assert done["progress"] == 1.0 and done["input_rows"] == total_rows
    _check_result(done["result"], study)
    assert broker.hlen("unacked") == 0
    assert "Task analysis_jobs.run[" in worker2.text()
    timings["hard_stop"]["recovered_after_s"] = round(recovered_in, 1)
    timings["hard_stop"]["rerun_s"] = _duration(done)

    # --- the pool process dies under a live worker (e.g. the OOM killer) -----------------
    job2 = researcher.post(f"/api/v1/studies/{study['id']}/analysis/", {"reliable_only": True}, 202)
    running2 = _wait_running(researcher, job2["id"], worker2)
    (child,) = _children(worker2.pid)
    lost_at = time.monotonic()
    os.kill(child, signal.SIGKILL)
    done2 = _wait_finished(researcher, job2["id"], worker2, timeout=30)
    assert done2["state"] == "succeeded", done2
    # Handed back at once (reject_on_worker_lost), run again from the start by the same node.
    assert done2["worker"] == running2["worker"] and done2["attempts"] == 2, done2
    _check_result(done2["result"], study)
    timings["pool_process_lost"] = {
        "job": job2["id"],
        "killed_at_progress": running2["progress"],
        "recovered_after_s": round(time.monotonic() - lost_at, 1),
    }

    # --- warm stop: SIGTERM in the middle of a job, then a restart -------------------------
    # New ratings (one more imported session) make a new analysis input, hence a new job.
    late = researcher.post(
        f"/api/v1/studies/{study['id']}/import/",
        data=_synthetic_ratings(study, raters=1, sessions=1, prefix="LATE-").encode(),
        headers={"Content-Type": "text/csv"},
        expect=202,
    )
    _wait_imported(researcher, late, worker2)
    job3 = researcher.post(f"/api/v1/studies/{study['id']}/analysis/", {}, 202)
    running3 = _wait_running(researcher, job3["id"], worker2)
    stop_sent = time.monotonic()
    code = worker2.terminate(timeout=30)
    stopped_in = time.monotonic() - stop_sent
    assert code == 0, f"warm shutdown exit code {code}\n{worker2.tail()}"
    done3 = researcher.get(f"/api/v1/analysis-jobs/{job3['id']}/")
    assert done3["state"] == "succeeded", done3  # finished before the worker exited
    assert done3["worker"] == running3["worker"] and done3["attempts"] == 1, done3
    assert done3["input_rows"] == total_rows + len(study["scenarios"]), done3
    _check_result(done3["result"], study)
    worker3 = stack.worker("smoke-3")
    _worker_ready(researcher, worker3)
    # Asked again, the same analysis is the cached job: nothing runs twice.
    cached = researcher.post(f"/api/v1/studies/{study['id']}/analysis/", {}, 200)
    assert cached["id"] == job3["id"]
    timings["warm_stop"] = {
        "job": job3["id"],
        "stopped_at_progress": running3["progress"],
        "worker_exit_s": round(stopped_in, 1),
    }
    for process in (web, agent, worker3):
        process.check_alive()


# --- steps ---------------------------------------------------------------------------------


def _up(url: str, process: Process) -> bool:
    process.check_alive()
    try:
        return requests.get(url, timeout=2).status_code == 200
    except requests.RequestException:
        return False


def _worker_ready(api: Api, worker: Process) -> dict[str, Any]:
    """Wait for the worker's "ready" line, then for its answer to /healthz?worker=1."""

    def ready() -> bool:
        worker.check_alive()
        return f"{worker.name}@" in worker.text() and " ready." in worker.text()

    wait_for(f"worker {worker.name}", ready, timeout=60)
    # A worker that has just started may still be busy with a redelivered job (it runs
    # one task at a time), so the ping waits behind it: the probe answers 503 until the
    # job is done. Ask again within a bound instead of judging the first answer.
    last: dict[str, Any] = {}

    def answers() -> dict[str, Any] | None:
        worker.check_alive()
        try:
            response = api.http.get(f"{api.base_url}/healthz?worker=1", timeout=10)
            last.update(status=response.status_code, body=response.json())
        except (requests.RequestException, ValueError) as exc:
            last.update(status=None, body=repr(exc))
            return None
        body: dict[str, Any] = last["body"]
        return body if response.status_code == 200 and body["worker"]["ok"] else None

    try:
        result: dict[str, Any] = wait_for(
            f"worker {worker.name} to answer /healthz?worker=1", answers, 120, interval=1.0
        )
    except AssertionError as exc:
        raise AssertionError(f"{exc}; last answer: {last}") from None
    return result


def _check_production_mode(stack: Stack, researcher: Api) -> None:
    """DEBUG off, HTTPS enforced, static files from collectstatic (hashed, immutable)."""
    plain = requests.get(f"{stack.base_url}/api/v1/studies/", timeout=5, allow_redirects=False)
    assert plain.status_code == 301 and plain.headers["Location"].startswith("https://")
    proxied = researcher.http.get(f"{stack.base_url}/api/v1/studies/", timeout=5)
    assert proxied.headers.get("Strict-Transport-Security", "").startswith("max-age=")
    missing = researcher.http.get(f"{stack.base_url}/api/v1/no-such-thing/", timeout=5)
    assert missing.status_code == 404 and b"Traceback" not in missing.content
    assert b"DEBUG = True" not in missing.content
    manifest = json.loads((stack.directory / "static" / "staticfiles.json").read_text())
    hashed = manifest["paths"]["admin/css/base.css"]
    static = researcher.http.get(f"{stack.base_url}/static/{hashed}", timeout=5)
    assert static.status_code == 200 and "immutable" in static.headers["Cache-Control"]


def _complete_session(
    stack: Stack, researcher: Api, study: dict[str, Any], station: dict[str, Any]
) -> dict[str, Any]:
    person = researcher.post(
        "/api/v1/participants/", {"study": study["id"], "code": "SMOKE-1", "age": 29}, 201
    )
    game = next(g for g in study["games"] if g["pace"] == "fast")
    session = researcher.post(
        "/api/v1/sessions/",
        {"participant": person["id"], "game": game["id"], "station": station["id"]},
        201,
    )
    sid = session["id"]
    screen = Api(stack.base_url, **{"X-Participant-Token": session["participant_token"]})
    view = f"/api/v1/participant/sessions/{sid}/"
    assert screen.get(view)["step"] == "waiting"
    researcher.post(f"/api/v1/sessions/{sid}/start/")
    assert screen.get(view)["step"] == "questionnaire"
    screen.post(
        f"{view}questionnaire/", {"consent": True, "skill": "medium", "genre_preference": True}
    )
    assert screen.get(view)["step"] == "free_play"
    console = researcher.post(f"/api/v1/sessions/{sid}/advance/")  # the researcher ends it
    assert console["state"] == "playing" and console["current_scenario"]["code"] == "B"
    # (Researcher requests are few: HTTP basic auth costs a password hash on each.)
    for position in range(1, session["scenario_count"] + 1):
        shown = screen.get(view)
        assert shown["step"] == "playing" and shown["position"] == position, shown
        console = researcher.post(f"/api/v1/sessions/{sid}/advance/")  # the minute is over
        assert console["state"] == "rating" and screen.get(view)["step"] == "rating"
        applied = console["applied_profile"]
        requested = console["current_scenario"]["requested_profile"]
        assert applied["upstream"]["delay_ms"] == requested["upstream"]["delay_ms"], console
        delay = applied["upstream"]["delay_ms"] + applied["downstream"]["delay_ms"]
        score = max(1, min(5, round(5 - delay / 200)))
        rating = {"score": score, "position": position, "idempotency_key": uuid.uuid4().hex}
        screen.post(f"{view}rate/", rating, 201)
        if position == 1:
            screen.post(f"{view}rate/", rating, 200)  # a retried request: the same rating
    assert screen.get(view)["step"] == "post_questions"
    answers = {"answers": {"willing_to_pay": "yes", "attitude": "positive"}}
    assert screen.post(f"{view}post-questions/", answers)["step"] == "thanks"
    final: dict[str, Any] = researcher.get(f"/api/v1/sessions/{sid}/")
    assert final["state"] == "completed" and len(final["ratings"]) == session["scenario_count"]
    return final


def _export_rows(researcher: Api, study_id: int) -> list[dict[str, str]]:
    response = researcher.http.get(
        f"{researcher.base_url}/api/v1/studies/{study_id}/export/csv/", timeout=30
    )
    assert response.status_code == 200, response.text
    return list(csv.DictReader(io.StringIO(response.text)))


def _agent_installed_profiles(stack: Stack) -> list[dict[str, float]]:
    """Every profile the dry-run agent installed, from its recorded netem operations."""
    response = requests.get(
        f"{stack.agent_url}/v1/operations",
        headers={"Authorization": f"Bearer {stack.agent_token}"},
        timeout=5,
    )
    assert response.status_code == 200, response.text
    # deploy/agent-dry-run.sh: upstream (client -> server) leaves through the server side.
    prefix = {"veth-server": "us", "veth-client": "ds"}
    profiles: list[dict[str, float]] = []
    current: dict[str, float] = {}
    for op in response.json()["operations"]:
        if op.get("kind") != "netem" or op["op"] not in {"qdisc_add", "qdisc_change"}:
            continue
        params = op["params"]
        current[f"{prefix[op['dev']]}_delay_ms"] = params["latency_ns"] / 1e6
        current[f"{prefix[op['dev']]}_loss_pct"] = params["loss"] / 2**32 * 100
        if len(current) == 4:
            profiles.append(current)
            current = {}
    return profiles


def _synthetic_ratings(
    study: dict[str, Any], raters: int = 58, sessions: int = 79, prefix: str = "SYN-"
) -> str:
    """The analysis package's synthetic study (by default 58 raters, 79 sessions) as a tidy
    CSV of this study."""
    from qoe_analysis.synthetic import generate_study

    frame, _truth = generate_study(raters, sessions, seed=2014)
    names = {g["pace"]: g["name"] for g in study["games"]}
    frame["game"] = frame["game_pace"].map(names)
    frame["rater_id"] = prefix + frame["rater_id"].astype(str)
    frame["session_id"] = prefix + frame["session_id"].astype(str)
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return buffer.getvalue()


def _children(pid: int) -> list[int]:
    """The PIDs of ``pid``'s child processes (Celery's prefork pool)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def _job(api: Api, job_id: int) -> dict[str, Any]:
    body: dict[str, Any] = api.get(f"/api/v1/analysis-jobs/{job_id}/")
    return body


def _wait_imported(api: Api, submitted: dict[str, Any], worker: Process) -> dict[str, Any]:
    """Poll an import job until the worker has finished it; it must have succeeded."""

    def finished() -> dict[str, Any] | None:
        worker.check_alive()
        job: dict[str, Any] = api.get(f"/api/v1/import-jobs/{submitted['id']}/")
        return job if job["state"] in {"succeeded", "failed"} else None

    job: dict[str, Any] = wait_for(f"import {submitted['id']}", finished, timeout=60, interval=0.1)
    assert job["state"] == "succeeded" and job["ratings"] > 0, job
    return job


def _wait_running(api: Api, job_id: int, worker: Process) -> dict[str, Any]:
    """Poll until the worker has started the job and reported progress."""
    queued_at = time.monotonic()

    def running() -> dict[str, Any] | None:
        worker.check_alive()
        job = _job(api, job_id)
        assert job["state"] in {"queued", "running"}, job
        return job if job["state"] == "running" and job["progress"] > 0 else None

    job: dict[str, Any] = wait_for(f"job {job_id} running", running, timeout=30, interval=0.05)
    job["_seen_queued_at"] = queued_at
    return job


def _wait_finished(api: Api, job_id: int, worker: Process, timeout: float) -> dict[str, Any]:
    def finished() -> dict[str, Any] | None:
        worker.check_alive()
        job = _job(api, job_id)
        return job if job["state"] in {"succeeded", "failed"} else None

    result: dict[str, Any] = wait_for(f"job {job_id} finished", finished, timeout, interval=0.2)
    return result


def _check_result(result: Any, study: dict[str, Any]) -> None:
    assert isinstance(result, dict) and result, result
    text = json.dumps(result)
    for scenario in study["scenarios"]:
        assert f'"{scenario["code"]}"' in text  # every condition is in the analysis


def _duration(job: dict[str, Any]) -> float | None:
    from datetime import datetime

    if not (job.get("started_at") and job.get("finished_at")):
        return None
    started = datetime.fromisoformat(job["started_at"])
    finished = datetime.fromisoformat(job["finished_at"])
    return round((finished - started).total_seconds(), 1)


def _redis(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url)


def test_the_stack_needs_postgresql_and_redis(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not PostgreSQL/Redis: the smoke test skips locally and fails in CI (QOELAB_STRICT=1)."""
    monkeypatch.setenv("DATABASE_URL", "sqlite:////tmp/qoelab.sqlite3")
    monkeypatch.delenv("QOELAB_STRICT", raising=False)
    with pytest.raises(pytest.skip.Exception, match="needs PostgreSQL"), services():
        pass
    monkeypatch.setenv("QOELAB_STRICT", "1")
    with pytest.raises(pytest.fail.Exception, match=r"strict mode.*needs PostgreSQL"), services():
        pass
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    monkeypatch.setenv("CELERY_BROKER_URL", "amqp://guest@127.0.0.1:5672//")
    with pytest.raises(pytest.fail.Exception, match="needs Redis"), services():
        pass
