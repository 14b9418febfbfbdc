"""Read access to studies with their games and scenarios (CRUD arrives with sessions)."""

from __future__ import annotations

from django.db.models import Count, QuerySet
from rest_framework import viewsets

from qoelab.studies.models import Study
from qoelab.studies.serializers import StudyDetailSerializer, StudySummarySerializer


class StudyViewSet(viewsets.ReadOnlyModelViewSet[Study]):
    """Studies; the detail view nests games and scenarios (ordered by position)."""

    def get_queryset(self) -> QuerySet[Study]:
        if self.action == "list":
            return Study.objects.annotate(
                game_count=Count("games", distinct=True),
                scenario_count=Count("scenarios", distinct=True),
            ).order_by("id")
        return Study.objects.prefetch_related("games", "scenarios")

    def get_serializer_class(self) -> type[StudySummarySerializer | StudyDetailSerializer]:
        return StudySummarySerializer if self.action == "list" else StudyDetailSerializer
