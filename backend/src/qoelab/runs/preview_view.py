"""``GET /api/v1/studies/{id}/preview/``: the participant's screens of a study, read-only.

For the researcher's preview (docs/running-a-study.md, "Preview"): the screens are built
from the study (:mod:`qoelab.runs.preview`); the endpoint reads and writes no participant,
session, rating or answer. Owner and members of the study; others get 404.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from qoelab.runs.participant_view import ParticipantViewSerializer
from qoelab.runs.preview import preview_screens
from qoelab.studies.access import IsResearcher, accessible_studies


class PreviewScreenSerializer(serializers.Serializer[Any]):
    title = serializers.CharField(help_text="the screen's name, for the researcher")
    view = ParticipantViewSerializer(help_text="what the participant's API would answer")


class StudyPreviewSerializer(serializers.Serializer[Any]):
    study = serializers.IntegerField()
    screens = PreviewScreenSerializer(many=True)


class StudyPreviewView(APIView):
    permission_classes = [IsResearcher]

    @extend_schema(
        responses={
            200: StudyPreviewSerializer,
            404: OpenApiResponse(description="no such study, or not one of yours"),
        },
    )
    def get(self, request: Request, pk: int) -> Response:
        """The participant's screens of the study in a session's order, each the document
        the participant's API answers in that step (``session`` 0: none exists). Nothing is
        stored; the preview's submits go nowhere."""
        study = get_object_or_404(accessible_studies(request.user), pk=pk)
        # Built as the participant's view is, so it is passed through as it is.
        return Response({"study": study.pk, "screens": preview_screens(study)})
