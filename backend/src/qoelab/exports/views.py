"""Study data out (CSV, JSON, sureal) and ratings in (CSV import)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.parsers import BaseParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from qoelab.exports.import_cells import ImportRejected
from qoelab.exports.import_jobs import READ_CHUNK, FileTooLarge, max_bytes_text, submit_import
from qoelab.exports.models import ImportJob
from qoelab.exports.serializers import ImportJobSerializer
from qoelab.exports.study_exports import study_json, sureal_dataset
from qoelab.exports.tidy import tidy_csv
from qoelab.studies.access import IsResearcher, accessible_studies
from qoelab.studies.models import Study
from qoelab.studies.rating_item_fields import SidecarSerializer
from qoelab.studies.rating_items import sidecar


def _study(request: Request, pk: int) -> Study:
    return get_object_or_404(accessible_studies(request.user), pk=pk)


def _flag(request: Request, name: str) -> bool:
    return request.query_params.get(name, "").lower() in {"1", "true", "yes"}


class ExportCsvView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        parameters=[
            OpenApiParameter("include_retest", OpenApiTypes.BOOL),
            OpenApiParameter("include_incomplete", OpenApiTypes.BOOL),
        ],
        responses={(200, "text/csv"): OpenApiTypes.STR, 404: OpenApiResponse()},
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        """The tidy ratings CSV that `qoe-analysis analyze` reads (one row per rating)."""
        study = _study(request, pk)
        body = tidy_csv(
            study,
            include_retest=_flag(request, "include_retest"),
            include_incomplete=_flag(request, "include_incomplete"),
        )
        response = HttpResponse(body, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{study.slug}-ratings.csv"'
        return response


class ExportJsonView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses={200: OpenApiTypes.OBJECT, 404: OpenApiResponse()})
    def get(self, request: Request, pk: int) -> Response:
        """The study's design, participants, sessions, answers and ratings (all rounds)."""
        return Response(study_json(_study(request, pk)))


class ExportSurealView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "item",
                OpenApiTypes.STR,
                description="the rating item's key (default: the study's first item)",
            )
        ],
        responses={200: OpenApiTypes.OBJECT, 400: OpenApiResponse(), 404: OpenApiResponse()},
    )
    def get(self, request: Request, pk: int) -> Response:
        """One rating item's ratings as a sureal dataset (JSON variant, opinion scores as
        dictionaries; training ratings left out); one dataset per item via ``?item=``."""
        return Response(sureal_dataset(_study(request, pk), request.query_params.get("item")))


class ExportItemsView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(responses={200: SidecarSerializer, 404: OpenApiResponse()})
    def get(self, request: Request, pk: int) -> Response:
        """The tidy CSV's sidecar: the rating items of its ``item`` column with their
        scales, the acceptance rule and the fast-rating floor (``qoe-analysis --items``)."""
        return Response(sidecar(_study(request, pk)))


class PlainTextCsvParser(BaseParser):
    """Declares ``text/csv`` bodies; the import view streams them itself (never all in
    memory), so this parser is only used if ``request.data`` is read."""

    media_type = "text/csv"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        return b""


def _body_chunks(request: Request) -> Iterator[bytes]:
    while chunk := request._request.read(READ_CHUNK):
        yield chunk


def _upload_chunks(request: Request) -> tuple[Iterator[bytes], str]:
    """The uploaded CSV's bytes (a text/csv body or the multipart field ``file``), refused
    at once when its declared size is over the limit."""
    limit = settings.QOELAB_IMPORT_MAX_BYTES
    too_large = FileTooLarge(
        f"the file is larger than the import limit of {max_bytes_text()} (QOELAB_IMPORT_MAX_BYTES)"
    )
    if request.content_type.startswith("text/csv"):
        declared = request.META.get("CONTENT_LENGTH") or "0"
        if declared.isdigit() and int(declared) > limit:
            raise too_large
        return _body_chunks(request), ""
    if not request.content_type.startswith("multipart/form-data"):
        raise ImportRejected("send the CSV as text/csv or as multipart field 'file'")
    declared = request.META.get("CONTENT_LENGTH") or "0"
    # The form's encoding adds a little; a body much larger than the limit is refused unread.
    if declared.isdigit() and int(declared) > limit + 64 * 1024:
        raise too_large
    data: Any = request.data
    upload = data.get("file") if hasattr(data, "get") else None
    if upload is None or not hasattr(upload, "chunks"):
        raise ImportRejected("send the CSV as text/csv or as multipart field 'file'")
    if upload.size is not None and upload.size > limit:
        raise too_large
    return iter(upload.chunks(READ_CHUNK)), str(upload.name or "")


class ImportCsvView(APIView):
    permission_classes = [IsResearcher]
    parser_classes = [PlainTextCsvParser, MultiPartParser]

    @extend_schema(
        request={
            "text/csv": OpenApiTypes.STR,
            "multipart/form-data": {
                "type": "object",
                "properties": {"file": {"type": "string", "format": "binary"}},
                "required": ["file"],
            },
        },
        responses={
            200: OpenApiResponse(
                ImportJobSerializer, description="the same file was submitted before: its job"
            ),
            202: OpenApiResponse(ImportJobSerializer, description="the new import job"),
            400: OpenApiResponse(
                description='{"detail": "...", "line": N, "column": "..."}: not UTF-8 CSV, '
                "empty, more rows than QOELAB_IMPORT_MAX_ROWS, more header columns than "
                "QOELAB_IMPORT_MAX_COLUMNS, a line longer than QOELAB_IMPORT_MAX_LINE_BYTES "
                "or a cell larger than QOELAB_IMPORT_MAX_CELL_BYTES"
            ),
            404: OpenApiResponse(),
            413: OpenApiResponse(description="larger than QOELAB_IMPORT_MAX_BYTES"),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        """Import a tidy ratings CSV as a background job (all or nothing: a bad row fails
        the job with its line and column, and nothing is stored). Poll the job at the
        ``Location`` until its state is ``succeeded`` or ``failed``."""
        study = _study(request, pk)
        chunks, name = _upload_chunks(request)
        submission = submit_import(study, chunks, file_name=name, user=request.user)
        job = ImportJob.objects.get(pk=submission.job.pk)
        response = Response(
            ImportJobSerializer(job).data,
            status=status.HTTP_202_ACCEPTED if submission.created else status.HTTP_200_OK,
        )
        response["Location"] = reverse("import-job-detail", kwargs={"pk": job.pk})
        return response


class ImportJobViewSet(viewsets.ReadOnlyModelViewSet[ImportJob]):
    """``GET`` an import job: state (queued/running/succeeded/failed), progress 0..1, rows
    checked, the counts once done, or the error with its line and column."""

    serializer_class = ImportJobSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self) -> QuerySet[ImportJob]:
        return ImportJob.objects.filter(study__in=accessible_studies(self.request.user))
