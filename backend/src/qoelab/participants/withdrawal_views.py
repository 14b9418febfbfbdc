"""The study's withdrawal audit: ``GET /api/v1/studies/{id}/withdrawals/`` (owner only)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from qoelab.participants.withdrawal import may_withdraw, withdrawal_summary
from qoelab.participants.withdrawal_serializers import WithdrawalListSerializer
from qoelab.studies.access import IsResearcher, accessible_studies


class StudyWithdrawalsView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        responses={
            200: WithdrawalListSerializer,
            403: OpenApiResponse(description="not the study's owner"),
            404: OpenApiResponse(description="no such study, or not one of yours"),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        """The study's withdrawals (who, when, which pseudonym, how, rows erased; newest
        first) and how many participants are excluded or erased."""
        study = get_object_or_404(accessible_studies(request.user), pk=pk)
        if not may_withdraw(request.user, study):
            raise PermissionDenied("Only the study's owner may read its withdrawal audit.")
        return Response(WithdrawalListSerializer(withdrawal_summary(study)).data)
