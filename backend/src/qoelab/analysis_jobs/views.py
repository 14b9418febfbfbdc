"""Analysis jobs: start one for a study (cached per version and input), poll its state."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

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


class StudyAnalysisView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        request=AnalysisRequestSerializer,
        responses={
            200: AnalysisJobSerializer,
            202: AnalysisJobSerializer,
            400: OpenApiResponse(description="nothing to analyse"),
            404: OpenApiResponse(description="no such study (or no access)"),
        },
    )
    def post(self, request: Request, pk: int) -> Response:
        """Analyse the study's ratings (202 with a new job, 200 with the cached one)."""
        study = get_object_or_404(accessible_studies(request.user), pk=pk)
        serializer = AnalysisRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        outcome = request_analysis(
            study, reliable_only=serializer.validated_data["reliable_only"], user=request.user
        )
        job = AnalysisJob.objects.get(pk=outcome.job.pk)
        return Response(
            AnalysisJobSerializer(job).data,
            status=status.HTTP_200_OK if outcome.cached else status.HTTP_202_ACCEPTED,
        )
