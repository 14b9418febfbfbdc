"""The Celery task of the import jobs: a thin entry point into
:func:`qoelab.exports.import_run.run_import_job` (what a run does is described there).

It runs on the "heavy" queue (settings ``CELERY_TASK_ROUTES``) within the import's time
limits (``QOELAB_IMPORT_TIME_LIMIT_S``); a run killed at the hard limit fails its job here
(:class:`qoelab.core.background_jobs.JobTask`)."""

from __future__ import annotations

from celery import shared_task

from qoelab.core.background_jobs import JobTask, TimeLimit, worker_name
from qoelab.exports.import_run import finish_failed, import_time_limit, run_import_job


class ImportTask(JobTask):
    def limit(self) -> TimeLimit:
        return import_time_limit()

    def fail_job(self, job_id: int, reason: str) -> None:
        finish_failed(job_id, reason)


@shared_task(  # type: ignore[untyped-decorator]
    name="exports.run_import", bind=True, base=ImportTask, **import_time_limit().task_options()
)
def run_import(self: ImportTask, job_id: int) -> str:
    """Check and write the job's stored CSV into its study; record progress and counts."""
    return run_import_job(job_id, worker=worker_name(self))
