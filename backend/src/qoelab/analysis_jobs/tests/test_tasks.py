"""The analysis task is safe to deliver twice: the basis of worker crash safety.

A worker that dies mid-job leaves the task's message unacknowledged; Redis delivers it
again (docs/deploy.md, "Worker crash safety"). The process-level proof — SIGKILL of a real
worker, a new worker finishes the job — is the production smoke test in deploy/tests/.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
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


@pytest.mark.parametrize(
    ("value", "expected"), [("7.5", "7.5"), ("", "600.0"), ("soon", "error"), ("0", "error")]
)
def test_the_visibility_timeout_comes_from_the_environment(value: str, expected: str) -> None:
    code = (
        "from django.core.exceptions import ImproperlyConfigured\n"
        "try:\n"
        "    import qoelab.settings as s\n"
        "    print(s.CELERY_BROKER_TRANSPORT_OPTIONS['visibility_timeout'])\n"
        "except ImproperlyConfigured as exc:\n"
        "    print('error', exc)\n"
    )
    env = {**os.environ, "CELERY_VISIBILITY_TIMEOUT": value}
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[0] == expected, result.stdout
    if expected == "error":
        assert "CELERY_VISIBILITY_TIMEOUT" in result.stdout
