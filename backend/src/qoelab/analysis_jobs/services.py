"""Starting analysis jobs, with the cache per study version and input."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction

from qoelab.analysis_jobs.models import AnalysisJob, JobState
from qoelab.core.errors import BadRequest
from qoelab.exports.tidy import tidy_table
from qoelab.studies.models import Study
from qoelab.studies.rating_items import sidecar


class NothingToAnalyse(BadRequest):
    """The study has no ratings the analysis could use (400, ``code`` "no_ratings").

    The code lets the results explorer tell "nothing to analyse yet" (a new study) from a
    bad request, and show each figure's reason instead of an error.
    """

    def body(self) -> dict[str, Any]:
        return {**super().body(), "code": "no_ratings"}


def input_digest(csv_text: str, items: dict[str, Any]) -> str:
    """SHA-256 of the CSV and its sidecar (a changed acceptance rule is another analysis)."""
    text = csv_text + "\n" + json.dumps(items, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class JobRequest:
    job: AnalysisJob
    cached: bool


def request_analysis(study: Study, *, reliable_only: bool, user: Any = None) -> JobRequest:
    """The job for the study's current data: an existing one (cached) or a new, queued one."""
    table = tidy_table(study)
    if not table.rows:
        raise NothingToAnalyse("the study has no ratings of completed sessions to analyse")
    csv_text = table.to_csv()
    items = sidecar(study)
    digest = input_digest(csv_text, items)
    key = {
        "study": study,
        "study_version": study.version,
        "reliable_only": reliable_only,
        "input_sha256": digest,
    }
    existing = AnalysisJob.objects.filter(**key).exclude(state=JobState.FAILED).first()
    if existing is not None:
        return JobRequest(existing, cached=True)
    try:
        with transaction.atomic():
            job = AnalysisJob.objects.create(
                **key,
                input_csv=csv_text,
                input_items=items,
                input_rows=len(table.rows),
                created_by=user if getattr(user, "is_authenticated", False) else None,
            )
    except IntegrityError:
        return JobRequest(
            AnalysisJob.objects.filter(**key).exclude(state=JobState.FAILED).get(), True
        )
    job_id = job.pk
    transaction.on_commit(lambda: _enqueue(job_id))
    return JobRequest(job, cached=False)


def _enqueue(job_id: int) -> None:
    from qoelab.analysis_jobs.tasks import run_analysis

    try:
        result = run_analysis.delay(job_id)
    except Exception as exc:  # broker down: the job must not stay "queued" forever
        AnalysisJob.objects.filter(pk=job_id, state=JobState.QUEUED).update(
            state=JobState.FAILED, error=f"could not queue the analysis: {exc}"
        )
        return
    AnalysisJob.objects.filter(pk=job_id).update(task_id=str(result.id or ""))
