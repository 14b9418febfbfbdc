"""The Celery task that runs the analysis package on a job's stored input."""

from __future__ import annotations

import io
import time
import warnings
from typing import Any

from celery import shared_task
from django.utils import timezone

from qoelab.analysis_jobs.models import AnalysisJob, JobState

PROGRESS_WRITE_INTERVAL_S = 0.5


@shared_task(name="analysis_jobs.run")  # type: ignore[untyped-decorator]
def run_analysis(job_id: int) -> str:
    """Run ``qoe_analysis.analyze`` on the job's CSV; store progress and the result."""
    from qoe_analysis import RatingsValidationError, analyze, load_ratings

    updated = AnalysisJob.objects.filter(pk=job_id, state=JobState.QUEUED).update(
        state=JobState.RUNNING, started_at=timezone.now(), stage="loading", progress=0.0
    )
    if not updated:
        return AnalysisJob.objects.get(pk=job_id).state
    job = AnalysisJob.objects.get(pk=job_id)
    last_write = 0.0

    def progress(fraction: float, stage: str) -> None:
        nonlocal last_write
        now = time.monotonic()
        if now - last_write < PROGRESS_WRITE_INTERVAL_S and fraction < 1.0:
            return
        last_write = now
        AnalysisJob.objects.filter(pk=job_id).update(
            progress=max(0.0, min(1.0, float(fraction))), stage=str(stage)[:80]
        )

    caught: list[warnings.WarningMessage] = []
    try:
        # Warnings (e.g. scikit-learn's LinAlgWarning on a small study) are recorded on
        # the job for the researcher, never turned into a failure by a global filter.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            table = load_ratings(io.StringIO(job.input_csv))
            result: dict[str, Any] = analyze(
                table, reliable_only=job.reliable_only, seed=0, progress=progress
            )
    except (RatingsValidationError, ValueError) as exc:
        AnalysisJob.objects.filter(pk=job_id).update(
            state=JobState.FAILED, error=str(exc), finished_at=timezone.now()
        )
        return JobState.FAILED
    except Exception as exc:
        AnalysisJob.objects.filter(pk=job_id).update(
            state=JobState.FAILED,
            error=f"the analysis failed unexpectedly: {type(exc).__name__}: {exc}",
            finished_at=timezone.now(),
        )
        raise
    messages = sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught})
    AnalysisJob.objects.filter(pk=job_id).update(
        warnings=messages,
        state=JobState.SUCCEEDED,
        result=result,
        progress=1.0,
        stage="done",
        finished_at=timezone.now(),
    )
    return JobState.SUCCEEDED
