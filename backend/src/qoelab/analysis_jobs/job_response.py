"""A job as JSON with its stored result passed through as text.

A cached results request is one job lookup, but its result document is large (about
3 MB for 1,000 participants): decoding it from the database and encoding it again for
the response cost far more than everything else in the request. The database already
holds it as JSON text, so the response splices that text into the serialized job in place
of decoding and re-encoding it. The body is the same JSON document as the serializer's
(:class:`AnalysisJobSerializer`), only its ``result`` member is formatted as stored.

A succeeded job's result never changes (the task leaves a finished job alone), so each
process also keeps the text of the last few results it sent (:data:`RESULT_TEXTS`
entries, keyed by the job's id, finish time and input hash — a reused SQLite row id has
another finish time): a repeated cached request then reads no result from the database.
"""

from __future__ import annotations

import functools
import json
import secrets

from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast
from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer

from qoelab.analysis_jobs.models import AnalysisJob, JobState
from qoelab.analysis_jobs.serializers import AnalysisJobSerializer

#: How many result texts a process keeps (about 1.5 MB each for 1,000 participants).
RESULT_TEXTS = 8


def with_result_text(jobs: QuerySet[AnalysisJob]) -> QuerySet[AnalysisJob]:
    """``jobs`` with ``result`` deferred (:func:`job_response` reads it as text)."""
    return jobs.defer("result")


@functools.lru_cache(maxsize=RESULT_TEXTS)
def _stored_result_text(job_id: int, finished_at: str, input_sha256: str) -> str | None:
    """The succeeded job's result as the database holds it (JSON text)."""
    text: str | None = (
        AnalysisJob.objects.filter(pk=job_id)
        .annotate(result_text=Cast("result", TextField()))
        .values_list("result_text", flat=True)
        .get()
    )
    return text


def result_text(job: AnalysisJob) -> str | None:
    """The stored JSON text of a succeeded job's result (None for any other job)."""
    if job.state != JobState.SUCCEEDED or job.finished_at is None:
        return None
    return _stored_result_text(job.pk, job.finished_at.isoformat(), job.input_sha256)


def job_response(job: AnalysisJob, status: int = 200) -> HttpResponse:
    """The serialized job; a succeeded job's ``result`` as its stored text when deferred."""
    deferred = "result" in job.get_deferred_fields()
    text = result_text(job) if deferred else None
    if text is None:
        body = JSONRenderer().render(AnalysisJobSerializer(job).data)
        return HttpResponse(body, status=status, content_type=JSON)
    # Serialize the other fields with a marker as the result, then put the text there.
    marker = f"qoelab-result-{secrets.token_hex(16)}"
    job.result = marker
    rendered = JSONRenderer().render(AnalysisJobSerializer(job).data)
    body = rendered.replace(json.dumps(marker).encode(), text.encode(), 1)
    return HttpResponse(body, status=status, content_type=JSON)


JSON = "application/json"
