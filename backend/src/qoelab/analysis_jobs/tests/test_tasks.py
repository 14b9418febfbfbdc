"""The analysis task is safe to deliver twice, and bounded: the basis of worker crash safety.

A worker that dies mid-job leaves the task's message unacknowledged; Redis delivers it
again (docs/deploy.md, "Worker crash safety"). A job ends within its time limits and
``MAX_ATTEMPTS`` deliveries (issue 34). The process-level proofs — SIGKILL of a real
worker, a new worker finishes the job; limits and poison jobs on real workers — are the
production smoke test and test_job_bounds.py in deploy/tests/.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.conf import settings

from qoelab.analysis_jobs import run_job
from qoelab.analysis_jobs.models import AnalysisJob, JobState
from qoelab.analysis_jobs.tasks import run_analysis
from qoelab.celery import app
from qoelab.core.background_jobs import MAX_ATTEMPTS, SUPERSEDED
from qoelab.studies.models import Study


@pytest.fixture(scope="module")
def ratings_csv() -> str:
    from qoe_analysis.synthetic import generate_study

    frame, _truth = generate_study(12, 16, seed=3)
    buffer = io.StringIO()
    frame.to_csv(buffer, index=False)
    return buffer.getvalue()


@pytest.fixture
def job(example_study: Study, ratings_csv: str) -> AnalysisJob:
    return AnalysisJob.objects.create(
        study=example_study,
        study_version=example_study.version,
        input_sha256="0" * 64,
        input_csv=ratings_csv,
        input_rows=ratings_csv.count("\n") - 1,
    )


def run(job: AnalysisJob) -> str:
    outcome: str = run_analysis.apply(args=(job.pk,)).get()
    job.refresh_from_db()
    return outcome


def test_the_task_acknowledges_late_and_requeues_on_a_lost_worker() -> None:
    assert run_analysis.acks_late is True
    assert run_analysis.reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
    options = app.conf.broker_transport_options
    assert (
        options["visibility_timeout"]
        == settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    )
    assert options["unacked_restore_throttle"] == 1


@pytest.mark.django_db
def test_a_job_runs_once_and_records_its_attempt_and_worker(job: AnalysisJob) -> None:
    assert run(job) == JobState.SUCCEEDED
    assert job.state == JobState.SUCCEEDED and job.progress == 1.0 and job.result
    assert job.attempts == 1 and job.worker == "in-process"


@pytest.mark.django_db
def test_a_second_delivery_of_a_finished_job_is_a_no_op(job: AnalysisJob) -> None:
    run(job)
    finished_at, result = job.finished_at, job.result
    assert run(job) == JobState.SUCCEEDED
    assert job.attempts == 1 and job.finished_at == finished_at and job.result == result

    AnalysisJob.objects.filter(pk=job.pk).update(state=JobState.FAILED, error="bad input")
    assert run(job) == JobState.FAILED
    assert job.attempts == 1 and job.error == "bad input"


@pytest.mark.django_db
def test_a_job_left_running_by_a_dead_worker_runs_again_from_the_start(job: AnalysisJob) -> None:
    AnalysisJob.objects.filter(pk=job.pk).update(
        state=JobState.RUNNING, attempts=1, worker="dead@host", progress=0.45, stage="tree"
    )
    assert run(job) == JobState.SUCCEEDED
    assert job.attempts == 2 and job.worker == "in-process"
    assert job.progress == 1.0 and job.stage == "done" and job.result


@pytest.mark.django_db
def test_a_run_overtaken_by_a_newer_attempt_writes_nothing(
    job: AnalysisJob, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A message delivered again while the first run still lives: the first run yields."""
    import qoe_analysis

    def analyze_overtaken(table: Any, *, progress: Callable[[float, str], None], **_: Any) -> Any:
        progress(0.0, "validating")
        # Meanwhile another worker got the message again and claimed the job (attempt 2).
        AnalysisJob.objects.filter(pk=job.pk).update(attempts=2, worker="other@host")
        progress(0.99, "assembling")  # past the write interval or not: must stop here
        raise AssertionError("the overtaken run went on")

    monkeypatch.setattr(qoe_analysis, "analyze", analyze_overtaken)
    monkeypatch.setattr(run_job, "PROGRESS_WRITE_INTERVAL_S", 0.0)
    assert run(job) == SUPERSEDED
    assert job.state == JobState.RUNNING and job.attempts == 2 and job.worker == "other@host"
    assert job.result is None and job.error == ""


@pytest.mark.django_db
def test_a_job_that_keeps_losing_its_worker_fails_instead_of_looping(job: AnalysisJob) -> None:
    AnalysisJob.objects.filter(pk=job.pk).update(state=JobState.RUNNING, attempts=MAX_ATTEMPTS)
    assert run(job) == JobState.FAILED
    assert job.state == JobState.FAILED and job.attempts == MAX_ATTEMPTS
    assert "worker was lost" in job.error and job.finished_at is not None


@pytest.mark.django_db
def test_a_missing_job_is_ignored() -> None:
    assert run_analysis.apply(args=(987_654,)).get() == "missing"


@pytest.mark.django_db
def test_a_job_delivered_again_at_the_bound_fails_without_starting_its_work(
    job: AnalysisJob, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A poison job (its worker lost MAX_ATTEMPTS times) leaves the queue for good."""
    import qoe_analysis

    def must_not_run(*_: Any, **__: Any) -> Any:
        raise AssertionError("the work started")

    monkeypatch.setattr(qoe_analysis, "analyze", must_not_run)
    monkeypatch.setattr(run_job, "store_input", must_not_run)
    AnalysisJob.objects.filter(pk=job.pk).update(
        state=JobState.RUNNING, attempts=MAX_ATTEMPTS, worker="lost@host", stage="tree"
    )
    assert run(job) == JobState.FAILED
    assert job.attempts == MAX_ATTEMPTS and job.worker == "lost@host" and job.stage == "tree"
    assert job.error.startswith(f"the analysis was started {MAX_ATTEMPTS} times"), job.error
    error, finished_at = job.error, job.finished_at
    assert run(job) == JobState.FAILED  # and once more: a no-op
    assert (job.error, job.finished_at, job.attempts) == (error, finished_at, MAX_ATTEMPTS)


def test_the_task_has_time_limits_and_runs_on_the_heavy_queue() -> None:
    soft = settings.QOELAB_ANALYSIS_TIME_LIMIT_S
    assert run_analysis.soft_time_limit == soft > 0
    assert run_analysis.time_limit == soft + settings.QOELAB_TASK_KILL_GRACE_S
    assert run_analysis.acks_on_timeout is True
    route = app.amqp.router.route({}, run_analysis.name, (), {})
    assert route["queue"].name == "heavy"


@pytest.mark.django_db
def test_a_soft_time_limit_fails_the_job_with_the_limits_name(
    job: AnalysisJob, monkeypatch: pytest.MonkeyPatch
) -> None:
    import qoe_analysis

    def analyze_too_long(table: Any, *, progress: Callable[[float, str], None], **_: Any) -> Any:
        progress(0.3, "tree")
        raise SoftTimeLimitExceeded  # what the worker raises in the task at the soft limit

    monkeypatch.setattr(qoe_analysis, "analyze", analyze_too_long)
    assert run(job) == JobState.FAILED
    assert job.state == JobState.FAILED and job.result is None and job.finished_at
    assert job.error == (
        f"stopped after {settings.QOELAB_ANALYSIS_TIME_LIMIT_S:g} s: the analysis's time limit "
        "(QOELAB_ANALYSIS_TIME_LIMIT_S); nothing was stored; ask the lab's administrator to "
        "raise the limit"
    )


@pytest.mark.django_db
def test_a_soft_time_limit_while_building_the_input_fails_the_job(
    job: AnalysisJob, monkeypatch: pytest.MonkeyPatch
) -> None:
    def too_long(*_: Any, **__: Any) -> Any:
        raise SoftTimeLimitExceeded

    monkeypatch.setattr(run_job, "store_input", too_long)
    AnalysisJob.objects.filter(pk=job.pk).update(input_sha256="")
    assert run(job) == JobState.FAILED
    assert "the analysis's time limit" in job.error and job.result is None


@pytest.mark.django_db
def test_a_hard_time_limit_fails_the_job_and_leaves_a_finished_one_alone(job: AnalysisJob) -> None:
    """The worker's main process reports the kill to the task (Celery's on_timeout)."""
    AnalysisJob.objects.filter(pk=job.pk).update(state=JobState.RUNNING, attempts=1)
    hard = run_analysis.time_limit
    run_analysis.on_failure(TimeLimitExceeded(hard), "task-id", (job.pk,), {}, None)
    job.refresh_from_db()
    assert job.state == JobState.FAILED and job.finished_at is not None
    assert job.error.startswith(
        f"stopped after {hard:g} s: the analysis's time limit (QOELAB_ANALYSIS_TIME_LIMIT_S "
        "plus QOELAB_TASK_KILL_GRACE_S); its worker process was killed"
    ), job.error
    AnalysisJob.objects.filter(pk=job.pk).update(state=JobState.SUCCEEDED, error="")
    run_analysis.on_failure(TimeLimitExceeded(hard), "task-id", (job.pk,), {}, None)
    run_analysis.on_failure(ValueError("other"), "task-id", (job.pk,), {}, None)
    job.refresh_from_db()
    assert job.state == JobState.SUCCEEDED and job.error == ""


@pytest.mark.parametrize(
    ("value", "expected"), [("900", "900.0"), ("", "600.0"), ("soon", "error"), ("0", "error")]
)
def test_the_visibility_timeout_comes_from_the_environment(value: str, expected: str) -> None:
    output = settings_in_subprocess(
        "CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout']",
        {"CELERY_VISIBILITY_TIMEOUT": value},
    )
    assert output.split()[0] == expected, output
    if expected == "error":
        assert "CELERY_VISIBILITY_TIMEOUT" in output


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        (
            {
                "CELERY_VISIBILITY_TIMEOUT": "7.5",
                "QOELAB_IMPORT_TIME_LIMIT_S": "3",
                "QOELAB_ANALYSIS_TIME_LIMIT_S": "4",
                "QOELAB_UPKEEP_TIME_LIMIT_S": "2",
                "QOELAB_TASK_KILL_GRACE_S": "3",
            },
            "7.5",
        ),
        (
            {"CELERY_VISIBILITY_TIMEOUT": "310"},
            "error CELERY_VISIBILITY_TIMEOUT (310 s) must "
            "be above the longest hard time limit, QOELAB_IMPORT_TIME_LIMIT_S + "
            "QOELAB_TASK_KILL_GRACE_S (310 s)",
        ),
        (
            {"QOELAB_ANALYSIS_TIME_LIMIT_S": "595"},
            "error CELERY_VISIBILITY_TIMEOUT (600 s) "
            "must be above the longest hard time limit, QOELAB_ANALYSIS_TIME_LIMIT_S + "
            "QOELAB_TASK_KILL_GRACE_S (605 s)",
        ),
        ({"QOELAB_TASK_KILL_GRACE_S": "-1"}, "error QOELAB_TASK_KILL_GRACE_S='-1' is not"),
    ],
)
def test_the_visibility_timeout_must_outlast_the_longest_hard_limit(
    environment: dict[str, str], expected: str
) -> None:
    """Else Redis would hand a job still running to a second worker (issue 34)."""
    output = settings_in_subprocess(
        "CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout']", environment
    )
    assert output.startswith(expected), output


def settings_in_subprocess(expression: str, environment: dict[str, str]) -> str:
    """Print ``expression`` of the settings as imported with ``environment``, or
    ``error <message>`` when they refuse it."""
    code = (
        "from django.core.exceptions import ImproperlyConfigured\n"
        "try:\n"
        "    import qoelab.settings as s\n"
        f"    print(s.{expression})\n"
        "except ImproperlyConfigured as exc:\n"
        "    print('error', exc)\n"
    )
    bounds = ("CELERY_VISIBILITY_TIMEOUT", "QOELAB_TASK_KILL_GRACE_S")
    inherited = {k: v for k, v in os.environ.items() if not k.endswith(("_TIME_LIMIT_S", *bounds))}
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**inherited, **environment},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()
