"""Participants of a study (pseudonymous): researcher-only, per-study access."""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets
from rest_framework.exceptions import PermissionDenied

from qoelab.core.api import filter_by_id
from qoelab.core.errors import Conflict
from qoelab.participants.models import Participant
from qoelab.participants.serializers import ParticipantSerializer
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
        extra = {"consent_at": timezone.now()} if consent and instance.consent_at is None else {}
        with transaction.atomic():
            serializer.save(**extra)
            # Code, age and skill are columns of the analysed table.
            bump_data_version(instance.study_id)

    def perform_destroy(self, instance: Participant) -> None:
        if instance.sessions.exists():
            raise Conflict(f"participant {instance.code!r} has sessions and cannot be deleted")
        instance.delete()
