"""The participant's poll, ``GET /api/v1/participant/sessions/<id>/``, on a short path.

Every participant screen polls its session about once a second (issue 16, goal 3: 50
screens, ≥ 500 polls/s on two cores). Through the full stack a poll cost ~6–8 ms of CPU for
one indexed query: ten middlewares, URL resolution, DRF's request wrapping, content
negotiation, authentication and permission classes, and above all the ORM compiling the
four-table ``select_related`` query anew on every request (~half of the time).

Two parts:

* :func:`load_by_token` — the same query as the view's token check
  (``participant_queryset().filter(token=…)``), compiled by Django once per thread and
  database; each call executes it and builds the same model instances (session with its
  study, game and participant cached) with Django's own converters and ``from_db``. On
  PostgreSQL the statement is prepared once per connection (:mod:`qoelab.runs.prepared`):
  planning the four-table join was most of the database's work per poll.
* :class:`ParticipantPollMiddleware` — placed after the middlewares that add headers to
  every response (security headers, request id, ``SecurityMiddleware``), it answers a
  *successful* poll itself and hands everything else to the full stack unchanged: any
  other method or path, a query string (``?format=``), an ``Accept`` that DRF could
  answer with another renderer, a missing or unknown token, a token of another session,
  a host name Django would refuse, and any request that fails on the short path (the
  database unavailable, an agent failure in a due step). Those requests reach the DRF
  view, which gives the same 401/403/404/406/503 JSON answers as before. The poll itself
  (due step, ETag, 304 or the view) is :func:`poll`, shared with the DRF view, and the
  headers the skipped layers would add are added here (DRF: ``Vary: Accept``,
  ``Allow``; ``XFrameOptionsMiddleware``; ``CommonMiddleware``'s ``Content-Length``).
  ``runs/tests/test_participant_poll.py`` compares both paths header by header and byte
  by byte.

No session, CSRF or user lookup is involved: the participant authenticates with the
token header only (``ParticipantTokenAuthentication``), and no throttle applies to the
view.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.db import connections, router
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from qoelab.core.api import ID_PATTERN
from qoelab.runs import services
from qoelab.runs.models import Session
from qoelab.runs.participant_etag import matches, participant_etag
from qoelab.runs.prepared import prepared_cursor
from qoelab.runs.serializers import ParticipantViewSerializer

logger = logging.getLogger(__name__)

TOKEN_HEADER = "X-Participant-Token"
POLL_PATH = re.compile(rf"/api/v1/participant/sessions/({ID_PATTERN})/")
#: ``Accept`` values for which DRF's negotiation picks the JSON renderer with the plain
#: ``application/json`` media type (no ``indent`` parameter); anything else goes to DRF.
JSON_ACCEPTS = frozenset({"", "*/*", "application/json", "application/*"})
#: The methods DRF lists for the detail route (``retrieve`` only; HEAD and OPTIONS added).
ALLOW = "GET, HEAD, OPTIONS"


def participant_queryset() -> QuerySet[Session]:
    """What the participant's screen reads: the session with its study, game and participant
    (the questionnaire's missing facts) in one query."""
    return Session.objects.select_related("study", "game", "participant")


@dataclass(frozen=True)
class PollAnswer:
    session: Session
    status: int  # 200 or 304
    headers: dict[str, str]
    data: dict[str, Any] | None  # the view for a 200


def poll(session: Session, if_none_match: str | None) -> PollAnswer:
    """Take a step that time has made due (locked, re-checked: ``services.tick``), then
    answer with the ETag of the view (``participant_etag``): 304 without a body when
    ``If-None-Match`` names it, else the view. ``session`` comes with its study, game and
    participant (:func:`participant_queryset`)."""
    now = timezone.now()
    if services.tick_due(session, now):
        # The scenario's end, the most frequent due step, as one guarded UPDATE; any other
        # step (or a row changed meanwhile) under the row lock.
        ended = services.end_play_unlocked(session, now)
        if ended is None:
            ended = _after_tick(session, services.tick(session.pk))
        session = ended
        now = timezone.now()
    etag = participant_etag(session, now)
    headers = {
        "ETag": etag,
        # The browser keeps the body but asks every time (the state changes any second);
        # the body belongs to the token, never to a shared cache.
        "Cache-Control": "private, no-cache",
        "Vary": TOKEN_HEADER,
    }
    if matches(if_none_match, etag):
        return PollAnswer(session, 304, headers, None)
    return PollAnswer(session, 200, headers, dict(ParticipantViewSerializer(session).data))


def _after_tick(before: Session, ticked: Session) -> Session:
    """The row as the tick left it (read under its lock with the study and station, and
    saved), with the game and participant read with ``before``: a tick changes neither,
    so they are not read again (a due step costs one query less)."""
    ticked.game = before.game
    ticked.participant = before.participant
    return ticked


class _CompiledQuery:
    """``participant_queryset()`` filtered by token, compiled once for one database: its
    SQL, the converters of its columns and, per model, the slice of the row it fills."""

    def __init__(self, alias: str) -> None:
        queryset = participant_queryset().filter(token="").order_by()[:1]
        compiler = queryset.query.get_compiler(using=alias)
        self.sql, params = compiler.as_sql()
        assert list(params) == [""], params  # the token is the only parameter
        self.alias = alias
        self.compiler = compiler
        self.converters = compiler.get_converters([column for column, _, _ in compiler.select])
        self.root = self._populator(compiler.klass_info)

    def _populator(self, info: dict[str, Any]) -> tuple[Any, ...]:
        model = info["model"]
        indexes = list(info["select_fields"])
        names = [self.compiler.select[i][0].target.attname for i in indexes]
        # from_db takes the values in the order of the model's concrete fields.
        assert names == [f.attname for f in model._meta.concrete_fields], (model, names)
        related = tuple(
            (self._populator(sub), sub["local_setter"], sub["remote_setter"])
            for sub in info.get("related_klass_infos", [])
        )
        return model, indexes[0], indexes[-1] + 1, names, related

    def _build(self, populator: tuple[Any, ...], row: list[Any]) -> Any:
        model, start, end, names, related = populator
        values = row[start:end]
        if values[0] is None:  # a LEFT JOIN that found nothing (never for these relations)
            return None
        instance = model.from_db(self.alias, names, values)
        for sub, local_setter, remote_setter in related:
            child = self._build(sub, row)
            local_setter(instance, child)
            if child is not None:
                remote_setter(child, instance)
        return instance

    def fetch(self, token: str) -> Session | None:
        with prepared_cursor(connections[self.alias]) as cursor:
            cursor.execute(self.sql, [token])
            row = cursor.fetchone()
        if row is None:
            return None
        (converted,) = self.compiler.apply_converters([row], self.converters)
        session: Session = self._build(self.root, converted)
        return session


#: Per thread, like Django's connections: the compiler and its converters belong to the
#: connection object of the thread that compiled them.
_compiled = threading.local()


def load_by_token(token: str) -> Session | None:
    """The session of ``token`` with its study, game and participant (one query), or None:
    what ``participant_queryset().filter(token=token).first()`` returns."""
    alias = router.db_for_read(Session)
    connection = connections[alias]
    queries: dict[str, _CompiledQuery] = _compiled.__dict__.setdefault("queries", {})
    query = queries.get(alias)
    if query is None or query.compiler.connection is not connection:
        query = queries[alias] = _CompiledQuery(alias)
    return query.fetch(token)


def _answers_json(accept: str) -> bool:
    return all(part.strip() in JSON_ACCEPTS for part in accept.split(","))


def _poll_response(request: HttpRequest, session_id: str) -> HttpResponseBase | None:
    meta = request.META
    token = meta.get("HTTP_X_PARTICIPANT_TOKEN")
    if not token or meta.get("QUERY_STRING") or not _answers_json(meta.get("HTTP_ACCEPT", "")):
        return None
    if settings.DISALLOWED_USER_AGENTS:
        return None  # CommonMiddleware's check: leave such a deployment to the full stack
    try:
        request.get_host()  # CommonMiddleware's ALLOWED_HOSTS check (400 on the full path)
    except DisallowedHost:
        return None
    session = load_by_token(token)
    if session is None or str(session.pk) != session_id:
        return None  # 401 / 403 from DRF, with its JSON error body
    answer = poll(session, meta.get("HTTP_IF_NONE_MATCH"))
    if answer.data is None:
        response = HttpResponse(status=answer.status)
        del response["Content-Type"]  # DRF drops it for an empty body
    else:
        body = JSONRenderer().render(answer.data, "application/json")
        response = HttpResponse(body, status=answer.status, content_type="application/json")
    for name, value in answer.headers.items():
        response[name] = value
    # What the layers this path skips would add: DRF (two renderers → Vary: Accept; the
    # route's methods), XFrameOptionsMiddleware and CommonMiddleware.
    response["Vary"] = f"{answer.headers['Vary']}, Accept"
    response["Allow"] = ALLOW
    response["X-Frame-Options"] = getattr(settings, "X_FRAME_OPTIONS", "DENY").upper()
    response["Content-Length"] = str(len(response.content))
    return response


class ParticipantPollMiddleware:
    """Answers a participant's successful poll without the rest of the stack (module
    docstring); every other request passes through untouched."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if request.method == "GET":
            match = POLL_PATH.fullmatch(request.path_info)
            if match is not None:
                try:
                    response = _poll_response(request, match.group(1))
                except Exception as exc:  # any failure: the full stack answers it
                    # The database unavailable (503 JSON, logged with the request id), an
                    # agent failure during a due step, …: the DRF view meets the same
                    # failure again and answers and logs it as it always has. Nothing is
                    # left half done here: a step is its own transaction, re-checked under
                    # the lock, so running it again is safe.
                    logger.info("participant poll short path failed: %r", exc)
                    response = None
                if response is not None:
                    return response
        return self.get_response(request)
