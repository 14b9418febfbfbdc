"""Study data out (CSV, JSON, sureal) and ratings in (CSV import)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.parsers import BaseParser, FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from qoelab.exports.import_cells import ImportRejected
from qoelab.exports.importer import MAX_IMPORT_BYTES, import_ratings_csv
from qoelab.exports.tidy import study_json, sureal_dataset, tidy_csv
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
    media_type = "text/csv"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        return stream.read(MAX_IMPORT_BYTES + 1)


class ImportCsvView(APIView):
    permission_classes = [IsResearcher]
    parser_classes = [PlainTextCsvParser, MultiPartParser, FormParser]

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
            201: OpenApiResponse(description="{sessions, ratings, participants_created}"),
            400: OpenApiResponse(description='{"detail": "line N: reason", "line": N}'),
            404: OpenApiResponse(),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        """Import a tidy ratings CSV: all or nothing; a bad row rejects the whole file."""
        study = _study(request, pk)
        data: Any = request.data
        if isinstance(data, bytes | str):
            content: bytes | str = data
        elif request.content_type.startswith("text/csv"):
            content = b""  # an empty body
        else:
            upload = data.get("file") if hasattr(data, "get") else None
            if upload is None or not hasattr(upload, "read"):
                raise ImportRejected("send the CSV as text/csv or as multipart field 'file'")
            if upload.size > MAX_IMPORT_BYTES:
                raise ImportRejected("the file is larger than 5 MiB")
            content = upload.read()
        result = import_ratings_csv(study, content)
        return Response(
            {
                "sessions": result.sessions,
                "ratings": result.ratings,
                "participants_created": result.participants_created,
            },
            status=status.HTTP_201_CREATED,
        )
