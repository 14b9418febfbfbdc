"""The Celery task of the analysis jobs: a thin entry point into
:func:`qoelab.analysis_jobs.run_job.run_analysis_job` (crash safety is described there)."""

from __future__ import annotations

from celery import Task, shared_task

from qoelab.analysis_jobs.run_job import run_analysis_job
from qoelab.core.background_jobs import worker_name


@shared_task(  # type: ignore[untyped-decorator]
    name="analysis_jobs.run", bind=True, acks_late=True, reject_on_worker_lost=True
)
def run_analysis(self: Task, job_id: int) -> str:
    """Run ``qoe_analysis.analyze`` on the job's CSV and sidecar (its rating items, the
    acceptance rule, the fast-rating floor); store progress and the result."""
    return run_analysis_job(job_id, worker=worker_name(self))
