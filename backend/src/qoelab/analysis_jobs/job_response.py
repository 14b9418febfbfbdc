"""A job as JSON with its stored result passed through as text.

A cached results request is one job lookup, but its result document is large (about
3 MB for 1,000 participants): decoding it from the database and encoding it again for
the response cost far more than everything else in the request. The database already
holds it as JSON text, so the response splices that text into the serialized job in place
of decoding and re-encoding it. The body is the same JSON document as the serializer's
(:class:`AnalysisJobSerializer`), only its ``result`` member is formatted as stored.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

from django.db.models import QuerySet, TextField
from django.db.models.functions import Cast
from django.http import HttpResponse
from rest_framework.renderers import JSONRenderer

from qoelab.analysis_jobs.models import AnalysisJob
from qoelab.analysis_jobs.serializers import AnalysisJobSerializer


def with_result_text(jobs: QuerySet[AnalysisJob]) -> QuerySet[AnalysisJob]:
    """``jobs`` with ``result`` deferred and its stored JSON text as ``result_text``."""
    return jobs.defer("result").annotate(result_text=Cast("result", TextField()))


def job_response(job: AnalysisJob, status: int = 200) -> HttpResponse:
    """The serialized job; ``result`` copied from ``job.result_text`` when annotated."""
    text: Any = getattr(job, "result_text", None)
    if not isinstance(text, str) or "result" not in job.get_deferred_fields():
        body = JSONRenderer().render(AnalysisJobSerializer(job).data)
        return HttpResponse(body, status=status, content_type=JSON)
    # Serialize the other fields with a marker as the result, then put the text there.
    marker = f"qoelab-result-{secrets.token_hex(16)}"
    job.result = marker
    rendered = JSONRenderer().render(AnalysisJobSerializer(job).data)
    body = rendered.replace(json.dumps(marker).encode(), text.encode(), 1)
    return HttpResponse(body, status=status, content_type=JSON)


JSON = "application/json"
