"""The steps of test_production_smoke.py over HTTP: health, production mode, a complete
session, the export and the agent's installed profiles, an import of synthetic ratings, and
waiting on the worker's import and analysis jobs."""

from __future__ import annotations

import csv
import io
import json
import time
import uuid
from pathlib import Path
from typing import Any

import requests
from smoke_stack import HEALTH_TOKEN, Api, Process, Stack, wait_for


def up(url: str, process: Process) -> bool:
    process.check_alive()
    try:
        return requests.get(url, timeout=2).status_code == 200
    except requests.RequestException:
        return False


def worker_ready(api: Api, worker: Process) -> dict[str, Any]:
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
            response = api.http.get(
                f"{api.base_url}/healthz?worker=1",
                headers={"X-Health-Token": HEALTH_TOKEN},
                timeout=10,
            )
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


def check_production_mode(stack: Stack, researcher: Api) -> None:
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


def complete_session(
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


def export_rows(researcher: Api, study_id: int) -> list[dict[str, str]]:
    response = researcher.http.get(
        f"{researcher.base_url}/api/v1/studies/{study_id}/export/csv/", timeout=30
    )
    assert response.status_code == 200, response.text
    return list(csv.DictReader(io.StringIO(response.text)))


def agent_installed_profiles(stack: Stack) -> list[dict[str, float]]:
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


def synthetic_ratings(
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


def child_pids(pid: int) -> list[int]:
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


def wait_imported(api: Api, submitted: dict[str, Any], worker: Process) -> dict[str, Any]:
    """Poll an import job until the worker has finished it; it must have succeeded."""

    def finished() -> dict[str, Any] | None:
        worker.check_alive()
        job: dict[str, Any] = api.get(f"/api/v1/import-jobs/{submitted['id']}/")
        return job if job["state"] in {"succeeded", "failed"} else None

    job: dict[str, Any] = wait_for(f"import {submitted['id']}", finished, timeout=60, interval=0.1)
    assert job["state"] == "succeeded" and job["ratings"] > 0, job
    return job


def wait_running(api: Api, job_id: int, worker: Process) -> dict[str, Any]:
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


def wait_finished(api: Api, job_id: int, worker: Process, timeout: float) -> dict[str, Any]:
    def finished() -> dict[str, Any] | None:
        worker.check_alive()
        job = _job(api, job_id)
        return job if job["state"] in {"succeeded", "failed"} else None

    result: dict[str, Any] = wait_for(f"job {job_id} finished", finished, timeout, interval=0.2)
    return result


def check_result(result: Any, study: dict[str, Any]) -> None:
    assert isinstance(result, dict) and result, result
    text = json.dumps(result)
    for scenario in study["scenarios"]:
        assert f'"{scenario["code"]}"' in text  # every condition is in the analysis


def duration(job: dict[str, Any]) -> float | None:
    from datetime import datetime

    if not (job.get("started_at") and job.get("finished_at")):
        return None
    started = datetime.fromisoformat(job["started_at"])
    finished = datetime.fromisoformat(job["finished_at"])
    return round((finished - started).total_seconds(), 1)


def redis_client(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url)
