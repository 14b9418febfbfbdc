"""The Celery task of the analysis jobs: a thin entry point into
:func:`qoelab.analysis_jobs.run_job.run_analysis_job` (crash safety is described there).

It runs on the "heavy" queue (settings ``CELERY_TASK_ROUTES``) within the analysis's time
limits (``QOELAB_ANALYSIS_TIME_LIMIT_S``); a run killed at the hard limit fails its job
here (:class:`qoelab.core.background_jobs.JobTask`)."""

from __future__ import annotations

from celery import shared_task

from qoelab.analysis_jobs.run_job import analysis_time_limit, fail_unfinished, run_analysis_job
from qoelab.core.background_jobs import JobTask, TimeLimit, worker_name


class AnalysisTask(JobTask):
    def limit(self) -> TimeLimit:
        return analysis_time_limit()

    def fail_job(self, job_id: int, reason: str) -> None:
        fail_unfinished(job_id, reason)


@shared_task(  # type: ignore[untyped-decorator]
    name="analysis_jobs.run", bind=True, base=AnalysisTask, **analysis_time_limit().task_options()
)
def run_analysis(self: AnalysisTask, job_id: int) -> str:
    """Run ``qoe_analysis.analyze`` on the job's CSV and sidecar (its rating items, the
    acceptance rule, the fast-rating floor); store progress and the result."""
    return run_analysis_job(job_id, worker=worker_name(self))
