"""The session's steps from start to the end: start, free play, pause/resume, abort.

Each takes the session id, locks the row and checks the state before acting.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from qoelab.runs.models import Session
from qoelab.runs.services.creation import analysis_only_refusal
from qoelab.runs.services.errors import InvalidInput, WrongState
from qoelab.runs.services.heartbeat import catch_up, tick
from qoelab.runs.services.impairment import apply_current_scenario, end_session, enter_free_play
from qoelab.runs.services.timing import seconds_remaining
from qoelab.runs.services.transitions import locked, note, pause_session, transition
from qoelab.runs.state_machine import ACTIVE_STATES, FINAL_STATES, State
from qoelab.stations.models import Station


def start(session_id: int) -> Session:
    """created → questionnaire; the station must be assigned and free."""
    with locked(session_id) as session:
        if session.state != State.CREATED:
            raise WrongState(f"the session was already started (state {session.state})")
        if session.study.analysis_only:
            raise WrongState(analysis_only_refusal(session.study), field="study")
        if session.station is None:
            raise InvalidInput("assign a station before starting the session", field="station")
        # Changes to the station lock its row too (qoelab.stations.views): one waits for the other.
        Station.objects.select_for_update().only("pk").get(pk=session.station.pk)
        busy = (
            Session.objects.filter(station=session.station, state__in=sorted(ACTIVE_STATES))
            .exclude(pk=session.pk)
            .first()
        )
        if busy is not None:
            raise WrongState(
                f"station {session.station.name!r} is busy with session {busy.pk} ({busy.state})"
            )
        session.started_at = timezone.now()
        try:
            # The database's one-active-session-per-station constraint catches a race.
            with transaction.atomic():
                transition(session, State.QUESTIONNAIRE)
        except IntegrityError as exc:
            raise WrongState(f"station {session.station.name!r} is busy") from exc
        return session


def finish_free_play(session_id: int, *, researcher: bool) -> Session:
    """free play → applying the first scenario; the participant must wait for the timer."""
    with locked(session_id) as session:
        if session.state != State.FREE_PLAY:
            raise WrongState(f"the session is not in free play (state {session.state})")
        remaining = seconds_remaining(session) or 0.0
        if remaining > 0 and not researcher:
            raise WrongState(f"free play lasts {remaining:.0f} more seconds")
        session.current_index = 0
        transition(session, State.APPLYING)
        apply_current_scenario(session)
        return session


def end_scenario(session_id: int) -> Session:
    """Researcher: end the current scenario's play period now (go to rating)."""
    with locked(session_id) as session:
        catch_up(session, timezone.now(), renew=False)
        if session.state != State.PLAYING:
            raise WrongState(f"no scenario is being played (state {session.state})")
        session.scenario_ended_at = timezone.now()
        transition(session, State.RATING)
        return session


#: What a session in these states waits for, which the researcher cannot take over.
WAITING_FOR: dict[str, str] = {
    State.QUESTIONNAIRE: "the questionnaire answers (POST questionnaire)",
    State.RATING: "a rating (POST rate)",
    State.POST_QUESTIONS: "the post-session answers (POST post-questions)",
    State.PAUSED: "the researcher to resume it (POST resume)",
}


def advance(session_id: int) -> Session:
    """Researcher: take the next step the session is waiting for, where one exists."""
    session = Session.objects.get(pk=session_id)
    if session.state == State.CREATED:
        return start(session_id)
    if session.state == State.FREE_PLAY:
        return finish_free_play(session_id, researcher=True)
    if session.state == State.PLAYING:
        return end_scenario(session_id)
    if session.state == State.APPLYING:
        return tick(session_id)
    if session.state in WAITING_FOR:
        raise WrongState(f"the session is waiting for {WAITING_FOR[session.state]}")
    raise WrongState(f"the session is {session.state}; there is no next step")


def pause(session_id: int, reason: str = "") -> Session:
    """Pause a running session; an interrupted scenario is replayed in full on resuming."""
    with locked(session_id) as session:
        if session.state not in ACTIVE_STATES or session.state == State.PAUSED:
            raise WrongState(f"only a running session can be paused (state {session.state})")
        pause_session(session, session.state, f"Paused by the researcher. {reason}".strip())
        return session


def resume(session_id: int) -> Session:
    """Return to the paused step (re-applying the scenario or re-clearing for free play)."""
    with locked(session_id) as session:
        if session.state != State.PAUSED:
            raise WrongState(f"only a paused session can be resumed (state {session.state})")
        target = session.paused_from or State.QUESTIONNAIRE
        if target == State.PLAYING:
            target = State.APPLYING  # an interrupted scenario is replayed in full
        session.paused_from = ""
        session.paused_at = None
        note(session, "Resumed.")
        if target == State.FREE_PLAY:
            enter_free_play(session)
        elif target == State.APPLYING:
            transition(session, State.APPLYING)
            apply_current_scenario(session)
        else:
            transition(session, target)
        return session


def abort(session_id: int, reason: str = "") -> Session:
    """Abort a session that has not ended; the impairment is cleared and the station freed."""
    with locked(session_id) as session:
        if session.state in FINAL_STATES:
            raise WrongState(f"the session is already {session.state}")
        note(session, f"Aborted. {reason}".strip())
        session.save(update_fields=["message"])
        end_session(session, State.ABORTED)
        return session
