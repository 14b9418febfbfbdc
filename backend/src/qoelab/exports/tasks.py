"""The Celery task of the import jobs: a thin entry point into
:func:`qoelab.exports.import_run.run_import_job` (what a run does is described there)."""

from __future__ import annotations

from celery import Task, shared_task

from qoelab.core.background_jobs import worker_name
from qoelab.exports.import_run import run_import_job


@shared_task(  # type: ignore[untyped-decorator]
    name="exports.run_import", bind=True, acks_late=True, reject_on_worker_lost=True
)
def run_import(self: Task, job_id: int) -> str:
    """Check and write the job's stored CSV into its study; record progress and counts."""
    return run_import_job(job_id, worker=worker_name(self))
