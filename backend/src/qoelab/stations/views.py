"""Stations (lab seats with their netem agents): CRUD for researchers, plus a health check."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from qoelab.core.api import conflict
from qoelab.stations.health import check_station
from qoelab.stations.models import Station
from qoelab.stations.serializers import StationSerializer
from qoelab.studies.access import IsResearcher


class StationViewSet(viewsets.ModelViewSet[Station]):
    """The lab's stations. A station with sessions cannot be deleted."""

    serializer_class = StationSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self) -> QuerySet[Station]:
        return Station.objects.order_by("name")

    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        station = self.get_object()
        if station.sessions.exists():
            return conflict(f"station {station.name!r} has sessions and cannot be deleted")
        station.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses=StationSerializer)
    @action(detail=True, methods=["post"])
    def check(self, request: Request, pk: str | None = None) -> Response:
        """Ask the station's agent for health and capabilities; store and return the result."""
        station = check_station(self.get_object())
        return Response(self.get_serializer(station).data)
