"""Participants of a study (pseudonymous): researcher-only, per-study access."""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from qoelab.core.api import filter_by_id
from qoelab.core.errors import Conflict
from qoelab.participants.models import Participant
from qoelab.participants.serializers import ParticipantSerializer
from qoelab.participants.withdrawal import may_withdraw, withdraw
from qoelab.participants.withdrawal_serializers import (
    WithdrawRequestSerializer,
    WithdrawResponseSerializer,
)
from qoelab.studies.access import IsResearcher, accessible_studies
from qoelab.studies.data_version import bump_data_version
from qoelab.studies.models import Study
from qoelab.studies.views import study_filter


def next_code(study: Study) -> str:
    number = study.participants.count() + 1
    while study.participants.filter(code=f"P{number:03d}").exists():
        number += 1
    return f"P{number:03d}"


@extend_schema_view(list=extend_schema(parameters=[study_filter]))
class ParticipantViewSet(viewsets.ModelViewSet[Participant]):
    serializer_class = ParticipantSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self) -> QuerySet[Participant]:
        participants = Participant.objects.filter(
            study__in=accessible_studies(self.request.user)
        ).order_by("id")
        return filter_by_id(participants, "study_id", self.request.query_params.get("study"))

    def perform_create(self, serializer: serializers.BaseSerializer[Participant]) -> None:
        data = serializer.validated_data
        study = data["study"]
        if not accessible_studies(self.request.user).filter(pk=study.pk).exists():
            raise PermissionDenied("Only the study's owner or members may add participants.")
        consent = data.pop("consent", False)
        with transaction.atomic():
            Study.objects.select_for_update().get(pk=study.pk)
            serializer.save(
                code=data.get("code") or next_code(study),
                consent_at=timezone.now() if consent else None,
            )

    def perform_update(self, serializer: serializers.BaseSerializer[Participant]) -> None:
        consent = serializer.validated_data.pop("consent", False)
        instance: Participant = serializer.instance  # type: ignore[assignment]
        if instance.withdrawal:
            raise Conflict(f"participant {instance.code!r} was withdrawn and cannot change")
        extra = {"consent_at": timezone.now()} if consent and instance.consent_at is None else {}
        with transaction.atomic():
            serializer.save(**extra)
            # Code, age and skill are columns of the analysed table.
            bump_data_version(instance.study_id)

    def perform_destroy(self, instance: Participant) -> None:
        if instance.sessions.exists():
            raise Conflict(f"participant {instance.code!r} has sessions and cannot be deleted")
        instance.delete()

    @extend_schema(
        request=WithdrawRequestSerializer,
        responses={
            200: WithdrawResponseSerializer,
            403: OpenApiResponse(description="not the study's owner (members may not withdraw)"),
            404: OpenApiResponse(description="no such participant, or not in a study of yours"),
            409: OpenApiResponse(
                description="a session of the participant is running, or an erased "
                "participant cannot be excluded"
            ),
        },
    )
    @action(detail=True, methods=["post"])
    def withdraw(self, request: Request, pk: str | None = None) -> Response:
        """Withdraw the participant: ``erase`` their sessions, ratings and answers (the row
        stays as a pseudonym tombstone) or ``exclude`` them from analysis and exports. One
        transaction with an audit entry; a repeat in the same mode answers the same result
        (``created`` false) and writes nothing (docs/running-a-study.md)."""
        participant = self.get_object()
        if not may_withdraw(request.user, participant.study):
            raise PermissionDenied("Only the study's owner may withdraw its participants.")
        body = WithdrawRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        outcome = withdraw(
            participant.pk,
            mode=body.validated_data["mode"],
            reason=body.validated_data["reason"],
            user=request.user,
        )
        answer = {
            "participant": outcome.participant,
            "withdrawal": outcome.entry,
            "created": outcome.created,
        }
        return Response(WithdrawResponseSerializer(answer).data)
