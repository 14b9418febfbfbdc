"""Switching the station's impairment through its agent: apply a scenario, clear it.

A failing agent never raises out of here: the session is paused (or the failure noted)
so that the researcher sees why and can resume.
"""

from __future__ import annotations

import contextlib
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from qoelab.runs.models import Session
from qoelab.runs.services.timing import lease_seconds
from qoelab.runs.services.transitions import (
    describe_position,
    note,
    note_agent_answers,
    pause_session,
    transition,
)
from qoelab.runs.state_machine import LEASED_STATES, State
from qoelab.stations.agent_client import DRY_RUN, AgentClient, AgentError, AppliedState
from qoelab.stations.models import Station


def agent_for(session: Session) -> AgentClient:
    assert session.station is not None
    return AgentClient.for_station(session.station)


def dry_run_refusal(station: Station, backend: str | None, rehearsal: bool) -> str | None:
    """Why a scenario may not be taken on this agent, or None.

    Issue 13 finding 5: in production (``settings.IS_PRODUCTION``) a dry-run agent applies
    nothing to a kernel, so its ratings would be ratings of an unimpaired game; only a study
    marked as a rehearsal may run on one (its ratings carry ``backend: dry-run``).
    """
    if backend != DRY_RUN or rehearsal or not settings.IS_PRODUCTION:
        return None
    return (
        f"station {station.name!r} runs a dry-run agent; this study is not marked as a "
        "rehearsal. A dry-run agent applies nothing to a kernel: run the session on a "
        "station with a netlink agent, or mark the study as a rehearsal."
    )


def _store_provenance(session: Session, applied: AppliedState, now: datetime) -> None:
    session.applied_profile = applied.installed
    session.applied_at = now
    session.applied_backend = applied.backend or ""
    session.applied_agent_version = applied.agent_version or ""
    session.applied_kernel = applied.kernel
    session.applied_verified_at = now if applied.kernel_read_back else None


def apply_current_scenario(session: Session) -> None:
    """In state applying: install the current scenario and wait for the verified state."""
    assert session.state == State.APPLYING
    scenario = session.current_scenario()
    assert scenario is not None
    if session.station is None:
        pause_session(session, State.APPLYING, "The session has no station to apply scenarios at.")
        return
    try:
        applied = agent_for(session).apply(scenario.profile(), lease_seconds())
    except AgentError as exc:
        pause_session(
            session,
            State.APPLYING,
            f"Could not apply {describe_position(session)} at station "
            f"{session.station.name!r}: {exc}. No rating can be given for it until the "
            "scenario has been applied; resume when the agent is back.",
        )
        return
    refusal = dry_run_refusal(session.station, applied.backend, session.study.rehearsal)
    if refusal is not None:
        # nothing reached a kernel, but the agent holds a lease: release it now (if that
        # fails, the lease removes the recording when it runs out)
        with contextlib.suppress(AgentError):
            agent_for(session).clear()
        # the console's banner shows which backend answered, even though nothing is rated
        session.applied_backend = applied.backend or ""
        session.applied_agent_version = applied.agent_version or ""
        pause_session(
            session, State.APPLYING, f"Could not apply {describe_position(session)}: {refusal}"
        )
        return
    now = timezone.now()
    note_agent_answers(session)  # an earlier heartbeat failure's alarm is over
    _store_provenance(session, applied, now)
    session.lease_renewed_at = now
    session.scenario_started_at = now
    session.scenario_ended_at = None
    session.step_started_at = now
    transition(session, State.PLAYING)


def enter_free_play(session: Session) -> None:
    """Free play is unimpaired: restore the interfaces (verified) before it starts."""
    if session.station is not None:
        try:
            agent_for(session).clear()
        except AgentError as exc:
            pause_session(
                session,
                State.FREE_PLAY,
                f"Could not make station {session.station.name!r} unimpaired for free play: {exc}",
            )
            return
        session.impairment_cleared_at = timezone.now()
    session.applied_profile = None
    session.step_started_at = timezone.now()
    transition(session, State.FREE_PLAY)


def clear_impairment(session: Session) -> bool:
    """Best effort: restore the station's interfaces. Notes a failure, never raises."""
    if session.station is None:
        return True
    try:
        agent_for(session).clear()
    except AgentError as exc:
        note(
            session,
            f"Could not clear the impairment: {exc}. The agent's lease "
            f"({lease_seconds():g} s) will remove it when it runs out.",
        )
        session.save(update_fields=["message", "updated_at"])
        return False
    session.impairment_cleared_at = timezone.now()
    session.applied_profile = None
    session.save(update_fields=["impairment_cleared_at", "applied_profile", "updated_at"])
    return True


def end_session(session: Session, target: str) -> None:
    """Complete or abort; clears the impairment (best effort) and frees the station."""
    needs_clear = session.station is not None and (
        session.applied_profile is not None
        or session.state in LEASED_STATES
        or (session.state == State.PAUSED and session.paused_from in LEASED_STATES)
    )
    if target == State.COMPLETED:
        session.completed_at = timezone.now()
    transition(session, target)
    if needs_clear:
        clear_impairment(session)
