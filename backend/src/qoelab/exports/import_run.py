"""Running an import job: the stored ratings CSV into its study (:mod:`qoelab.exports.importer`).

Called by the Celery task (:mod:`qoelab.exports.tasks`): by a worker in production, in the
web process when no broker is configured (``CELERY_TASK_ALWAYS_EAGER``, the demo). All or
nothing: the rows are checked first, then written in one transaction, so a refused file
(its line and column on the job) or a worker lost in the middle leaves nothing behind.
Crash safety as for the analysis jobs (:mod:`qoelab.analysis_jobs.run_job`): the message
is acknowledged late, each run claims the job by raising ``attempts`` and writes only
while its attempt is the latest, a finished job is left alone, and a job whose worker was
lost ``MAX_ATTEMPTS`` times fails (when it is delivered again, before any work). Bounded
in time (:class:`qoelab.core.background_jobs.TimeLimit`): at ``QOELAB_IMPORT_TIME_LIMIT_S``
the run stops and fails the job with the limit's name, nothing written (the transaction
is rolled back); a run that does not stop is killed at the hard limit and the task fails
the job (:class:`qoelab.exports.tasks.ImportTask`). The stored upload is removed once the
job has succeeded or failed.
"""

from __future__ import annotations

import time
from functools import partial

from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone

from qoelab.core.background_jobs import (
    SUPERSEDED,
    JobState,
    JobSuperseded,
    TimeLimit,
    begin_run,
    fresh_connection,
    time_limit,
)
from qoelab.exports.import_cells import ImportRejected
from qoelab.exports.importer import import_ratings
from qoelab.exports.models import ImportJob
from qoelab.exports.uploads import open_upload, remove_upload, stored_file

PROGRESS_WRITE_INTERVAL_S = 0.5
#: Share of the progress bar for checking the rows; writing them is the rest.
CHECKING_SHARE = 0.8


def import_time_limit() -> TimeLimit:
    """The import task's limits (settings ``QOELAB_IMPORT_TIME_LIMIT_S``)."""
    return time_limit(
        "the import",
        "QOELAB_IMPORT_TIME_LIMIT_S",
        "split the file into smaller ones, or ask the lab's administrator to raise the limit",
    )


def finish_failed(
    job_id: int, error: str, *, line: int | None = None, column: str | None = None
) -> None:
    """Fail a job that has not finished (and drop its upload)."""
    ImportJob.objects.filter(pk=job_id, state__in=[JobState.QUEUED, JobState.RUNNING]).update(
        state=JobState.FAILED,
        error=error,
        error_line=line,
        error_column=(column or "")[:100],
        stage="failed",
        finished_at=timezone.now(),
    )
    remove_upload(job_id)


def run_import_job(job_id: int, *, worker: str) -> str:
    """Check and write the job's stored CSV into its study as ``worker``; record progress
    and counts. Returns the job's final state, ``missing`` or ``superseded``."""
    job = ImportJob.objects.select_related("study").filter(pk=job_id).first()
    if job is None:
        return "missing"
    mine = begin_run(
        job,
        "import",
        "checking rows",
        worker=worker,
        fail=partial(finish_failed, job_id),
        rows_done=0,
    )
    if isinstance(mine, str):
        return mine
    last_write = 0.0

    def progress(rows: int) -> None:
        nonlocal last_write
        now = time.monotonic()
        if now - last_write < PROGRESS_WRITE_INTERVAL_S and rows < job.rows_total:
            return
        last_write = now
        share = rows / job.rows_total if job.rows_total else 1.0
        if not mine.update(rows_done=rows, progress=round(CHECKING_SHARE * min(1.0, share), 4)):
            raise JobSuperseded

    def written() -> None:
        if not mine.update(stage="writing", progress=CHECKING_SHARE):
            raise JobSuperseded

    digest = job.file_sha256[:16]
    try:
        with open_upload(stored_file(job)) as lines:
            result = import_ratings(job.study, lines, digest, progress, before_write=written)
    except JobSuperseded:
        return SUPERSEDED
    except SoftTimeLimitExceeded:
        fresh_connection()
        finish_failed(job_id, import_time_limit().reason())
        return JobState.FAILED
    except ImportRejected as exc:
        finish_failed(job_id, str(exc), line=exc.line, column=exc.column)
        return JobState.FAILED
    except UnicodeDecodeError as exc:
        finish_failed(job_id, f"the file is not UTF-8 text ({exc.reason})")
        return JobState.FAILED
    except FileNotFoundError:
        finish_failed(
            job_id,
            "the uploaded file is not in this worker's QOELAB_DATA_DIR/imports; a worker that "
            "runs imports must share the web server's data folder (docs/deploy.md)",
        )
        return JobState.FAILED
    except Exception as exc:
        finish_failed(job_id, f"the import failed unexpectedly: {type(exc).__name__}: {exc}")
        raise
    finished = mine.update(
        state=JobState.SUCCEEDED,
        sessions=result.sessions,
        ratings=result.ratings,
        participants_created=result.participants_created,
        progress=1.0,
        stage="done",
        finished_at=timezone.now(),
    )
    if finished:
        remove_upload(job_id)
    return JobState.SUCCEEDED if finished else SUPERSEDED
