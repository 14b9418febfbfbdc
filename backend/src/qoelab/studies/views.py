"""Studies, games and scenarios: public design reads, owner-only writes."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, status, viewsets
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response

from qoelab.core.api import filter_by_id
from qoelab.core.errors import Conflict
from qoelab.studies.access import StudyDesignPermission, accessible_studies
from qoelab.studies.models import Game, Scenario, Study
from qoelab.studies.serializers import (
    GameWriteSerializer,
    ScenarioWriteSerializer,
    StudyDetailSerializer,
    StudySummarySerializer,
    flatten_directions,
)
from qoelab.studies.study_document import game_has_sessions
from qoelab.studies.versioning import (
    create_scenario,
    retire_scenario,
    study_is_locked,
    update_scenario,
)

CURRENT_SCENARIOS = Prefetch(
    "scenarios",
    queryset=Scenario.objects.filter(retired_in_version__isnull=True),
    to_attr="prefetched_current_scenarios",
)

study_filter = OpenApiParameter("study", OpenApiTypes.INT, description="only this study's")


class StudyViewSet(viewsets.ModelViewSet[Study]):
    """Studies; the detail view nests games and current scenarios (ordered by position).

    Reading is public; creating makes the caller the owner; changing or deleting needs
    the owner (or a member). A study with sessions cannot be deleted.
    """

    permission_classes = [StudyDesignPermission]

    def get_queryset(self) -> QuerySet[Study]:
        if self.action == "list":
            return Study.objects.annotate(
                game_count=Count("games", distinct=True),
                scenario_count=Count(
                    "scenarios",
                    filter=Q(scenarios__retired_in_version__isnull=True),
                    distinct=True,
                ),
            ).order_by("id")
        return Study.objects.select_related("owner").prefetch_related("games", CURRENT_SCENARIOS)

    def get_serializer_class(self) -> type[StudySummarySerializer | StudyDetailSerializer]:
        return StudySummarySerializer if self.action == "list" else StudyDetailSerializer

    def perform_create(self, serializer: serializers.BaseSerializer[Study]) -> None:
        serializer.save(owner=self.request.user)

    def perform_destroy(self, instance: Study) -> None:
        if study_is_locked(instance):
            raise Conflict("the study has sessions (and maybe ratings); it cannot be deleted")
        instance.delete()


def check_study_access(request: Request, study: Study) -> None:
    """Writes to a study's games and scenarios need access to the study."""
    if not accessible_studies(request.user).filter(pk=study.pk).exists():
        raise PermissionDenied("Only the study's owner or members may change it.")


@extend_schema_view(list=extend_schema(parameters=[study_filter]))
class GameViewSet(viewsets.ModelViewSet[Game]):
    """Games of studies. A game that has sessions cannot be changed or deleted."""

    serializer_class = GameWriteSerializer
    permission_classes = [StudyDesignPermission]

    def get_queryset(self) -> QuerySet[Game]:
        games = Game.objects.select_related("study").order_by("id")
        return filter_by_id(games, "study_id", self.request.query_params.get("study"))

    def perform_create(self, serializer: serializers.BaseSerializer[Game]) -> None:
        check_study_access(self.request, serializer.validated_data["study"])
        serializer.save()

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        game = self.get_object()
        if game_has_sessions(game):
            raise Conflict(
                f"game {game.name!r} has sessions; changing it would relabel their ratings "
                "(add a new game instead)"
            )
        return super().update(request, *args, **kwargs)

    def perform_destroy(self, instance: Game) -> None:
        if game_has_sessions(instance):
            raise Conflict(f"game {instance.name!r} has sessions and cannot be deleted")
        instance.delete()


@extend_schema_view(
    list=extend_schema(
        parameters=[
            study_filter,
            OpenApiParameter(
                "include_retired", OpenApiTypes.BOOL, description="also rows of old versions"
            ),
        ]
    )
)
class ScenarioViewSet(viewsets.ModelViewSet[Scenario]):
    """Scenarios. Once a study has sessions, a change retires the old row and creates a
    new one (the study's version goes up); the response then carries the new row's id."""

    serializer_class = ScenarioWriteSerializer
    permission_classes = [StudyDesignPermission]

    def get_queryset(self) -> QuerySet[Scenario]:
        scenarios = Scenario.objects.select_related("study").order_by("study", "position", "id")
        if self.action == "list" and self.request.query_params.get("include_retired") not in {
            "1",
            "true",
        }:
            scenarios = scenarios.filter(retired_in_version__isnull=True)
        return filter_by_id(scenarios, "study_id", self.request.query_params.get("study"))

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        study = data.pop("study")
        check_study_access(self.request, study)
        scenario = create_scenario(study, _model_values(data))
        return Response(self.get_serializer(scenario).data, status=status.HTTP_201_CREATED)

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        scenario = self.get_object()
        serializer = self.get_serializer(
            scenario, data=request.data, partial=kwargs.get("partial", False)
        )
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        data.pop("study", None)
        result = update_scenario(scenario, _model_values(data, base=scenario))
        return Response(self.get_serializer(result).data)

    def perform_destroy(self, instance: Scenario) -> None:
        """Retire the scenario row (kept for the ratings given to it), never delete it."""
        if instance.retired_in_version is not None:
            raise Conflict("this scenario row is already retired")
        if instance.is_baseline:
            raise Conflict("the baseline cannot be removed (make another scenario the baseline)")
        retire_scenario(instance)


def _model_values(data: dict[str, Any], base: Scenario | None = None) -> dict[str, Any]:
    """Validated API data → model fields (partial directions merge with ``base``)."""
    for direction, prefix in (("upstream", "us"), ("downstream", "ds")):
        if direction in data and base is not None:
            data[direction] = {**base.direction(prefix), **data[direction]}
    return flatten_directions(data)
