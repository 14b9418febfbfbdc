"""Steering services (running ``qoe-steer`` daemons): CRUD for their owner, plus their live
state read through the backend (the token never reaches the browser).

Only the owner sees a service; for anyone else it does not exist (404).
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from qoelab.steering.models import SteeringService
from qoelab.steering.serializers import SteeringServiceSerializer
from qoelab.steering.status_client import fetch_state
from qoelab.steering.status_document import StatusDocument
from qoelab.studies.access import IsResearcher

NOT_FOUND = OpenApiResponse(description="no such steering service, or not yours")
INVALID = OpenApiResponse(description="{field: [messages]}: the service as given is refused")


class SteeringStateSerializer(serializers.Serializer[Any]):
    """``GET /api/v1/steering-services/{id}/state/``."""

    fetched_at_unix = serializers.FloatField(help_text="when the backend read the state")
    round_trip_ms = serializers.FloatField(help_text="how long the service took to answer")
    status = StatusDocument(help_text="the daemon's GET /v1/status, checked against the contract")


class StateFailureSerializer(serializers.Serializer[Any]):
    detail = serializers.CharField()
    failure = serializers.ChoiceField(
        choices=[
            "refused",
            "timeout",
            "tls",
            "unauthorized",
            "http_error",
            "not_json",
            "too_large",
            "malformed",
            "plain_http",
        ]
    )
    field = serializers.CharField(
        required=False, help_text="malformed: the first field that does not fit, e.g. paths[0].port"
    )


@extend_schema_view(
    list=extend_schema(responses={200: SteeringServiceSerializer(many=True)}),
    create=extend_schema(responses={201: SteeringServiceSerializer, 400: INVALID}),
    retrieve=extend_schema(responses={200: SteeringServiceSerializer, 404: NOT_FOUND}),
    update=extend_schema(responses={200: SteeringServiceSerializer, 400: INVALID, 404: NOT_FOUND}),
    partial_update=extend_schema(
        responses={200: SteeringServiceSerializer, 400: INVALID, 404: NOT_FOUND}
    ),
    destroy=extend_schema(responses={204: None, 404: NOT_FOUND}),
)
class SteeringServiceViewSet(viewsets.ModelViewSet[SteeringService]):
    """The signed-in researcher's steering services."""

    serializer_class = SteeringServiceSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self) -> QuerySet[SteeringService]:
        return SteeringService.objects.filter(owner=self.request.user.pk)

    def perform_create(self, serializer: serializers.BaseSerializer[SteeringService]) -> None:
        serializer.save(owner=self.request.user)

    @extend_schema(
        responses={
            200: SteeringStateSerializer,
            404: NOT_FOUND,
            502: OpenApiResponse(
                StateFailureSerializer,
                description="the service refused the connection or the token, answered "
                "something else than a status document, or a document that does not fit "
                "the contract (field names where)",
            ),
            504: OpenApiResponse(
                StateFailureSerializer, description="the service did not answer in time"
            ),
        }
    )
    @action(detail=True, methods=["get"])
    def state(self, request: Request, pk: str | None = None) -> Response:
        """The service's live state: paths with their measured KPIs, the policy's bounds per
        class, the active path per flow, alarms and the last events."""
        return Response(fetch_state(self.get_object()))
