"""A job's input: the study's tidy CSV and sidecar as they are now, hashed and stored.

A job created by a results request (:func:`qoelab.analysis_jobs.services.request_analysis`)
has no input yet; its run builds it (stage "building the ratings table"). When a finished
job of the same study version and options analysed exactly that input (same SHA-256), its
result is copied instead of being computed again (the analysis is deterministic:
``seed=0``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from qoelab.analysis_jobs.models import OPTION_FIELDS, AnalysisJob, JobState
from qoelab.core.background_jobs import JobSuperseded
from qoelab.exports import tidy
from qoelab.studies.models import Study
from qoelab.studies.rating_items import sidecar

NO_RATINGS = "the study has no ratings of completed sessions to analyse"


class NothingToAnalyseError(ValueError):
    """The study's tidy table has no rows (e.g. every rating's session was aborted)."""


def input_digest(csv_text: str, items: dict[str, Any]) -> str:
    """SHA-256 of the CSV and its sidecar (a changed acceptance rule is another analysis)."""
    text = csv_text + "\n" + json.dumps(items, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def store_input(job: AnalysisJob, mine: QuerySet[AnalysisJob]) -> AnalysisJob:
    """Build the job's input from its study's current data and store it on the job.

    Returns the job with its input; raises :class:`JobSuperseded` when a newer attempt
    overtook this one, :class:`NothingToAnalyseError` (the job fails) for an empty table.
    """
    study = Study.objects.get(pk=job.study_id)
    table = tidy.tidy_table(study)
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
            input_sha256=job.input_sha256,
            **{name: getattr(job, name) for name in OPTION_FIELDS},
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
