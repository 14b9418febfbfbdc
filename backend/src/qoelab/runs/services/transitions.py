"""The locked session row and its moves through :data:`state_machine.TRANSITIONS`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from qoelab.runs.models import Session
from qoelab.runs.services.errors import WrongState
from qoelab.runs.state_machine import State, can_transition


@contextmanager
def locked(session_id: int) -> Iterator[Session]:
    """The session row, locked (``select_for_update``) for one transaction.

    Its study and station come in the same query (every step reads the study's timings,
    most call the station's agent); ``of=("self",)`` locks the session row only, so that
    sessions of one study or one station never wait for each other's lock.
    """
    with transaction.atomic():
        yield (
            Session.objects.select_related("study", "station")
            .select_for_update(of=("self",))
            .get(pk=session_id)
        )


def save_revision(session: Session) -> None:
    """Write the whole row (under the lock) and bump the revision the screens poll for."""
    session.revision += 1
    session.save()


def transition(session: Session, target: str) -> None:
    """Move to ``target`` if the transition table allows it; saves every field."""
    if not can_transition(session.state, target):
        raise WrongState(f"a session cannot go from {session.state} to {target}")
    session.state = target
    save_revision(session)
    if target == State.COMPLETED:
        # Only completed sessions are analysed: completing one changes the analysis' input.
        bump_session_data_version(session)


def bump_session_data_version(session: Session) -> None:
    """Add 1 to the session's data version (``F() + 1``), in the caller's transaction.

    Called under the row lock (:func:`locked`) by the writes that change the session's
    part of the analysed data; the results cache's key adds the sessions' counters to the
    study's (:mod:`qoelab.studies.data_version`). The session row is locked by this
    request already, so the update waits for no other session — unlike a bump of the
    study row, which serialised the ratings of all the study's live sessions.
    """
    Session.objects.filter(pk=session.pk).update(data_version=F("data_version") + 1)
    # The row is locked by this transaction: the value in memory stays exact.
    session.data_version += 1


def note(session: Session, text: str) -> None:
    """Append a time-stamped line to the session's message (not saved)."""
    stamp = timezone.now().strftime("%H:%M:%S")
    session.message = f"{session.message}\n[{stamp}] {text}".strip()


#: How a heartbeat failure while rating starts in the session log (the console's alarm).
HEARTBEAT_FAILED_WHILE_RATING = "Heartbeat failed while rating"


def note_agent_answers(session: Session) -> bool:
    """After a heartbeat failure while rating, note that the agent answered again (a lease
    renewed, a scenario applied), so that the console's alarm clears (issue 35). Notes
    nothing otherwise (no line per heartbeat). Returns whether it noted (not saved)."""
    lines = session.message.splitlines()
    if not lines or HEARTBEAT_FAILED_WHILE_RATING not in lines[-1]:
        return False
    note(session, "The agent answers the heartbeat again.")
    return True


def describe_position(session: Session) -> str:
    entry = session.order_entry()
    code = entry["code"] if entry else "?"
    return f"scenario {session.current_index + 1} of {session.scenario_count} ({code})"


def pause_session(session: Session, paused_from: str, message: str) -> None:
    """Pause the session; ``paused_from`` is the phase it was in (issue 35: the console says
    "Paused (from Playing)" for a scenario that was playing). :func:`lifecycle.resume`
    re-enters that phase, except that an interrupted scenario is replayed in full."""
    session.paused_from = paused_from
    session.paused_at = timezone.now()
    note(session, message)
    if paused_from in (State.APPLYING, State.PLAYING):
        # The scenario is replayed after resuming: its verified state no longer holds.
        session.applied_profile = None
        session.applied_at = None
    if session.state == State.PAUSED:  # failed again while resuming
        save_revision(session)
    else:
        transition(session, State.PAUSED)
