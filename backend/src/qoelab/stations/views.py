"""Stations (lab seats with their netem agents): CRUD for researchers, plus agent tests."""

from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from qoelab.core.errors import Conflict
from qoelab.stations import health
from qoelab.stations.models import Station
from qoelab.stations.serializers import BaselineResultSerializer, StationSerializer
from qoelab.studies.access import IsResearcher


class StationViewSet(viewsets.ModelViewSet[Station]):
    """The lab's stations. A station with sessions cannot be deleted."""

    serializer_class = StationSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self) -> QuerySet[Station]:
        return Station.objects.order_by("name")

    def perform_destroy(self, instance: Station) -> None:
        if instance.sessions.exists():
            raise Conflict(f"station {instance.name!r} has sessions and cannot be deleted")
        instance.delete()

    @extend_schema(request=None, responses=StationSerializer)
    @action(detail=True, methods=["post"])
    def check(self, request: Request, pk: str | None = None) -> Response:
        """Ask the station's agent for health and capabilities; store and return the result."""
        station = health.check_station(self.get_object())
        return Response(self.get_serializer(station).data)

    @extend_schema(
        request=None,
        responses={
            200: BaselineResultSerializer,
            409: OpenApiResponse(description='{"detail": message}: a session holds the station'),
            502: OpenApiResponse(
                description='{"detail": message}: the agent is unreachable, refused the '
                "profile, or read back a different state"
            ),
        },
    )
    @action(detail=True, methods=["post"], url_path="apply-baseline")
    def apply_baseline(self, request: Request, pk: str | None = None) -> Response:
        """Test the station: the agent installs the neutral profile (no impairment) with a
        short lease and reads it back; the result is stored like a check's."""
        station = self.get_object()
        applied = health.apply_baseline(station)
        result = {
            "station": station,
            "requested_profile": health.neutral_profile(),
            "verified_profile": applied.profile,
            "installed": applied.installed,
            "backend": applied.backend,
            "kernel": applied.kernel,
            "lease_seconds": health.BASELINE_LEASE_SECONDS,
            "lease_expires_at": applied.lease_expires_at,
        }
        return Response(BaselineResultSerializer(result).data)
