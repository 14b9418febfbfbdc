"""No job holds a worker for ever (issue 34): poison jobs against the production stack.

Before: a 9.9 MB CSV whose header had about 10^6 columns was accepted and held the only
worker at full CPU for more than 15 minutes, every import, analysis and heartbeat queued
behind it; killed and restarted, the worker got the same job again at once. Now every task
has a soft and a hard time limit, a job is delivered at most MAX_ATTEMPTS times, and the
imports and analyses run on their own queue ("heavy"), apart from the heartbeat, the
session expiry and the health probe's ping (docs/deploy.md, "Queues and time limits").

The stack as test_production_smoke.py starts it (gunicorn with production settings,
PostgreSQL and Redis: smoke_stack.py) with one worker per queue, as deployed: the default
one, and a heavy one (concurrency 1) whose jobs the test can poison (poison_worker.py).
Small limits here: imports 4 s, analyses 8 s, 2 s more to the kill. The poison jobs:

* the 10^6-column file: refused at upload (4xx), or its job failed within the import's
  hard limit;
* an import that overruns: failed at the soft limit, with the limit's name;
* an analysis that ignores the soft limit: killed at the hard limit, its job failed with
  that reason and its message acknowledged (one attempt, nothing left unacknowledged);
  while it holds the heavy worker, /healthz?worker=1 is answered by the default one;
* an analysis whose process is killed each time it runs: after MAX_ATTEMPTS runs, the
  next delivery fails it without starting its work.

A normal import and an analysis queued behind the poison finish, the heavy worker is
healthy afterwards and takes a new import, and nothing is left in the queue. Counts and
states are judged, and each job's own recorded run time against its limit.
Run: cd deploy && ../.venv/bin/pytest -m system -s -k job_bounds
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import requests
from qoelab_testkit.celery_worker import worker_argv, worker_ready
from smoke_stack import Api, Process, Stack, services, wait_for
from smoke_steps import child_pids, redis_client, synthetic_ratings, up

STUDY = Path(__file__).resolve().parents[2] / "fixtures" / "studies" / "cloud-gaming-2014.json"
POISON_WORKER = Path(__file__).with_name("poison_worker.py")
RESEARCHER = ("researcher", "qoelab-demo")  # manage.py ensure_demo_user
IMPORT_LIMIT_S, ANALYSIS_LIMIT_S, GRACE_S = 4, 8, 2
LIMITS = {
    "QOELAB_IMPORT_TIME_LIMIT_S": str(IMPORT_LIMIT_S),
    "QOELAB_ANALYSIS_TIME_LIMIT_S": str(ANALYSIS_LIMIT_S),
    "QOELAB_UPKEEP_TIME_LIMIT_S": "5",
    "QOELAB_TASK_KILL_GRACE_S": str(GRACE_S),
    # Above every hard limit (the settings refuse anything else).
    "CELERY_VISIBILITY_TIMEOUT": "20",
    "CELERY_UNACKED_RESTORE_INTERVAL": "1",
}
#: qoelab.core.background_jobs.MAX_ATTEMPTS
MAX_ATTEMPTS = 3
#: A job's recorded run time may pass its limit by this much (the kill, the failure's write).
SLACK_S = 2.0
WIDE_COLUMNS = 1_000_000


@pytest.mark.system
def test_poison_jobs_end_within_their_bounds_and_the_queue_goes_on(tmp_path: Path) -> None:
    poison = tmp_path / "poison"
    poison.mkdir()
    outcomes: dict[str, Any] = {}
    with services() as backing:
        stack = Stack(tmp_path, backing, POISON_DIR=str(poison), **LIMITS)
        try:
            _run(stack, poison, outcomes)
        except BaseException:
            print(stack.report())
            raise
        finally:
            stack.stop_all()
    print("job bounds:", json.dumps(outcomes, indent=1))


def _run(stack: Stack, poison: Path, outcomes: dict[str, Any]) -> None:
    collectstatic = stack.manage_in_background("collectstatic", "--noinput")
    stack.manage("migrate", "--noinput")
    default = stack.process("bounds-default", [*worker_argv("bounds-default"), "-Q", "celery"])
    program = [sys.executable, str(POISON_WORKER)]
    heavy = stack.process("bounds-heavy", [*worker_argv("bounds-heavy", program), "-Q", "heavy"])
    stack.manage("ensure_demo_user")
    stack.manage("load_study", str(STUDY), "--owner", "researcher")
    collectstatic.finish()
    web = stack.web()
    wait_for("gunicorn", lambda: up(f"{stack.base_url}/healthz", web), timeout=30)
    for worker in (default, heavy):
        wait_for(f"worker {worker.name}", lambda w=worker: worker_ready(w), timeout=60)
    api = Api(stack.base_url, auth=RESEARCHER)
    wait_for("/healthz?worker=1", lambda: healthy(api), timeout=60, interval=0.5)
    listed = next(s for s in api.get("/api/v1/studies/") if s["slug"] == "cloud-gaming-2014")
    study = api.get(f"/api/v1/studies/{listed['id']}/")  # with its games
    jobs = Jobs(api, study["id"], heavy)
    outcomes["baseline_import"] = jobs.finished("import", jobs.upload(ratings(study, "BASE-")))

    # --- the poison ------------------------------------------------------------------------
    outcomes["wide_file"] = wide_file(api, jobs)
    slow_text = ratings(study, "SLOW-")
    switch(poison, "slow", f"import-{hashlib.sha256(slow_text.encode()).hexdigest()[:16]}")
    slow = jobs.upload(slow_text)
    switch(poison, "stubborn", "analysis-7")
    stubborn = jobs.analyse(reliable_only=True, min_reliable_raters=7)
    # --- and the work queued behind it -----------------------------------------------------
    normal_import = jobs.upload(ratings(study, "NORM-"))
    normal_analysis = jobs.analyse(reliable_only=False)

    # While the stubborn analysis holds the heavy worker, the default one answers the probe.
    jobs.wait("analysis", stubborn, lambda job: job["state"] == "running", timeout=60)
    wait_for("/healthz?worker=1 beside a stuck job", lambda: healthy(api), 15, interval=0.5)
    outcomes["probe_answered_while_heavy_was_stuck"] = jobs.get("analysis", stubborn)["state"]
    assert outcomes["probe_answered_while_heavy_was_stuck"] == "running"

    soft = jobs.failed("import", slow)
    assert soft["error"].startswith(
        f"stopped after {IMPORT_LIMIT_S} s: the import's time limit (QOELAB_IMPORT_TIME_LIMIT_S)"
    ), soft
    assert run_time(soft) <= IMPORT_LIMIT_S + SLACK_S, soft
    hard = jobs.failed("analysis", stubborn, timeout=60)
    hard_limit = ANALYSIS_LIMIT_S + GRACE_S
    assert hard["error"].startswith(
        f"stopped after {hard_limit} s: the analysis's time limit (QOELAB_ANALYSIS_TIME_LIMIT_S "
        "plus QOELAB_TASK_KILL_GRACE_S); its worker process was killed"
    ), hard
    assert hard["attempts"] == 1 and run_time(hard) <= hard_limit + SLACK_S, hard
    outcomes["soft_limit"] = summary(soft)
    outcomes["hard_limit"] = summary(hard)
    outcomes["queued_import"] = jobs.finished("import", normal_import)
    outcomes["queued_analysis"] = jobs.finished("analysis", normal_analysis)

    outcomes["killed_every_time"] = kill_every_run(jobs, poison)

    # The heavy worker is healthy afterwards: a new import runs, nothing waits in Redis.
    outcomes["import_after"] = jobs.finished("import", jobs.upload(ratings(study, "LAST-")))
    wait_for("/healthz?worker=1 at the end", lambda: healthy(api), 15, interval=0.5)
    broker = redis_client(stack.services.broker_url)
    assert broker.llen("heavy") == 0 and broker.llen("celery") == 0
    assert broker.hlen("unacked") == 0, "a message is waiting to be delivered again"
    hard_after = jobs.get("analysis", stubborn)
    assert hard_after["attempts"] == 1 and hard_after["state"] == "failed", hard_after
    for process in (web, default, heavy):
        process.check_alive()


def wide_file(api: Api, jobs: Jobs) -> dict[str, Any]:
    """The ~10 MB file of 10^6 columns: a 4xx at upload, or a job failed within its limit."""
    header = "rater_id,session_id,game,scenario,rating," + ",".join(
        f"c{i}" for i in range(WIDE_COLUMNS - 5)
    )
    body = f"{header}\nR1,S1,Fast game,B,3{',' * (WIDE_COLUMNS - 5)}\n".encode()
    response = api.http.post(
        f"{api.base_url}/api/v1/studies/{jobs.study}/import/",
        data=body,
        headers={"Content-Type": "text/csv"},
        timeout=60,
    )
    outcome: dict[str, Any] = {"bytes": len(body), "status": response.status_code}
    if 400 <= response.status_code < 500:
        outcome["refused"] = str(response.json())[:300]
        return outcome
    assert response.status_code == 202, response.text[:500]
    job = jobs.failed("import", response.json()["id"], timeout=60)
    assert run_time(job) <= IMPORT_LIMIT_S + GRACE_S + SLACK_S, job
    return {**outcome, **summary(job)}


def kill_every_run(jobs: Jobs, poison: Path) -> dict[str, Any]:
    """An analysis whose process dies in each run (as an input that exhausts the memory
    would kill it): the worker hands the message back each time, and after MAX_ATTEMPTS
    runs the next delivery fails the job without starting its work."""
    switch(poison, "slow", "analysis-8")
    job_id = jobs.analyse(reliable_only=True, min_reliable_raters=8)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        jobs.wait(
            "analysis",
            job_id,
            lambda job, n=attempt: job["state"] == "running" and job["attempts"] == n,
            timeout=60,
        )
        # This run has taken its switch (it sleeps); put one back for the next delivery.
        wait_for(
            "the run to take its switch", lambda: not (poison / "slow-analysis-8").exists(), 30
        )
        switch(poison, "slow", "analysis-8")
        for child in child_pids(jobs.heavy.pid):
            os.kill(child, signal.SIGKILL)
    job = jobs.failed("analysis", job_id, timeout=60)
    assert job["error"].startswith(f"the analysis was started {MAX_ATTEMPTS} times"), job
    assert job["attempts"] == MAX_ATTEMPTS, job
    # The last delivery did not start the work: the switch it would have taken is still there.
    assert (poison / "slow-analysis-8").exists()
    (poison / "slow-analysis-8").unlink()
    return summary(job)


class Jobs:
    """Submitting and following the study's import and analysis jobs over HTTP."""

    def __init__(self, api: Api, study: int, heavy: Process) -> None:
        self.api, self.study, self.heavy = api, study, heavy

    def upload(self, text: str) -> int:
        path = f"/api/v1/studies/{self.study}/import/"
        headers = {"Content-Type": "text/csv"}
        job: dict[str, Any] = self.api.post(path, data=text.encode(), headers=headers, expect=202)
        return int(job["id"])

    def analyse(self, **options: Any) -> int:
        job = self.api.post(f"/api/v1/studies/{self.study}/analysis/", options, expect=202)
        return int(job["id"])

    def get(self, kind: str, job_id: int) -> dict[str, Any]:
        body: dict[str, Any] = self.api.get(f"/api/v1/{kind}-jobs/{job_id}/")
        return body

    def wait(self, kind: str, job_id: int, done: Any, timeout: float) -> dict[str, Any]:
        def seen() -> dict[str, Any] | None:
            self.heavy.check_alive()
            job = self.get(kind, job_id)
            return job if done(job) else None

        result: dict[str, Any] = wait_for(f"{kind} job {job_id}", seen, timeout, interval=0.1)
        return result

    def ended(self, kind: str, job_id: int, timeout: float) -> dict[str, Any]:
        ended = {"succeeded", "failed"}
        return self.wait(kind, job_id, lambda job: job["state"] in ended, timeout)

    def failed(self, kind: str, job_id: int, timeout: float = 30) -> dict[str, Any]:
        job = self.ended(kind, job_id, timeout)
        assert job["state"] == "failed", job
        return job

    def finished(self, kind: str, job_id: int) -> dict[str, Any]:
        job = self.ended(kind, job_id, timeout=60)
        assert job["state"] == "succeeded", job
        return summary(job)


def ratings(study: dict[str, Any], prefix: str) -> str:
    """A small import of the study: 2 raters' sessions (their own session ids)."""
    return synthetic_ratings(study, raters=2, sessions=4, prefix=prefix)


def switch(poison: Path, kind: str, job: str) -> None:
    (poison / f"{kind}-{job}").touch()


def healthy(api: Api) -> bool:
    """/healthz?worker=1 answers 200 "ok" (a worker of the default queue took the ping)."""
    try:
        response = api.http.get(f"{api.base_url}/healthz?worker=1", timeout=10)
        return response.status_code == 200 and response.json()["status"] == "ok"
    except (requests.RequestException, ValueError):
        return False


def run_time(job: dict[str, Any]) -> float:
    """The job's run time as the server recorded it (started_at → finished_at)."""
    started = datetime.fromisoformat(job["started_at"])
    return (datetime.fromisoformat(job["finished_at"]) - started).total_seconds()


def summary(job: dict[str, Any]) -> dict[str, Any]:
    keep = ("id", "state", "attempts", "error", "ratings")
    return {
        **{k: job[k] for k in keep if k in job},
        "run_s": round(run_time(job), 2) if job.get("started_at") else None,
    }
