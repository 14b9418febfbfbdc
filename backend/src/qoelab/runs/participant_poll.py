"""The participant's poll, ``GET /api/v1/participant/sessions/<id>/``: what it reads and
what it answers, shared by the token check and the DRF view (``runs/views.py``).

Every participant screen polls its session once a second. A poll with nothing due is one
indexed query (:func:`load_by_token`, the session with its study, game and participant),
and an unchanged view is a 304 without a body (the ETag of :mod:`participant_etag`).

A token opens its session until ``QOELAB_PARTICIPANT_TOKEN_DAYS`` (default 7) after the
session ended (:meth:`Session.token_expires_at`); then every participant endpoint answers
410 ``{"code": "token_expired", "detail": …}`` (:func:`refuse_expired`), so that an old
link read later (a shared screen, a browser history) no longer shows the study.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.utils import timezone

from qoelab.core.errors import ServiceError
from qoelab.runs import services
from qoelab.runs.models import Session
from qoelab.runs.participant_etag import matches, participant_etag
from qoelab.runs.serializers import ParticipantViewSerializer

TOKEN_HEADER = "X-Participant-Token"


def participant_queryset() -> QuerySet[Session]:
    """What the participant's screen reads: the session with its study, game and participant
    (the questionnaire's missing facts) in one query."""
    return Session.objects.select_related("study", "game", "participant")


def load_by_token(token: str) -> Session | None:
    """The session of ``token`` with its study, game and participant (one query), or None
    for an unknown token; :class:`TokenExpired` (410) when the token has expired, so that
    no participant endpoint answers with an expired token's session."""
    session = participant_queryset().filter(token=token).first()
    if session is not None:
        refuse_expired(session)
    return session


class TokenExpired(ServiceError):
    """The token's session ended more than ``QOELAB_PARTICIPANT_TOKEN_DAYS`` ago (410 Gone:
    the link existed and will not work again)."""

    status = 410

    def body(self) -> dict[str, Any]:
        return {"code": "token_expired", "detail": str(self)}


def refuse_expired(session: Session, now: datetime | None = None) -> None:
    """Raise :class:`TokenExpired` when ``session``'s participant token has expired."""
    if session.token_expired(now or timezone.now()):
        days = settings.QOELAB_PARTICIPANT_TOKEN_DAYS
        raise TokenExpired(
            f"this session link has expired: its session ended more than {days} "
            f"day{'s' if days != 1 else ''} ago (QOELAB_PARTICIPANT_TOKEN_DAYS); "
            "ask the researcher if you need a new one"
        )


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
