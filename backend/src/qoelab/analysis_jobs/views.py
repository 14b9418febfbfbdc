"""Analysis jobs: start one for a study (cached per version and input), poll its state."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.views import APIView

from qoelab.analysis_jobs.job_response import job_response, with_result_text
from qoelab.analysis_jobs.models import AnalysisJob
from qoelab.analysis_jobs.serializers import AnalysisJobSerializer, AnalysisRequestSerializer
from qoelab.analysis_jobs.services import request_analysis
from qoelab.studies.access import IsResearcher, accessible_studies


class AnalysisJobViewSet(viewsets.ReadOnlyModelViewSet[AnalysisJob]):
    """``GET`` a job: state (queued/running/succeeded/failed), progress 0..1, the result."""

    serializer_class = AnalysisJobSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self) -> QuerySet[AnalysisJob]:
        return AnalysisJob.objects.filter(study__in=accessible_studies(self.request.user))

    @extend_schema(
        responses={
            (200, "text/csv"): OpenApiTypes.STR,
            404: OpenApiResponse(description="no such job, or its input is not built yet"),
        }
    )
    @action(detail=True, methods=["get"], url_path="input-csv")
    def input_csv(self, request: Request, pk: str | None = None) -> HttpResponse:
        """The tidy CSV this job analysed: the study's ratings export (default options) at
        the job's data version. It never changes, so the browser may keep it."""
        job = get_object_or_404(self.get_queryset().only("id", "input_csv", "input_sha256"), pk=pk)
        if not job.input_sha256:
            raise NotFound("the job has not built its input yet; poll the job")
        response = HttpResponse(job.input_csv, content_type="text/csv; charset=utf-8")
        response["Cache-Control"] = "private, max-age=31536000, immutable"
        response["ETag"] = f'"{job.input_sha256}"'
        return response

    # A plain HttpResponse: the body is rendered already (job_response), not by DRF.
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponse:  # type: ignore[override]
        """``GET`` a job: state (queued/running/succeeded/failed), progress 0..1, the result
        (sent as stored, ``job_response``)."""
        job = get_object_or_404(with_result_text(self.get_queryset()), pk=kwargs["pk"])
        return job_response(job)


class StudyAnalysisView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        request=AnalysisRequestSerializer,
        responses={
            200: AnalysisJobSerializer,
            202: AnalysisJobSerializer,
            400: OpenApiResponse(description="nothing to analyse, or an option out of range"),
            404: OpenApiResponse(description="no such study (or no access)"),
        },
    )
    def post(self, request: Request, pk: int) -> HttpResponse:
        """Analyse the study's ratings (202 with a new job, 200 with the cached one).

        The cached job is the one of the study's current version and data version: found
        without reading the ratings. A new job builds the ratings table in the background;
        poll it (``GET /analysis-jobs/{id}/``) for its state, stage and progress.

        With ``reliable_only``, fewer reliable raters than ``min_reliable_raters`` make the
        job fail, its ``error`` the analysis' reason with the numbers (the request itself
        succeeds: the raters are known only once the job has screened them).
        """
        study = get_object_or_404(accessible_studies(request.user), pk=pk)
        serializer = AnalysisRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        outcome = request_analysis(
            study,
            reliable_only=data["reliable_only"],
            min_reliable_raters=data["min_reliable_raters"],
            min_reliable_share=data["min_reliable_share"],
            user=request.user,
        )
        # A new job may have run already (tasks in-process run when the job is committed).
        job = (
            outcome.job
            if outcome.cached
            else with_result_text(AnalysisJob.objects.filter(pk=outcome.job.pk)).get()
        )
        return job_response(
            job, status=status.HTTP_200_OK if outcome.cached else status.HTTP_202_ACCEPTED
        )
