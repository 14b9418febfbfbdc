"""Ratings, read-only for researchers (they are written through the session flow)."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import viewsets

from qoelab.core.api import filter_by_id
from qoelab.ratings.models import Rating
from qoelab.runs.serializers import RatingSerializer
from qoelab.studies.access import IsResearcher, accessible_studies


@extend_schema_view(
    list=extend_schema(
        parameters=[
            OpenApiParameter("study", OpenApiTypes.INT),
            OpenApiParameter("session", OpenApiTypes.INT),
        ]
    )
)
class RatingViewSet(viewsets.ReadOnlyModelViewSet[Rating]):
    serializer_class = RatingSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self) -> QuerySet[Rating]:
        ratings = Rating.objects.select_related("scenario").filter(
            session__study__in=accessible_studies(self.request.user)
        )
        for name, lookup in (("study", "session__study_id"), ("session", "session_id")):
            ratings = filter_by_id(ratings, lookup, self.request.query_params.get(name))
        return ratings.order_by("session_id", "order_index")
