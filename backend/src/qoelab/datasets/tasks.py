"""The Celery task of the dataset import jobs: a thin entry point into
:func:`qoelab.datasets.run.run_dataset_job` (what a run does is described there).

It runs on the "heavy" queue (``qoelab.celery.HEAVY_TASKS``) within the import's time
limits (``QOELAB_IMPORT_TIME_LIMIT_S``); a run killed at the hard limit fails its job here
(:class:`qoelab.core.background_jobs.JobTask`)."""

from __future__ import annotations

from celery import shared_task

from qoelab.core.background_jobs import JobTask, TimeLimit, worker_name
from qoelab.datasets.run import finish_failed, run_dataset_job
from qoelab.exports.import_run import import_time_limit


class DatasetImportTask(JobTask):
    def limit(self) -> TimeLimit:
        return import_time_limit()

    def fail_job(self, job_id: int, reason: str) -> None:
        finish_failed(job_id, reason)


@shared_task(  # type: ignore[untyped-decorator]
    name="datasets.run_import",
    bind=True,
    base=DatasetImportTask,
    **import_time_limit().task_options(),
)
def run_dataset_import(self: DatasetImportTask, job_id: int) -> str:
    """Read the job's dataset and write it as a new analysis-only study."""
    return run_dataset_job(job_id, worker=worker_name(self))
