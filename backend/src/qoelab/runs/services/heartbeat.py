"""Time-driven steps: the scenario timer, a stuck "applying", the agent's lease, pause expiry.

Polling endpoints call :func:`tick` (the participant's poll first tries
:func:`end_play_unlocked`, the scenario's end as one guarded ``UPDATE``); Celery beat calls
:func:`heartbeat_all` and :func:`expire_sessions`. A heartbeat that fails while a scenario
plays pauses the session (the scenario is replayed after resuming); while rating it is only
noted, and an agent whose lease ran out while rating is no failure (:func:`renew_lease`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.db.models import F, Q
from django.utils import timezone

from qoelab.runs.models import Session
from qoelab.runs.services.impairment import agent_for, apply_current_scenario, clear_impairment
from qoelab.runs.services.timing import (
    lease_seconds,
    pause_timeout,
    play_seconds,
    renew_interval,
    seconds_remaining,
)
from qoelab.runs.services.transitions import (
    HEARTBEAT_FAILED_WHILE_RATING,
    describe_position,
    locked,
    note,
    note_agent_answers,
    pause_session,
    transition,
)
from qoelab.runs.state_machine import LEASED_STATES, State
from qoelab.stations.agent_client import AgentError, LeaseGone
from qoelab.studies.directions import SCENARIO_FIELDS


def catch_up(session: Session, now: datetime, *, renew: bool = True) -> None:
    """Take the steps that time has made due (the session is locked by the caller)."""
    if session.state == State.APPLYING:
        apply_current_scenario(session)
        return
    if session.state == State.PLAYING and seconds_remaining(session, now) == 0.0:
        assert session.scenario_started_at is not None
        session.scenario_ended_at = session.scenario_started_at + timedelta(
            seconds=play_seconds(session)
        )
        transition(session, State.RATING)
    if renew:
        renew_lease(session, now)


def tick_due(session: Session, now: datetime) -> bool:
    """Would :func:`catch_up` take a step now? Read from an unlocked row by the polling
    endpoints, so that a poll with nothing due neither locks the row nor writes it.

    The same rules as :func:`catch_up` (a stuck "applying", a scenario whose time is up, a
    lease renewal due); :func:`tick` re-checks them under the lock, so a stale read costs at
    most one idle lock, and a step due a moment later is taken by the next poll.
    """
    if session.state == State.APPLYING:
        return True
    if session.state == State.PLAYING and seconds_remaining(session, now) == 0.0:
        return True
    return lease_renewal_due(session, now)


def end_play_unlocked(session: Session, now: datetime) -> Session | None:
    """The scenario's time is up: playing → rating as one guarded ``UPDATE``, or None.

    The step a poll most often finds due (once per scenario and session) without a
    transaction of its own: no ``BEGIN``, locked read and ``COMMIT`` round trips, each of
    which waits for a core in a busy lab. The ``UPDATE`` sets what :func:`catch_up` would
    (state, revision + 1, the play period's end, ``updated_at``) only while the row still
    has the state and revision that ``session`` was read with: every step that moves the
    session raises the revision (``save_revision``), and a concurrent locked step makes
    the ``UPDATE`` wait for it and then match nothing. Returns ``session`` updated in
    memory, or None (another step is due, or the row changed): then the caller takes the
    locked :func:`tick`, which checks everything again.
    """
    if session.state != State.PLAYING or seconds_remaining(session, now) != 0.0:
        return None
    if lease_renewal_due(session, now):
        return None  # the renewal needs the agent and the lock: the locked tick does both
    assert session.scenario_started_at is not None  # seconds_remaining is 0.0, not None
    ended = session.scenario_started_at + timedelta(seconds=play_seconds(session))
    revision = session.revision + 1
    updated = Session.objects.filter(
        pk=session.pk, state=State.PLAYING, revision=session.revision
    ).update(state=State.RATING, revision=revision, scenario_ended_at=ended, updated_at=now)
    if updated != 1:
        return None
    session.state = State.RATING
    session.revision = revision
    session.scenario_ended_at = ended
    session.updated_at = now
    return session


def profile_at_agent(session: Session) -> bool:
    """The agent holds the scenario's impairment for this session: it was applied (and
    verified) and not cleared since, at the agent or by its lease running out.

    ``applied_profile`` alone does not say so: it stays set through the rating, because the
    rating keeps the verified profile of the scenario just played (``rating._record``).
    """
    if session.applied_profile is None or session.applied_at is None:
        return False
    cleared = session.impairment_cleared_at
    return cleared is None or cleared < session.applied_at


def _holds_lease(session: Session) -> bool:
    """The one rule of the heartbeat (issue 35): a lease is renewed only while a profile is
    applied, i.e. a scenario's impairment is installed (playing, rating) on a station and
    the agent still holds it (:func:`profile_at_agent`)."""
    return (
        session.state in (State.PLAYING, State.RATING)
        and session.station_id is not None
        and profile_at_agent(session)
    )


def lease_renewal_due(session: Session, now: datetime) -> bool:
    """A lease is renewed at a third of its length (:func:`timing.renew_interval`) while a
    scenario's impairment is installed (playing, rating) on a station."""
    if not _holds_lease(session):
        return False
    return session.lease_renewed_at is None or now - session.lease_renewed_at >= renew_interval()


def renew_lease(session: Session, now: datetime, *, force: bool = False) -> None:
    """Renew the agent's lease when due; while playing, also verify the installed state.

    While playing, any failure pauses the session (the scenario is replayed). While rating
    the impairment is no longer needed: an agent that answers "no profile is applied"
    (:class:`LeaseGone`, its lease ran out and it restored the interfaces) is no failure —
    the session stops renewing and the next scenario is applied anew; any other failure is
    noted as one (the console's alarm) and cleared by the agent's next answer.
    """
    if not _holds_lease(session) or not (force or lease_renewal_due(session, now)):
        return
    installed = session.applied_profile
    assert installed is not None  # _holds_lease
    client = agent_for(session)
    try:
        client.renew(lease_seconds())
        if session.state == State.PLAYING:
            client.verify(verified_fields(installed))
    except AgentError as exc:
        _renewal_failed(session, now, exc)
        return
    session.lease_renewed_at = now
    fields = ["lease_renewed_at", "updated_at"]
    if note_agent_answers(session):
        fields.append("message")
    session.save(update_fields=fields)


def _renewal_failed(session: Session, now: datetime, exc: AgentError) -> None:
    if session.state == State.PLAYING:
        pause_session(
            session,
            State.PLAYING,
            f"Heartbeat failed during {describe_position(session)}: {exc}. "
            "The scenario will be replayed after resuming.",
        )
        return
    if isinstance(exc, LeaseGone):
        # The rating needs no impairment: the agent restored the interfaces when its lease
        # ran out (nothing renewed it for a while), which is what a lease is for.
        session.impairment_cleared_at = now
        note(
            session,
            f"The agent's lease ran out while rating {describe_position(session)}: it "
            "restored the interfaces (the rating needs no impairment); the next scenario "
            "is applied anew.",
        )
        session.save(update_fields=["impairment_cleared_at", "message", "updated_at"])
        return
    note(session, f"{HEARTBEAT_FAILED_WHILE_RATING} {describe_position(session)}: {exc}")
    session.lease_renewed_at = now  # retried at the next renewal, not at every poll
    session.save(update_fields=["message", "lease_renewed_at", "updated_at"])


def verified_fields(installed: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The scenario's fields of the verified read-back, per direction: every field of the
    agent's profile but the station's queue limit (that one is compared as the neutral
    default, which is what the station installs)."""
    return {
        direction: {k: v for k, v in installed[direction].items() if k in SCENARIO_FIELDS}
        for direction in ("upstream", "downstream")
    }


def tick(session_id: int, *, renew: bool = True) -> Session:
    """Bring a session up to date (polling endpoints and the periodic heartbeat call it)."""
    with locked(session_id) as session:
        catch_up(session, timezone.now(), renew=renew)
        return session


def heartbeat_all() -> int:
    """Tick every running session (Celery beat); returns how many were ticked."""
    ids = list(Session.objects.filter(state__in=sorted(LEASED_STATES)).values_list("pk", flat=True))
    for session_id in ids:
        tick(session_id)
    return len(ids)


def expire_sessions(now: datetime | None = None) -> list[int]:
    """Clear the impairment of sessions paused for longer than QOELAB_PAUSE_TIMEOUT_SECONDS."""
    now = now or timezone.now()
    cutoff = now - pause_timeout()
    candidates = Session.objects.filter(state=State.PAUSED, paused_at__lt=cutoff).filter(
        Q(impairment_cleared_at__isnull=True) | Q(impairment_cleared_at__lt=F("paused_at"))
    )
    expired = []
    for session_id in candidates.values_list("pk", flat=True):
        with locked(session_id) as session:
            if session.state != State.PAUSED or session.paused_at is None:
                continue
            if session.paused_at >= cutoff:
                continue
            if session.impairment_cleared_at and session.impairment_cleared_at >= session.paused_at:
                continue
            minutes = pause_timeout().total_seconds() / 60
            if clear_impairment(session):
                note(session, f"Paused for more than {minutes:g} min: impairment cleared.")
                session.save(update_fields=["message", "updated_at"])
                expired.append(session.pk)
    return expired
