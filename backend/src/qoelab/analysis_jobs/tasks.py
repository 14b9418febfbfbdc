"""The Celery task that runs the analysis package on a job's stored input.

Crash safety (docs/deploy.md, "Worker crash safety"): the task acknowledges its message
only after it has finished (``acks_late``), and a worker process that dies in the middle
of it hands the message back (``reject_on_worker_lost``); when the whole worker dies
(SIGKILL, power loss), Redis delivers the message again after the visibility timeout
(settings: ``CELERY_VISIBILITY_TIMEOUT``). So the task must be idempotent:

* a job that has already succeeded or failed is left alone (a re-delivered message is a
  no-op);
* a job left ``running`` by a dead worker is run again from the start, as a new attempt;
* each run claims the job by raising ``attempts``; every later write of that run is
  conditional on its attempt, so a run that was overtaken by a newer one (a message
  re-delivered while the first run was in fact still alive) changes nothing and stops at
  its next progress report;
* a job whose worker was lost ``MAX_ATTEMPTS`` times is failed instead of being retried
  for ever (an input that kills the worker, e.g. by exhausting its memory).

A job created by a results request (:func:`services.request_analysis`) has no input yet:
the task builds it first (stage "building the ratings table": the study's tidy CSV and
sidecar as they are now, with their SHA-256) and stores it on the job. When a finished job
of the same study version and options analysed exactly that input, its result is copied
(the analysis is deterministic: ``seed=0``) instead of being computed again.
"""

from __future__ import annotations

import io
import time
import warnings
from typing import Any

from celery import Task, shared_task
from django.db.models import QuerySet
from django.utils import timezone

from qoelab.analysis_jobs.models import AnalysisJob, JobState
from qoelab.core.background_jobs import MAX_ATTEMPTS, SUPERSEDED, JobSuperseded, claim
from qoelab.studies.models import Study

PROGRESS_WRITE_INTERVAL_S = 0.5
BUILDING = "building the ratings table"


class NothingToAnalyseError(ValueError):
    """The study's tidy table has no rows (e.g. every rating's session was aborted)."""


def store_input(job: AnalysisJob, mine: QuerySet[AnalysisJob]) -> AnalysisJob:
    """Build the job's input from its study's current data and store it on the job.

    Returns the job with its input; raises :class:`JobSuperseded` when a newer attempt
    overtook this one, :class:`NothingToAnalyseError` (the job fails) for an empty table.
    """
    from qoelab.analysis_jobs.services import NO_RATINGS, input_digest
    from qoelab.exports.tidy import tidy_table
    from qoelab.studies.rating_items import sidecar

    study = Study.objects.get(pk=job.study_id)
    table = tidy_table(study)
    if not len(table):
        raise NothingToAnalyseError(NO_RATINGS)
    csv_text = table.to_csv()
    items = sidecar(study)
    fields = {
        "input_csv": csv_text,
        "input_items": items,
        "input_rows": len(table),
        "input_sha256": input_digest(csv_text, items),
    }
    if not mine.update(**fields, stage="loading"):
        raise JobSuperseded
    for name, value in fields.items():
        setattr(job, name, value)
    return job


def reuse_result(job: AnalysisJob, mine: QuerySet[AnalysisJob]) -> bool:
    """Finish ``job`` with the result of a succeeded job of identical input, if any."""
    same = (
        AnalysisJob.objects.filter(
            study_id=job.study_id,
            study_version=job.study_version,
            reliable_only=job.reliable_only,
            input_sha256=job.input_sha256,
            state=JobState.SUCCEEDED,
        )
        .exclude(pk=job.pk)
        .order_by("-id")
        .first()
    )
    if same is None:
        return False
    return bool(
        mine.update(
            state=JobState.SUCCEEDED,
            result=same.result,
            warnings=same.warnings,
            progress=1.0,
            stage=f"done (same input as job {same.pk})"[:80],
            finished_at=timezone.now(),
        )
    )


@shared_task(  # type: ignore[untyped-decorator]
    name="analysis_jobs.run", bind=True, acks_late=True, reject_on_worker_lost=True
)
def run_analysis(self: Task, job_id: int) -> str:
    """Run ``qoe_analysis.analyze`` on the job's CSV and sidecar (its rating items, the
    acceptance rule, the fast-rating floor); store progress and the result."""
    from qoe_analysis import RatingsValidationError, analyze, load_ratings
    from qoe_analysis.scales import parse_sidecar

    job = AnalysisJob.objects.filter(pk=job_id).first()
    if job is None:
        return "missing"
    if job.state in {JobState.SUCCEEDED, JobState.FAILED}:
        return str(job.state)  # a message delivered again after the job finished
    if job.attempts >= MAX_ATTEMPTS:
        AnalysisJob.objects.filter(pk=job_id, attempts=job.attempts).update(
            state=JobState.FAILED,
            error=(
                f"the analysis was started {job.attempts} times and its worker was lost each "
                "time (killed, or out of memory?); it is not retried again"
            ),
            finished_at=timezone.now(),
        )
        return JobState.FAILED
    mine = claim(self, job, "loading" if job.input_sha256 else BUILDING)
    if mine is None:  # another delivery of the message claimed it at the same moment
        return SUPERSEDED
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
                seed=0,
                progress=progress,
                sidecar=sidecar,
            )
    except JobSuperseded:
        return SUPERSEDED
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
