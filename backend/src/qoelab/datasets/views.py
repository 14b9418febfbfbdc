"""The dataset import's endpoints (docs/api.md, "Importing a dataset"):
``POST /datasets/describe/``, ``POST /datasets/import/`` and ``GET /dataset-jobs/{id}/``."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from qoelab.datasets.describe import describe_uploads
from qoelab.datasets.models import DatasetJob
from qoelab.datasets.serializers import (
    DatasetJobAnswerSerializer,
    DatasetJobSerializer,
    DescribeSerializer,
    RefusalSerializer,
)
from qoelab.datasets.submit import submit_dataset
from qoelab.datasets.uploads import too_large
from qoelab.studies.access import IsResearcher, accessible_studies

_FILES = {"type": "array", "items": {"type": "string", "format": "binary"}}
_LIMITS = "the CSV import's limits: QOELAB_IMPORT_MAX_COLUMNS, _LINE_BYTES and _CELL_BYTES per file"


def _files(request: Request) -> list[Any]:
    """The uploaded files of the form field ``files``, refused unread (413) when the body
    is larger than the import's byte limit."""
    declared = request.META.get("CONTENT_LENGTH") or "0"
    # The form's encoding adds a little; a body much larger than the limit is refused unread.
    if declared.isdigit() and int(declared) > settings.QOELAB_IMPORT_MAX_BYTES + 64 * 1024:
        raise too_large()
    return list(request.FILES.getlist("files"))


class DescribeView(APIView):
    permission_classes = [IsResearcher]
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {"files": _FILES},
                "required": ["files"],
            }
        },
        responses={
            200: DescribeSerializer,
            400: OpenApiResponse(RefusalSerializer, description=f"a file unreadable; {_LIMITS}"),
            413: OpenApiResponse(description="larger than QOELAB_IMPORT_MAX_BYTES"),
        },
    )
    def post(self, request: Request) -> Response:
        """A draft descriptor of the uploaded CSV files (as ``qoe-analysis describe``
        writes it) and every column of every file with its type, distinct and missing
        counts and the draft's role: the column-mapping step of the web import. Reads a
        bounded sample of each file (``files[].complete``)."""
        return Response(describe_uploads(_files(request)))


class ImportDatasetView(APIView):
    permission_classes = [IsResearcher]
    parser_classes = [MultiPartParser]

    @extend_schema(
        request={
            "multipart/form-data": {
                "type": "object",
                "properties": {
                    "descriptor": {
                        "type": "string",
                        "description": "the descriptor: JSON text, or a .json/.yaml file",
                    },
                    "files": _FILES,
                    "title": {"type": "string", "description": "the new study's title"},
                },
                "required": ["descriptor", "files"],
            }
        },
        responses={
            200: OpenApiResponse(
                DatasetJobAnswerSerializer,
                description="the same submission's job (queued, running, or its study exists)",
            ),
            202: OpenApiResponse(DatasetJobAnswerSerializer, description="the new import job"),
            400: OpenApiResponse(
                RefusalSerializer,
                description="every problem of the descriptor and the files' headers (a "
                "missing column, two roles for one column, an unknown role, factor or unit, "
                f"a file missing or extra); {_LIMITS}; QOELAB_IMPORT_MAX_ROWS together",
            ),
            413: OpenApiResponse(description="larger than QOELAB_IMPORT_MAX_BYTES together"),
        },
    )
    def post(self, request: Request) -> Response:
        """Import a dataset (its descriptor and CSV files) as a new analysis-only study,
        in a background job: poll the job at the ``Location`` until it has succeeded
        (``study``, ``summary``, ``warnings``) or failed (``problems``)."""
        uploads = _files(request)  # first: a body over the limit is refused unread
        data: Any = request.data
        descriptor = request.FILES.get("descriptor") or data.get("descriptor")
        submission = submit_dataset(
            descriptor=descriptor,
            uploads=uploads,
            title=str(data.get("title") or ""),
            user=request.user,
        )
        job = DatasetJob.objects.get(pk=submission.job.pk)
        response = Response(
            {"job": DatasetJobSerializer(job).data},
            status=status.HTTP_202_ACCEPTED if submission.created else status.HTTP_200_OK,
        )
        response["Location"] = reverse("dataset-job-detail", kwargs={"pk": job.pk})
        return response


class DatasetJobViewSet(viewsets.ReadOnlyModelViewSet[DatasetJob]):
    """``GET`` a dataset import job: state, progress, then the new study with the counts,
    the loader's ``summary`` and ``warnings``, or the ``problems`` that failed it. A job is
    its submitter's, and once it has a study, also of those who may see the study."""

    serializer_class = DatasetJobSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self) -> QuerySet[DatasetJob]:
        user = self.request.user
        if user.is_superuser:
            return DatasetJob.objects.all()
        return DatasetJob.objects.filter(
            Q(created_by=user) | Q(study__in=accessible_studies(user))
        ).distinct()
