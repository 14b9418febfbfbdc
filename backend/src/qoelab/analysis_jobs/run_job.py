"""Running an analysis job: ``qoe_analysis.analyze`` on the job's stored input.

Called by the Celery task (:mod:`qoelab.analysis_jobs.tasks`), which only passes the job
and the worker's name. Crash safety (docs/deploy.md, "Worker crash safety"): the task
acknowledges its message only after it has finished (``acks_late``), and a worker process
that dies in the middle of it hands the message back (``reject_on_worker_lost``); when the
whole worker dies (SIGKILL, power loss), Redis delivers the message again after the
visibility timeout (settings: ``CELERY_VISIBILITY_TIMEOUT``). So a run must be idempotent:

* a job that has already succeeded or failed is left alone (a re-delivered message is a
  no-op);
* a job left ``running`` by a dead worker is run again from the start, as a new attempt;
* each run claims the job by raising ``attempts``; every later write of that run is
  conditional on its attempt, so a run that was overtaken by a newer one (a message
  re-delivered while the first run was in fact still alive) changes nothing and stops at
  its next progress report;
* a job whose worker was lost ``MAX_ATTEMPTS`` times is failed instead of being retried
  for ever (an input that kills the worker, e.g. by exhausting its memory): the next
  delivery fails it before any work;
* a run is bounded in time (:class:`qoelab.core.background_jobs.TimeLimit`): at
  ``QOELAB_ANALYSIS_TIME_LIMIT_S`` it stops and fails the job with the limit's name; a run
  that does not stop is killed at the hard limit and the task fails the job
  (:class:`qoelab.analysis_jobs.tasks.AnalysisTask`).

A job without input builds it first (:mod:`qoelab.analysis_jobs.job_input`).
"""

from __future__ import annotations

import io
import time
import warnings
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone

from qoelab.analysis_jobs.job_input import reuse_result, store_input
from qoelab.analysis_jobs.models import AnalysisJob, JobState
from qoelab.core.background_jobs import (
    SUPERSEDED,
    JobSuperseded,
    TimeLimit,
    begin_run,
    fresh_connection,
    time_limit,
)
from qoelab.datasets.facts import stored_dataset

PROGRESS_WRITE_INTERVAL_S = 0.5
BUILDING = "building the ratings table"


def analysis_time_limit() -> TimeLimit:
    """The analysis task's limits (settings ``QOELAB_ANALYSIS_TIME_LIMIT_S``)."""
    return time_limit("the analysis", "QOELAB_ANALYSIS_TIME_LIMIT_S")


def fail_unfinished(job_id: int, error: str) -> None:
    """Fail the job if it has not finished (a run stopped by its time limit)."""
    AnalysisJob.objects.filter(pk=job_id, state__in=[JobState.QUEUED, JobState.RUNNING]).update(
        state=JobState.FAILED, error=error, finished_at=timezone.now()
    )


def run_analysis_job(job_id: int, *, worker: str) -> str:
    """Run the analysis of job ``job_id`` as ``worker``; store progress and the result.

    Returns the job's final state, ``missing`` or ``superseded``."""
    # The analysis imports pandas, SciPy and scikit-learn: loaded on the first job, not
    # when the web process starts (it imports this module through the task).
    from qoe_analysis import RatingsValidationError, analyze, load_ratings
    from qoe_analysis.scales import parse_sidecar

    job = AnalysisJob.objects.filter(pk=job_id).first()
    if job is None:
        return "missing"
    attempts = job.attempts

    def fail(reason: str) -> None:
        AnalysisJob.objects.filter(pk=job_id, attempts=attempts).update(
            state=JobState.FAILED, error=reason, finished_at=timezone.now()
        )

    stage = "loading" if job.input_sha256 else BUILDING
    mine = begin_run(job, "analysis", stage, worker=worker, fail=fail)
    if isinstance(mine, str):
        return mine
    last_write = 0.0

    def progress(fraction: float, stage: str) -> None:
        nonlocal last_write
        now = time.monotonic()
        if now - last_write < PROGRESS_WRITE_INTERVAL_S and fraction < 1.0:
            return
        last_write = now
        if not mine.update(progress=max(0.0, min(1.0, float(fraction))), stage=str(stage)[:80]):
            raise JobSuperseded

    caught: list[warnings.WarningMessage] = []
    try:
        if not job.input_sha256:
            job = store_input(job, mine)
            if reuse_result(job, mine):
                return JobState.SUCCEEDED
        # Warnings (e.g. scikit-learn's LinAlgWarning on a small study) are recorded on
        # the job for the researcher, never turned into a failure by a global filter.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            # A job stored before the sidecar existed analyses its CSV as "overall" on ACR-5.
            sidecar = parse_sidecar(job.input_items) if job.input_items else None
            table = load_ratings(io.StringIO(job.input_csv), sidecar=sidecar)
            result: dict[str, Any] = analyze(
                table,
                reliable_only=job.reliable_only,
                min_reliable_raters=job.min_reliable_raters,
                min_reliable_share=job.min_reliable_share,
                seed=0,
                progress=progress,
                sidecar=sidecar,
                # a study imported from a dataset: how its data was read (qoelab.datasets)
                dataset=stored_dataset(job.study_id),
            )
    except JobSuperseded:
        return SUPERSEDED
    except SoftTimeLimitExceeded:
        fresh_connection()
        fail_unfinished(job_id, analysis_time_limit().reason())
        return JobState.FAILED
    except (RatingsValidationError, ValueError) as exc:
        mine.update(state=JobState.FAILED, error=str(exc), finished_at=timezone.now())
        return JobState.FAILED
    except Exception as exc:
        mine.update(
            state=JobState.FAILED,
            error=f"the analysis failed unexpectedly: {type(exc).__name__}: {exc}",
            finished_at=timezone.now(),
        )
        raise
    messages = sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught})
    finished = mine.update(
        warnings=messages,
        state=JobState.SUCCEEDED,
        result=result,
        progress=1.0,
        stage="done",
        finished_at=timezone.now(),
    )
    return JobState.SUCCEEDED if finished else SUPERSEDED
