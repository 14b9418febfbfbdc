"""Running a dataset import job: the stored files through the dataset loader into a new
analysis-only study (:mod:`qoelab.datasets.write`).

Called by the Celery task (:mod:`qoelab.datasets.tasks`, the "heavy" queue, within the
import's time limits ``QOELAB_IMPORT_TIME_LIMIT_S``). The loader
(:func:`qoe_analysis.dataset.load_dataset`) reads every file by the descriptor and finds
every problem at once; a dataset with problems fails the job with them (``problems``,
capped, and ``more``), as does one that breaks a study's limits
(:func:`qoelab.datasets.design.study_problems`). All or nothing: the study and everything
in it are written in one transaction, together with the job's success, so a refused
dataset, a time limit or a lost worker leaves no study behind. Crash safety as for the
other jobs (:mod:`qoelab.core.background_jobs`): each run claims the job, writes only while
its attempt is the latest, and a job whose worker was lost ``MAX_ATTEMPTS`` times fails.
The stored files are removed once the job has succeeded or failed.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from qoelab.core.background_jobs import (
    SUPERSEDED,
    JobState,
    JobSuperseded,
    begin_run,
    fresh_connection,
)
from qoelab.datasets.models import DatasetJob
from qoelab.datasets.problems import capped, headline
from qoelab.datasets.uploads import data_table, remove_folder
from qoelab.exports.import_run import import_time_limit

if TYPE_CHECKING:
    import pandas as pd
    from qoe_analysis.dataset.descriptor import ResourceSpec
    from qoe_analysis.dataset.loader import LoadedDataset
    from qoe_analysis.dataset.problems import Problem

#: Share of the progress bar for reading and checking the files; writing is the rest.
READING_SHARE = 0.6


def job_folder(job: DatasetJob) -> Path | None:
    """The folder of the job's stored files (None once they are removed)."""
    stored = [f.get("stored") for f in job.files if f.get("stored")]
    return (Path(settings.DATA_DIR) / stored[0]).parent if stored else None


def remove_files(job_id: int) -> None:
    """Delete the job's stored files and forget their paths."""
    job = DatasetJob.objects.filter(pk=job_id).first()
    if job is None or job_folder(job) is None:
        return
    remove_folder(job_folder(job))
    files = [{**f, "stored": ""} for f in job.files]
    DatasetJob.objects.filter(pk=job_id).update(files=files)


def finish_failed(
    job_id: int, error: str = "", problems: Sequence[Problem] = (), total: int | None = None
) -> None:
    """Fail a job that has not finished, with its problems (and drop its files)."""
    listed, more = capped(problems, total) if problems else ([], 0)
    DatasetJob.objects.filter(pk=job_id, state__in=[JobState.QUEUED, JobState.RUNNING]).update(
        state=JobState.FAILED,
        error=error or headline(problems, total),
        problems=listed,
        more=more,
        stage="failed",
        finished_at=timezone.now(),
    )
    remove_files(job_id)


def _reader(job: DatasetJob) -> Any:
    """The loader's reader: a resource's stored file as text cells."""
    stored = {f["path"]: Path(settings.DATA_DIR) / f["stored"] for f in job.files}

    def read(resource: ResourceSpec) -> pd.DataFrame:
        return data_table(stored[resource.path], resource.delimiter)

    return read


def _load(job: DatasetJob) -> LoadedDataset:
    """The dataset, read and checked by the loader, then against a study's limits."""
    from qoe_analysis.dataset import DatasetError, load_dataset

    from qoelab.datasets.design import study_problems

    dataset = load_dataset(job.descriptor, _reader(job), source=job.descriptor_name)
    problems = study_problems(dataset)
    if problems:
        raise DatasetError(problems)
    return dataset


def run_dataset_job(job_id: int, *, worker: str) -> str:
    """Import the job's dataset as ``worker``; returns the job's final state, ``missing`` or
    ``superseded``."""
    from qoe_analysis.dataset import DatasetError

    from qoelab.datasets.write import write_dataset

    job = DatasetJob.objects.filter(pk=job_id).first()
    if job is None:
        return "missing"
    mine = begin_run(
        job,
        "import",
        "reading the files",
        worker=worker,
        fail=partial(finish_failed, job_id),
        rows_done=0,
    )
    if isinstance(mine, str):
        return mine
    try:
        dataset = _load(job)
        if not mine.update(rows_done=job.rows_total, progress=READING_SHARE, stage="writing"):
            raise JobSuperseded
        with transaction.atomic():
            written = write_dataset(job, dataset, title=job.title)
            done = mine.update(
                state=JobState.SUCCEEDED,
                study=written.study,
                sessions=written.sessions,
                ratings=written.ratings,
                participants_created=written.participants,
                scenarios=written.scenarios,
                summary=written.study.dataset.summary,
                dataset_warnings=written.study.dataset.warnings,
                progress=1.0,
                stage="done",
                finished_at=timezone.now(),
            )
            if not done:  # a newer attempt: this one's study must not stay
                raise JobSuperseded
    except JobSuperseded:
        return SUPERSEDED
    except SoftTimeLimitExceeded:
        fresh_connection()
        finish_failed(job_id, import_time_limit().reason())
        return JobState.FAILED
    except DatasetError as exc:
        finish_failed(job_id, problems=exc.problems, total=exc.total)
        return JobState.FAILED
    except Exception as exc:
        finish_failed(job_id, f"the import failed unexpectedly: {type(exc).__name__}: {exc}")
        raise
    remove_files(job_id)
    return JobState.SUCCEEDED
