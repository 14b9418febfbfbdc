"""Sessions: the researcher's endpoints and the participant's token endpoints.

Views are thin: they parse input, check access and call :mod:`qoelab.runs.services`,
which owns every transition. A :class:`services.SessionError` becomes a 400 (bad input)
or 409 (not possible in the session's state) with ``{"detail": message, "field": …}`` in
the project's exception handler (:func:`qoelab.core.api.exception_handler`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import Prefetch, QuerySet, prefetch_related_objects
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, status, viewsets
from rest_framework.authentication import BaseAuthentication
from rest_framework.decorators import action
from rest_framework.exceptions import AuthenticationFailed, NotFound, PermissionDenied
from rest_framework.generics import get_object_or_404
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response

from qoelab.core.api import filter_by_id
from qoelab.core.errors import Conflict
from qoelab.ratings.models import Rating
from qoelab.runs import services
from qoelab.runs.models import Session
from qoelab.runs.participant_poll import TOKEN_HEADER, load_by_token, participant_queryset, poll
from qoelab.runs.serializers import (
    ParticipantViewSerializer,
    PostQuestionsSerializer,
    QuestionnaireSerializer,
    RateResponseSerializer,
    RateSerializer,
    ReasonSerializer,
    ResearcherRateSerializer,
    SessionCreateSerializer,
    SessionSerializer,
)
from qoelab.runs.state_machine import State
from qoelab.stations.access import may_use
from qoelab.studies.access import IsResearcher, accessible_studies

ERROR = OpenApiResponse(description='{"detail": message, "field": name or null}')
SESSION_ACTION_RESPONSES = {200: SessionSerializer, 400: ERROR, 409: ERROR}
#: Any participant endpoint after the token expired (``participant_poll.TokenExpired``).
EXPIRED = OpenApiResponse(description='{"code": "token_expired", "detail": message}')
PARTICIPANT_ERRORS = {400: ERROR, 409: ERROR, 410: EXPIRED}


def _validated(serializer_class: type[Any], request: Request) -> dict[str, Any]:
    """The request body checked by ``serializer_class`` (a 400 with its errors otherwise)."""
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _session_queryset() -> QuerySet[Session]:
    return Session.objects.select_related("study", "participant", "game", "station")


#: A session's ratings with their scenarios in one query (the console shows their codes).
RATINGS_WITH_SCENARIOS = Prefetch("ratings", queryset=Rating.objects.select_related("scenario"))


@extend_schema_view(
    list=extend_schema(
        parameters=[
            OpenApiParameter("study", OpenApiTypes.INT),
            OpenApiParameter("state", OpenApiTypes.STR, enum=State.values),
        ]
    )
)
class SessionViewSet(
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet[Session],
):
    """Sessions of the caller's studies. Reading a session also advances its timers and
    renews the agent's lease (throttled): the researcher's console polls it."""

    serializer_class = SessionSerializer
    permission_classes = [IsResearcher]

    def get_queryset(self) -> QuerySet[Session]:
        sessions = _session_queryset().filter(study__in=accessible_studies(self.request.user))
        params = self.request.query_params
        sessions = filter_by_id(sessions, "study_id", params.get("study"))
        if (state := params.get("state")) is not None:
            sessions = sessions.filter(state=state)
        return sessions.prefetch_related(RATINGS_WITH_SCENARIOS, "answers").order_by("id")

    def _fresh(self, session_id: int) -> Response:
        session = self.get_queryset().get(pk=session_id)
        return Response(SessionSerializer(session).data)

    @extend_schema(
        request=SessionCreateSerializer,
        responses={201: SessionSerializer, 400: ERROR, 403: ERROR, 409: ERROR},
    )
    def create(self, request: Request) -> Response:
        """Create a session; its scenario order (and the seed) is fixed now."""
        serializer = SessionCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        participant = data["participant"]
        study = participant.study
        if not accessible_studies(request.user).filter(pk=study.pk).exists():
            raise PermissionDenied("Only the study's owner or members may create sessions.")
        station = data.get("station")
        if station is not None and not may_use(request.user, station):
            raise PermissionDenied(
                f"station {station.pk} belongs to another researcher and is not shared: "
                "sessions cannot run on it"
            )
        session = services.create_session(
            study=study,
            participant=participant,
            game=data["game"],
            station=station,
            created_by=request.user,
            seed=data.get("seed"),
        )
        return Response(
            SessionSerializer(self.get_queryset().get(pk=session.pk)).data,
            status=status.HTTP_201_CREATED,
        )

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # The row without its ratings first: only when a step is due (services.tick_due)
        # is the row locked and read again; the ratings and answers are read once, at the end.
        # The console polls this every second.
        sessions = _session_queryset().filter(study__in=accessible_studies(request.user))
        session = self.get_object_from(sessions)
        if services.tick_due(session, timezone.now()):
            services.tick(session.pk)
            session = sessions.get(pk=session.pk)
        prefetch_related_objects([session], RATINGS_WITH_SCENARIOS, "answers")
        return Response(SessionSerializer(session).data)

    def get_object_from(self, sessions: QuerySet[Session]) -> Session:
        """``get_object`` on ``sessions`` (404 outside them; object permissions checked)."""
        session: Session = get_object_or_404(sessions, pk=self.kwargs["pk"])
        self.check_object_permissions(self.request, session)
        return session

    def perform_destroy(self, instance: Session) -> None:
        if instance.state != State.CREATED:
            raise Conflict("only a session that has not started can be deleted (abort it)")
        instance.delete()

    def _act(self, call: Callable[[int], Any]) -> Response:
        session = self.get_object()
        call(session.pk)
        return self._fresh(session.pk)

    @extend_schema(request=None, responses=SESSION_ACTION_RESPONSES)
    @action(detail=True, methods=["post"])
    def start(self, request: Request, pk: str | None = None) -> Response:
        """created → questionnaire (the station must be free)."""
        return self._act(services.start)

    @extend_schema(request=None, responses=SESSION_ACTION_RESPONSES)
    @action(detail=True, methods=["post"])
    def advance(self, request: Request, pk: str | None = None) -> Response:
        """The next step where the researcher may take it: start, end free play (applies
        the first scenario), end the current scenario early (→ rating)."""
        return self._act(services.advance)

    @extend_schema(request=QuestionnaireSerializer, responses=SESSION_ACTION_RESPONSES)
    @action(detail=True, methods=["post"])
    def questionnaire(self, request: Request, pk: str | None = None) -> Response:
        """Enter the pre-play questionnaire (as the researcher conducting the poll)."""
        data = _validated(QuestionnaireSerializer, request)
        return self._act(lambda sid: services.submit_questionnaire(sid, data))

    @extend_schema(
        request=ResearcherRateSerializer,
        responses={
            200: RateResponseSerializer,
            201: RateResponseSerializer,
            400: ERROR,
            409: ERROR,
        },
    )
    @action(detail=True, methods=["post"])
    def rate(self, request: Request, pk: str | None = None) -> Response:
        """Record the current scenario's rating (idempotent by ``idempotency_key``)."""
        session = self.get_object()
        return _rate(request, session, ResearcherRateSerializer, source="researcher")

    @extend_schema(request=PostQuestionsSerializer, responses=SESSION_ACTION_RESPONSES)
    @action(detail=True, methods=["post"], url_path="post-questions")
    def post_questions(self, request: Request, pk: str | None = None) -> Response:
        """Answer the end-of-session questions → completed (the impairment is cleared)."""
        data = _validated(PostQuestionsSerializer, request)
        return self._act(lambda sid: services.submit_post_questions(sid, data))

    @extend_schema(request=ReasonSerializer, responses=SESSION_ACTION_RESPONSES)
    @action(detail=True, methods=["post"])
    def pause(self, request: Request, pk: str | None = None) -> Response:
        """Pause a running session (an interrupted scenario is replayed after resuming)."""
        data = _validated(ReasonSerializer, request)
        return self._act(lambda sid: services.pause(sid, data.get("reason", "")))

    @extend_schema(request=None, responses=SESSION_ACTION_RESPONSES)
    @action(detail=True, methods=["post"])
    def resume(self, request: Request, pk: str | None = None) -> Response:
        """Resume a paused session (re-applies the scenario when one was interrupted)."""
        return self._act(services.resume)

    @extend_schema(request=ReasonSerializer, responses=SESSION_ACTION_RESPONSES)
    @action(detail=True, methods=["post"])
    def abort(self, request: Request, pk: str | None = None) -> Response:
        """Abort the session; the impairment is cleared and the station freed."""
        data = _validated(ReasonSerializer, request)
        return self._act(lambda sid: services.abort(sid, data.get("reason", "")))


def _rate(request: Request, session: Session, serializer_class: type[Any], source: str) -> Response:
    """Rate for the researcher or the participant: 201 for a new rating, 200 for a repeat."""
    data = _validated(serializer_class, request)
    result = services.rate(
        session.pk,
        values=data.get("values"),
        score=data.get("score"),
        response_ms=data.get("response_ms"),
        idempotency_key=data["idempotency_key"],
        position=data["position"],
        scenario_id=data.get("scenario"),
        source=source,
    )
    answer: dict[str, Any]
    if source == "participant":
        # The participant's view reads the session with its study, game and participant
        # only (as the poll does), not the researcher's ratings and answers.
        view = fresh_participant_view(request)
        answer = {
            "created": result.created,
            "position": result.rating.order_index + 1,
            "values": result.rating.values,
            "session": ParticipantViewSerializer(view).data,
        }
    else:
        fresh = _session_queryset().prefetch_related("ratings", "answers").get(pk=session.pk)
        answer = RateResponseSerializer(
            {"rating": result.rating, "created": result.created, "session": fresh}
        ).data
    return Response(
        answer, status=status.HTTP_201_CREATED if result.created else status.HTTP_200_OK
    )


# --- the participant's screen (per-session token, no account) ---------------------------


def fresh_participant_view(request: Request) -> Session:
    """The participant's session read again after a step (with its study, game and
    participant), by the request's token: the poll's own query
    (``participant_poll.load_by_token``)."""
    token = request.auth  # ParticipantTokenAuthentication's credentials: the token
    assert isinstance(token, str)
    session = load_by_token(token)
    if session is None:  # deleted since the token was checked
        raise NotFound("the session no longer exists")
    return session


class ParticipantPrincipal:
    """The holder of one session's participant token (not a Django user), with the
    session's row as read when the token was checked (the poll answers from it)."""

    is_authenticated = True

    def __init__(self, session: Session) -> None:
        self.session = session
        self.session_id = session.pk


class ParticipantTokenAuthentication(BaseAuthentication):
    """``X-Participant-Token: <token>`` of a session (expired: 410, ``load_by_token``)."""

    def authenticate(self, request: Request) -> tuple[ParticipantPrincipal, str] | None:
        token = request.headers.get(TOKEN_HEADER)
        if not token:
            return None
        # The whole row, not just its id: the poll then needs no second query.
        session = load_by_token(token)
        if session is None:
            raise AuthenticationFailed("unknown participant token")
        return ParticipantPrincipal(session), token

    def authenticate_header(self, request: Request) -> str:
        return "Participant-Token"


class HoldsSessionToken(BasePermission):
    message = "This participant token belongs to another session."

    def has_permission(self, request: Request, view: Any) -> bool:
        principal = request.user
        if not isinstance(principal, ParticipantPrincipal):
            return False
        pk = view.kwargs.get("pk")
        return pk is not None and str(principal.session_id) == str(pk)


class ParticipantSessionViewSet(viewsets.GenericViewSet[Session]):
    """The participant's screen: poll ``GET`` for the state, post the participant's steps.

    Authenticate with ``X-Participant-Token``; a token opens its own session only (403
    for any other). Nothing here reveals the scenario's code or impairment.
    """

    authentication_classes = [ParticipantTokenAuthentication]
    permission_classes = [HoldsSessionToken]
    serializer_class = ParticipantViewSerializer

    def get_queryset(self) -> QuerySet[Session]:
        return participant_queryset()

    def get_object(self) -> Session:
        """The session of the token, as read when the token was checked in this request
        (``ParticipantTokenAuthentication``): ``HoldsSessionToken`` has already matched it
        to the URL's id, so reading it again by id (the generic ``get_object``) would cost
        a query and find the same row. The actions use its id only; each step locks and
        reads the row itself."""
        principal = self.request.user
        assert isinstance(principal, ParticipantPrincipal)  # HoldsSessionToken checked it
        return principal.session

    def _act(self, call: Callable[[int], Any]) -> Response:
        call(self.get_object().pk)
        return Response(ParticipantViewSerializer(fresh_participant_view(self.request)).data)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "If-None-Match",
                OpenApiTypes.STR,
                OpenApiParameter.HEADER,
                description="the ETag of the view the screen shows: 304 while it is current",
            )
        ],
        responses={
            200: ParticipantViewSerializer,
            304: OpenApiResponse(description="the view named by If-None-Match is current"),
            401: ERROR,
            403: ERROR,
            410: EXPIRED,
        },
    )
    def retrieve(self, request: Request, pk: str | None = None) -> Response:
        """The participant's screen state (also advances timers and renews the lease).

        The answer carries an ``ETag``; a poll whose ``If-None-Match`` names the current one
        gets 304 without a body. A poll with nothing due is one query (the token's row).
        """
        principal = request.user
        assert isinstance(principal, ParticipantPrincipal)  # HoldsSessionToken checked the pk
        answer = poll(principal.session, request.headers.get("If-None-Match"))
        return Response(answer.data, status=answer.status, headers=answer.headers)

    @extend_schema(
        request=QuestionnaireSerializer,
        responses={200: ParticipantViewSerializer, **PARTICIPANT_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def questionnaire(self, request: Request, pk: str | None = None) -> Response:
        data = _validated(QuestionnaireSerializer, request)
        return self._act(lambda sid: services.submit_questionnaire(sid, data))

    @extend_schema(
        request=None,
        responses={200: ParticipantViewSerializer, 409: ERROR, 410: EXPIRED},
    )
    @action(detail=True, methods=["post"], url_path="finish-free-play")
    def finish_free_play(self, request: Request, pk: str | None = None) -> Response:
        """After the free-play time: start the first scenario."""
        return self._act(lambda sid: services.finish_free_play(sid, researcher=False))

    @extend_schema(
        request=RateSerializer,
        responses={200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT, **PARTICIPANT_ERRORS},
    )
    @action(detail=True, methods=["post"])
    def rate(self, request: Request, pk: str | None = None) -> Response:
        """Rate the round just played (idempotent by ``idempotency_key``)."""
        return _rate(request, self.get_object(), RateSerializer, source="participant")

    @extend_schema(
        request=PostQuestionsSerializer,
        responses={200: ParticipantViewSerializer, **PARTICIPANT_ERRORS},
    )
    @action(detail=True, methods=["post"], url_path="post-questions")
    def post_questions(self, request: Request, pk: str | None = None) -> Response:
        data = _validated(PostQuestionsSerializer, request)
        return self._act(lambda sid: services.submit_post_questions(sid, data))
