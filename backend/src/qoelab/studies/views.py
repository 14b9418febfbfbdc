"""Studies, games and scenarios: public design reads, owner-only writes."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from netem_profile import DIRECTION_LABELS, catalog
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from qoelab.core.api import filter_by_id
from qoelab.core.errors import BadRequest, Conflict
from qoelab.studies.access import StudyDesignPermission, accessible_studies
from qoelab.studies.analysis_only import check_design_change, check_settings_change
from qoelab.studies.cloning import clone_study
from qoelab.studies.design_generator import (
    DesignError,
    DesignFactor,
    generate_design,
    session_minutes,
)
from qoelab.studies.design_serializers import (
    DesignResultSerializer,
    DesignSerializer,
    FactorsSerializer,
    StudyCloneSerializer,
)
from qoelab.studies.models import Game, Scenario, Study
from qoelab.studies.rating_item_fields import RatingPresetsSerializer
from qoelab.studies.rating_items import presets
from qoelab.studies.serializers import (
    GameWriteSerializer,
    ScenarioWriteSerializer,
    StudyDetailSerializer,
    StudySummarySerializer,
    flatten_directions,
)
from qoelab.studies.study_document import (
    StudyDocumentError,
    game_has_sessions,
    load_study_document,
)
from qoelab.studies.versioning import (
    create_scenario,
    max_scenarios,
    replace_scenarios,
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

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # A settings change of an analysis-only study is refused before validation (409: its
        # design is the data's, studies.analysis_only); no docstring: the API's description
        # of PUT and PATCH stays the class's.
        study = self.get_object()
        fields = StudyDetailSerializer().fields
        check_settings_change(
            study, request.data, lambda name: fields[name].to_representation(getattr(study, name))
        )
        return super().update(request, *args, **kwargs)

    def perform_destroy(self, instance: Study) -> None:
        if study_is_locked(instance):
            raise Conflict("the study has sessions (and maybe ratings); it cannot be deleted")
        instance.delete()

    def _detail(self, study: Study, status_code: int = status.HTTP_200_OK) -> Response:
        fresh = self.get_queryset().get(pk=study.pk)
        return Response(StudyDetailSerializer(fresh).data, status=status_code)

    @extend_schema(
        request=DesignSerializer,
        responses={
            200: DesignResultSerializer,
            400: OpenApiResponse(description='{"detail": "…"} or field errors'),
        },
    )
    @action(detail=True, methods=["post"])
    def design(self, request: Request, pk: str | None = None) -> Response:
        """Generate scenarios from factors and levels (grid or one factor at a time).

        ``dry_run`` previews (count, session length, scenarios); otherwise the scenarios
        replace the study's, with the versioning rules of scenario edits (a study with
        sessions retires its old rows and gets a new version).
        """
        study = self.get_object()
        request_data = DesignSerializer(data=request.data)
        request_data.is_valid(raise_exception=True)
        data = request_data.validated_data
        factors = [
            DesignFactor(f["key"], f["direction"], tuple(f["levels"])) for f in data["factors"]
        ]
        try:
            scenarios = generate_design(
                data["kind"], factors, data.get("base"), max_scenarios=max_scenarios()
            )
        except DesignError as exc:
            raise BadRequest(str(exc)) from None
        if not data["dry_run"]:
            replace_scenarios(
                study,
                [
                    {
                        "code": s.code,
                        **flatten_directions(
                            {
                                "label": s.label,
                                "is_baseline": s.is_baseline,
                                "upstream": s.upstream,
                                "downstream": s.downstream,
                            }
                        ),
                    }
                    for s in scenarios
                ],
            )
        minutes = session_minutes(
            len(scenarios),
            seconds_per_scenario=study.seconds_per_scenario,
            free_play_minutes=study.free_play_minutes,
            retest_round=study.retest_round,
        )
        return Response(
            {
                "count": len(scenarios),
                "session_minutes": minutes,
                "scenarios": [s.to_dict() for s in scenarios],
            }
        )

    @extend_schema(request=StudyCloneSerializer, responses={201: StudyDetailSerializer})
    @action(detail=True, methods=["post"])
    def clone(self, request: Request, pk: str | None = None) -> Response:
        """A new study (owned by the caller) with this study's games, current scenarios,
        questionnaire and settings; no sessions, participants or members. A study's design
        is public, so any researcher may clone any study."""
        source = get_object_or_404(Study, pk=pk)
        body = StudyCloneSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        study = clone_study(
            source,
            slug=body.validated_data["slug"],
            title=body.validated_data["title"],
            owner=request.user,
        )
        return self._detail(study, status.HTTP_201_CREATED)

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses={
            201: StudyDetailSerializer,
            400: OpenApiResponse(description='{"detail": "where: why; …"}'),
        },
    )
    @action(detail=False, methods=["post"], url_path="import-design")
    def import_design(self, request: Request) -> Response:
        """Create a study (owned by the caller) from a ``qoelab.study/v1`` document; its
        slug must be new (an import never changes an existing study)."""
        try:
            result = load_study_document(request.data, owner=request.user, create_only=True)
        except StudyDocumentError as exc:
            raise BadRequest(str(exc)) from None
        return self._detail(result.study, status.HTTP_201_CREATED)


class FactorsView(APIView):
    """The impairment factors a study can vary (public, like a study's design)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: FactorsSerializer})
    def get(self, request: Request) -> Response:
        """The factor registry with limits, units and tidy CSV columns, the direction
        names, and the most scenarios a study may have."""
        return Response(
            {
                "factors": catalog(),
                "directions": {name: DIRECTION_LABELS[name] for name in ("downstream", "upstream")},
                "max_scenarios": max_scenarios(),
            }
        )


class RatingPresetsView(APIView):
    """The study editor's rating item presets and default scales (public)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: RatingPresetsSerializer})
    def get(self, request: Request) -> Response:
        """``acr5``: the default single overall item; ``gaming``: the ITU-T P.809 gaming
        preset (GAMING_PRESET); ``scales``: each scale kind's default scale."""
        return Response(presets())


def check_study_access(request: Request, study: Study, what: str) -> None:
    """Adding to a study's games and scenarios (``what``) needs access to the study, and a
    study whose design is not the data's (:mod:`qoelab.studies.analysis_only`)."""
    if not accessible_studies(request.user).filter(pk=study.pk).exists():
        raise PermissionDenied("Only the study's owner or members may change it.")
    check_design_change(study, what)


@extend_schema_view(list=extend_schema(parameters=[study_filter]))
class GameViewSet(viewsets.ModelViewSet[Game]):
    """Games of studies. A game that has sessions cannot be changed or deleted."""

    serializer_class = GameWriteSerializer
    permission_classes = [StudyDesignPermission]

    def get_queryset(self) -> QuerySet[Game]:
        games = Game.objects.select_related("study").order_by("id")
        return filter_by_id(games, "study_id", self.request.query_params.get("study"))

    def perform_create(self, serializer: serializers.BaseSerializer[Game]) -> None:
        check_study_access(self.request, serializer.validated_data["study"], "its games")
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
        check_study_access(self.request, study, "its scenarios")
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
    """Validated API data → model fields (the serializer merged partial directions)."""
    return flatten_directions(data)
