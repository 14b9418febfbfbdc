"""The HTTP validator (ETag) of the participant's screen, computed without serialising it.

The participant's screen polls ``GET /api/v1/participant/sessions/<id>/`` about once a
second. Its answer is a function of: the session's state, revision (bumped by every change a
screen should show, :func:`runs.services.transitions.save_revision`) and slot; the study's
texts, questions and rating items (``Study.updated_at``/``version`` change with every
edit); the game; in the questionnaire, the participant facts still missing; and in a timed
step (free play, playing) the time left. The validator hashes exactly these, so an
``If-None-Match`` that matches means the body would be the same (RFC 9110 §8.8.3, §13.1.2),
and the view answers 304 without building it.

The time left enters in whole seconds: the screen counts down from ``seconds_remaining``
from the moment it receives an answer (and a browser hands a 304's cached body to the page
as if it were new), so a cached body may be at most one second old in a timed step.
"""

from __future__ import annotations

import hashlib
import math
from datetime import datetime

from qoelab.runs import services
from qoelab.runs.models import Session
from qoelab.runs.state_machine import State


def participant_etag(session: Session, now: datetime) -> str:
    """A strong ETag (quoted) for the participant's view of ``session`` at ``now``.

    Needs ``session.study`` (and in the questionnaire ``session.participant``) loaded;
    makes no query when they were fetched with the session (select_related).
    """
    remaining = services.seconds_remaining(session, now)
    study = session.study
    parts: list[object] = [
        session.pk,
        session.revision,
        session.state,
        session.current_index,
        study.pk,
        study.version,
        study.updated_at.isoformat(),
        session.game_id,
        None if remaining is None else math.floor(remaining),
    ]
    if session.state == State.QUESTIONNAIRE:
        parts.append(sorted(services.pre_play_requirements(session).items()))
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=12).hexdigest()
    return f'"p{digest}"'


def matches(if_none_match: str | None, etag: str) -> bool:
    """Does an ``If-None-Match`` header name ``etag``? Weak comparison, as RFC 9110
    §13.1.2 asks for If-None-Match (a ``W/`` prefix is ignored); ``*`` matches any."""
    if not if_none_match:
        return False
    tags = [tag.strip() for tag in if_none_match.split(",")]
    return "*" in tags or any(tag.removeprefix("W/") == etag for tag in tags)
