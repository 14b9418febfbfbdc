"""Withdrawing a participant (issue 35, item 4): erase their data or exclude and keep it.

* ``erase`` deletes the participant's sessions with their ratings and questionnaire answers
  and clears the participant's facts (age, skill, genre preferences, consent time). The
  participant row stays as a *tombstone* holding only its pseudonym: the audit entry then
  names a row that exists, the pseudonym is never given to a new participant (``next_code``
  counts it), and no session can be started for it again.
* ``exclude`` keeps everything and flags the participant; analysis and exports read only
  participants who take part (:data:`TAKING_PART`).

One transaction per withdrawal, under the participant's row lock; a running session is
refused (stop it first). Idempotent: withdrawing again in the same mode answers the first
withdrawal's audit entry and writes nothing; erasing an excluded participant is allowed (a
second entry), excluding an erased one is a conflict (nothing is left to keep).

The analysis cache's data version (:mod:`qoelab.studies.data_version`) is the study's counter
plus its sessions' counters; deleting sessions would lower that sum, so the study's counter
grows by the deleted sessions' counters plus one and the sum still only grows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import F, Sum
from django.utils import timezone

from qoelab.core.errors import Conflict
from qoelab.participants.models import Participant, Withdrawal, WithdrawalMode
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import Session
from qoelab.runs.state_machine import ACTIVE_STATES
from qoelab.studies.models import Study

#: The filter of participants whose data is analysed and exported (none withdrawn).
TAKING_PART: dict[str, Any] = {"withdrawal": ""}

MAX_REASON = 500


def taking_part(prefix: str) -> dict[str, Any]:
    """:data:`TAKING_PART` behind a relation, e.g. ``taking_part("session__participant__")``."""
    return {prefix + key: value for key, value in TAKING_PART.items()}


def may_withdraw(user: Any, study: Study) -> bool:
    """The study's owner (a superuser; staff for a study without owner) — not its members."""
    if user is None or not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    if study.owner_id is None:
        return bool(user.is_staff)
    return bool(study.owner_id == user.pk)


@dataclass(frozen=True)
class WithdrawalOutcome:
    """The participant as withdrawn and the audit entry; ``created`` False on a repeat."""

    participant: Participant
    entry: Withdrawal
    created: bool


def _erase(participant: Participant) -> dict[str, int]:
    """Delete the participant's sessions, ratings and answers; clear their facts.

    Returns the counts of deleted rows (the audit keeps these, never the rows).
    """
    sessions = Session.objects.filter(participant=participant)
    counts = {
        "sessions": sessions.count(),
        "ratings": Rating.objects.filter(session__participant=participant).count(),
        "answers": Answer.objects.filter(session__participant=participant).count(),
    }
    removed = sessions.aggregate(total=Sum("data_version"))["total"] or 0
    Rating.objects.filter(session__participant=participant).delete()
    Answer.objects.filter(session__participant=participant).delete()
    sessions.delete()
    Study.objects.filter(pk=participant.study_id).update(
        data_version=F("data_version") + removed + 1
    )
    participant.age = None
    participant.skill = ""
    participant.genre_preferences = {}
    participant.consent_at = None
    return counts


def withdraw(participant_id: int, *, mode: str, reason: str, user: Any) -> WithdrawalOutcome:
    """Withdraw the participant in ``mode`` (see the module docstring) and audit it."""
    if mode not in WithdrawalMode.values:
        raise ValueError(f"unknown withdrawal mode {mode!r}")
    with transaction.atomic():
        participant = Participant.objects.select_for_update().get(pk=participant_id)
        if participant.withdrawal == mode:
            entry = participant.withdrawals.filter(mode=mode).order_by("id").first()
            if entry is not None:
                return WithdrawalOutcome(participant, entry, created=False)
        if participant.withdrawal == WithdrawalMode.ERASE:
            raise Conflict(
                f"participant {participant.code!r} was erased: there is no data left to keep"
            )
        running = (
            Session.objects.filter(participant=participant, state__in=sorted(ACTIVE_STATES))
            .values_list("pk", flat=True)
            .first()
        )
        if running is not None:
            raise Conflict(
                f"participant {participant.code!r} is in session {running}, which is running: "
                "stop or abort it first"
            )
        erased = {"sessions": 0, "ratings": 0, "answers": 0}
        if mode == WithdrawalMode.ERASE:
            erased = _erase(participant)
        else:
            Study.objects.filter(pk=participant.study_id).update(data_version=F("data_version") + 1)
        now = timezone.now()
        participant.withdrawal = mode
        participant.withdrawn_at = now
        participant.save()
        entry = Withdrawal.objects.create(
            study_id=participant.study_id,
            participant=participant,
            participant_code=participant.code,
            mode=mode,
            reason=reason[:MAX_REASON],
            by=user,
            by_username=user.get_username(),
            at=now,
            erased=erased,
        )
    return WithdrawalOutcome(participant, entry, created=True)


def withdrawal_summary(study: Study) -> dict[str, Any]:
    """The study's audit entries (newest first) and how many participants each mode left."""
    counts = {mode: 0 for mode in WithdrawalMode.values}
    for mode in study.participants.exclude(withdrawal="").values_list("withdrawal", flat=True):
        counts[mode] += 1
    return {
        "excluded": counts[WithdrawalMode.EXCLUDE],
        "erased": counts[WithdrawalMode.ERASE],
        "entries": list(study.withdrawals.order_by("-id")),
    }
