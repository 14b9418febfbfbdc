"""Stations (lab seats with their netem agents): CRUD for researchers, plus agent tests.

Who may do what is decided in :mod:`qoelab.stations.access`; the views only apply it.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from qoelab.core.errors import Conflict
from qoelab.stations import health
from qoelab.stations.access import ensure_may_change, ensure_not_busy, visible_stations
from qoelab.stations.models import Station
from qoelab.stations.serializers import BaselineResultSerializer, StationSerializer
from qoelab.studies.access import IsResearcher

ERROR = OpenApiResponse(description='{"detail": message}')
CHANGE_ERRORS = {
    403: OpenApiResponse(description='{"detail": message}: only the owner or staff may'),
    404: OpenApiResponse(description="no such station, or not yours and not shared"),
    409: OpenApiResponse(description='{"detail": message}: a session holds the station'),
}


@extend_schema_view(
    update=extend_schema(responses={200: StationSerializer, 400: ERROR, **CHANGE_ERRORS}),
    partial_update=extend_schema(responses={200: StationSerializer, 400: ERROR, **CHANGE_ERRORS}),
    destroy=extend_schema(responses={204: None, **CHANGE_ERRORS}),
)
class StationViewSet(viewsets.ModelViewSet[Station]):
    """Stations the researcher owns or that are shared (staff: all). Only the owner or staff
    change one, never while a session runs on it; a station with sessions cannot be
    deleted."""

    serializer_class = StationSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self) -> QuerySet[Station]:
        return visible_stations(self.request.user).select_related("owner").order_by("name")

    def _changeable(self, what: str) -> Station:
        """The station, locked, once the caller may change it and no session holds it."""
        station = self.get_object()
        ensure_may_change(self.request.user, station)
        # The row lock orders this change against a session starting on the station.
        station = Station.objects.select_for_update().get(pk=station.pk)
        ensure_not_busy(station, what)
        return station

    def perform_create(self, serializer: serializers.BaseSerializer[Station]) -> None:
        serializer.save(owner=self.request.user)

    @transaction.atomic
    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        station = self._changeable("it cannot be changed until the session ends")
        serializer = self.get_serializer(
            station, data=request.data, partial=kwargs.get("partial", False)
        )
        serializer.is_valid(raise_exception=True)
        serializer.save()
        return Response(serializer.data)

    @transaction.atomic
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        station = self._changeable("it cannot be deleted")
        if station.sessions.exists():
            raise Conflict(f"station {station.name!r} has sessions and cannot be deleted")
        station.delete()
        return Response(status=204)

    @extend_schema(request=None, responses={200: StationSerializer, **CHANGE_ERRORS})
    @action(detail=True, methods=["post"])
    def check(self, request: Request, pk: str | None = None) -> Response:
        """Ask the station's agent for health and capabilities; store and return the result.

        Only a valid capabilities document is stored (else the check fails with a message).
        """
        with transaction.atomic():
            station = self._changeable("its agent is not checked during a session")
        station = health.check_station(station)
        return Response(self.get_serializer(station).data)

    @extend_schema(
        request=None,
        responses={
            200: BaselineResultSerializer,
            **CHANGE_ERRORS,
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
        ensure_may_change(request.user, station)
        applied = health.apply_baseline(station)
        result = {
            "station": station,
            "requested_profile": health.neutral_profile(),
            "verified_profile": applied.profile,
            "installed": applied.installed,
            "backend": applied.backend,
            "kernel": applied.kernel,
            "kernel_read_back": applied.kernel_read_back,
            "lease_seconds": health.BASELINE_LEASE_SECONDS,
            "lease_expires_at": applied.lease_expires_at,
        }
        return Response(
            BaselineResultSerializer(result, context=self.get_serializer_context()).data
        )
