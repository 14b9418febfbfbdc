"""The session flow: every transition of the state machine, enforced on the server.

Each public function takes a session id, locks the session row (``select_for_update``)
inside a transaction, checks the transition against :data:`state_machine.TRANSITIONS`
and writes the new state with server-side timestamps — so a retried or concurrent
request can never apply a step twice, and a restarted server resumes from the row.

Calls to the station's agent happen while the row is locked: a second request for the
same session waits and then sees the outcome. Ratings are committed *before* the next
scenario is applied, in their own transaction, so an agent failure can never lose one.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from qoelab.participants.models import Participant, Skill
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import Session
from qoelab.runs.ordering import build_order
from qoelab.runs.state_machine import (
    ACTIVE_STATES,
    FINAL_STATES,
    LEASED_STATES,
    State,
    can_transition,
)
from qoelab.stations.agent_client import AgentClient, AgentError
from qoelab.stations.models import Station
from qoelab.studies.models import Game, OrderPolicy, Scenario, Study

MAX_TEXT_ANSWER = 2000


class SessionError(Exception):
    """A request the session cannot honour; ``status`` is the HTTP status to answer."""

    status = 409

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class InvalidInput(SessionError):
    status = 400


class WrongState(SessionError):
    status = 409


# --- settings ----------------------------------------------------------------------------


def lease_seconds() -> float:
    return float(settings.QOELAB_AGENT_LEASE_SECONDS)


def renew_interval() -> timedelta:
    return timedelta(seconds=lease_seconds() / 3)


def pause_timeout() -> timedelta:
    return timedelta(seconds=float(settings.QOELAB_PAUSE_TIMEOUT_SECONDS))


# --- plumbing ----------------------------------------------------------------------------


@contextmanager
def locked(session_id: int) -> Iterator[Session]:
    with transaction.atomic():
        yield Session.objects.select_for_update().get(pk=session_id)


def _save(session: Session) -> None:
    """Write the whole row (under the lock) and bump the revision the screens poll for."""
    session.revision += 1
    session.save()


def _transition(session: Session, target: str, *_changed: str) -> None:
    """Move to ``target`` if the transition table allows it; saves every field."""
    if not can_transition(session.state, target):
        raise WrongState(f"a session cannot go from {session.state} to {target}")
    session.state = target
    _save(session)


def _client(session: Session) -> AgentClient:
    assert session.station is not None
    return AgentClient.for_station(session.station)


def _note(session: Session, text: str) -> None:
    stamp = timezone.now().strftime("%H:%M:%S")
    session.message = f"{session.message}\n[{stamp}] {text}".strip()


def _describe_position(session: Session) -> str:
    entry = session.order_entry()
    code = entry["code"] if entry else "?"
    return f"scenario {session.current_index + 1} of {session.scenario_count} ({code})"


def _pause(session: Session, resume_to: str, message: str) -> None:
    """Pause the session; ``resume_to`` is the state :func:`resume` re-enters."""
    session.paused_from = resume_to
    session.paused_at = timezone.now()
    _note(session, message)
    if resume_to in (State.APPLYING, State.PLAYING):
        # The scenario is replayed after resuming: its verified state no longer holds.
        session.applied_profile = None
        session.applied_at = None
    if session.state == State.PAUSED:  # failed again while resuming
        _save(session)
    else:
        _transition(session, State.PAUSED)


def _clear_impairment(session: Session) -> bool:
    """Best effort: restore the station's interfaces. Notes a failure, never raises."""
    if session.station is None:
        return True
    try:
        _client(session).clear()
    except AgentError as exc:
        _note(
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


# --- creation ----------------------------------------------------------------------------


def create_session(
    *,
    study: Study,
    participant: Participant,
    game: Game,
    station: Station | None,
    created_by: Any = None,
    seed: int | None = None,
) -> Session:
    """Create a session with its scenario order (seed and order are stored)."""
    if participant.study_id != study.pk:
        raise InvalidInput(
            f"participant {participant.code!r} belongs to another study", field="participant"
        )
    if game.study_id != study.pk:
        raise InvalidInput(f"game {game.name!r} belongs to another study", field="game")
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study.pk)
        if (
            Session.objects.filter(participant=participant, game=game)
            .exclude(state=State.ABORTED)
            .exists()
        ):
            raise WrongState(
                f"participant {participant.code!r} already has a session with "
                f"{game.name!r}; a further session needs another game",
                field="game",
            )
        scenarios = list(study.active_scenarios())
        if not any(s.is_baseline for s in scenarios):
            raise InvalidInput("the study has no baseline scenario", field="study")
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        row = None
        if study.order_policy == OrderPolicy.LATIN_SQUARE:
            row = (
                Session.objects.filter(study=study, game=game).exclude(state=State.ABORTED).count()
            )
        order = build_order(
            scenarios,
            policy=study.order_policy,
            seed=seed,
            latin_square_row=row,
            retest_round=study.retest_round,
        )
        return Session.objects.create(
            study=study,
            study_version=study.version,
            participant=participant,
            game=game,
            station=station,
            order_policy=study.order_policy,
            seed=seed,
            latin_square_row=row,
            order=order,
            created_by=created_by if getattr(created_by, "is_authenticated", False) else None,
        )


# --- time and heartbeat ------------------------------------------------------------------


def seconds_remaining(session: Session, now: datetime | None = None) -> float | None:
    now = now or timezone.now()
    if session.state == State.FREE_PLAY and session.step_started_at:
        total = session.study.free_play_minutes * 60
        return max(0.0, total - (now - session.step_started_at).total_seconds())
    if session.state == State.PLAYING and session.scenario_started_at:
        total = session.study.seconds_per_scenario
        return max(0.0, total - (now - session.scenario_started_at).total_seconds())
    return None


def _tick(session: Session, now: datetime, *, renew: bool = True) -> None:
    """Time-driven steps: the scenario timer, a stuck "applying", the lease heartbeat."""
    if session.state == State.APPLYING:
        _apply_current(session)
        return
    if session.state == State.PLAYING and seconds_remaining(session, now) == 0.0:
        assert session.scenario_started_at is not None
        session.scenario_ended_at = session.scenario_started_at + timedelta(
            seconds=session.study.seconds_per_scenario
        )
        _transition(session, State.RATING, "scenario_ended_at")
    if renew:
        _renew_lease(session, now)


def _renew_lease(session: Session, now: datetime, *, force: bool = False) -> None:
    if session.state not in LEASED_STATES or session.station is None:
        return
    if session.applied_profile is None or session.state == State.APPLYING:
        return
    due = session.lease_renewed_at is None or now - session.lease_renewed_at >= renew_interval()
    if not (due or force):
        return
    client = _client(session)
    try:
        client.renew(lease_seconds())
        if session.state == State.PLAYING:
            client.verify(_scenario_fields(session.applied_profile))
    except AgentError as exc:
        if session.state == State.PLAYING:
            _pause(
                session,
                State.APPLYING,
                f"Heartbeat failed during {_describe_position(session)}: {exc}. "
                "The scenario will be replayed after resuming.",
            )
        else:
            # Rating needs no impairment any more: note it, keep the session going.
            _note(session, f"Heartbeat failed while rating: {exc}")
            session.lease_renewed_at = now
            session.save(update_fields=["message", "lease_renewed_at", "updated_at"])
        return
    session.lease_renewed_at = now
    session.save(update_fields=["lease_renewed_at", "updated_at"])


def _scenario_fields(installed: dict[str, Any]) -> dict[str, dict[str, float]]:
    return {
        direction: {
            k: float(installed[direction][k]) for k in ("delay_ms", "jitter_ms", "loss_pct")
        }
        for direction in ("upstream", "downstream")
    }


def tick(session_id: int, *, renew: bool = True) -> Session:
    """Bring a session up to date (polling endpoints and the periodic heartbeat call it)."""
    with locked(session_id) as session:
        _tick(session, timezone.now(), renew=renew)
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
            if _clear_impairment(session):
                _note(session, f"Paused for more than {minutes:g} min: impairment cleared.")
                session.save(update_fields=["message", "updated_at"])
                expired.append(session.pk)
    return expired


# --- the agent ---------------------------------------------------------------------------


def _apply_current(session: Session) -> None:
    """In state applying: install the current scenario and wait for the verified state."""
    assert session.state == State.APPLYING
    scenario = session.current_scenario()
    assert scenario is not None
    if session.station is None:
        _pause(session, State.APPLYING, "The session has no station to apply scenarios at.")
        return
    try:
        applied = _client(session).apply(scenario.profile(), lease_seconds())
    except AgentError as exc:
        _pause(
            session,
            State.APPLYING,
            f"Could not apply {_describe_position(session)} at station "
            f"{session.station.name!r}: {exc}. No rating can be given for it until the "
            "scenario has been applied; resume when the agent is back.",
        )
        return
    now = timezone.now()
    session.applied_profile = applied.installed
    session.applied_at = now
    session.lease_renewed_at = now
    session.scenario_started_at = now
    session.scenario_ended_at = None
    session.step_started_at = now
    _transition(
        session,
        State.PLAYING,
        "applied_profile",
        "applied_at",
        "lease_renewed_at",
        "scenario_started_at",
        "scenario_ended_at",
        "step_started_at",
    )


def _enter_free_play(session: Session) -> None:
    """Free play is unimpaired: restore the interfaces (verified) before it starts."""
    if session.station is not None:
        try:
            _client(session).clear()
        except AgentError as exc:
            _pause(
                session,
                State.FREE_PLAY,
                f"Could not make station {session.station.name!r} unimpaired for free play: {exc}",
            )
            return
        session.impairment_cleared_at = timezone.now()
    session.applied_profile = None
    session.step_started_at = timezone.now()
    _transition(
        session, State.FREE_PLAY, "impairment_cleared_at", "applied_profile", "step_started_at"
    )


def _leave(session: Session, target: str) -> None:
    """Complete or abort; clears the impairment (best effort) and frees the station."""
    needs_clear = session.station is not None and (
        session.applied_profile is not None
        or session.state in LEASED_STATES
        or (session.state == State.PAUSED and session.paused_from in LEASED_STATES)
    )
    if target == State.COMPLETED:
        session.completed_at = timezone.now()
    _transition(session, target, "completed_at")
    if needs_clear:
        _clear_impairment(session)


# --- actions -----------------------------------------------------------------------------


def start(session_id: int) -> Session:
    with locked(session_id) as session:
        if session.state != State.CREATED:
            raise WrongState(f"the session was already started (state {session.state})")
        if session.station is None:
            raise InvalidInput("assign a station before starting the session", field="station")
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
            with transaction.atomic():
                _transition(session, State.QUESTIONNAIRE, "started_at")
        except IntegrityError as exc:
            raise WrongState(f"station {session.station.name!r} is busy") from exc
        return session


def _validate_answer(question: dict[str, Any], value: Any) -> Any:
    key, kind = question["key"], question.get("kind", "text")
    if kind == "choice":
        if value not in question.get("choices", []):
            raise InvalidInput(
                f"{key}: {value!r} is not one of {', '.join(map(str, question['choices']))}",
                field=key,
            )
    elif kind == "boolean":
        if not isinstance(value, bool):
            raise InvalidInput(f"{key}: answer true or false", field=key)
    elif kind == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidInput(f"{key}: answer a whole number", field=key)
        low, high = question.get("min"), question.get("max")
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvalidInput(f"{key}: answer a number from {low} to {high}", field=key)
    else:
        if not isinstance(value, str) or len(value) > MAX_TEXT_ANSWER:
            raise InvalidInput(
                f"{key}: answer with text of at most {MAX_TEXT_ANSWER} characters", field=key
            )
    return value


def _answers(session: Session, phase: str, given: Any) -> dict[str, Any]:
    if not isinstance(given, dict):
        raise InvalidInput("answers must be an object {question key: answer}", field="answers")
    questions = {q["key"]: q for q in session.study.questions(phase)}
    unknown = sorted(set(given) - set(questions))
    if unknown:
        raise InvalidInput(f"unknown question(s): {', '.join(unknown)}", field="answers")
    out = {}
    for key, question in questions.items():
        value = given.get(key)
        if value is None or value == "":
            if question.get("required", False):
                raise InvalidInput(f"{key}: an answer is required", field=key)
            continue
        out[key] = _validate_answer(question, value)
    return out


def pre_play_requirements(session: Session) -> dict[str, bool]:
    """Which participant facts the questionnaire still has to collect."""
    participant = session.participant
    return {
        "consent": participant.consent_at is None,
        "age": participant.age is None,
        "skill": not participant.skill,
    }


def submit_questionnaire(session_id: int, data: dict[str, Any]) -> Session:
    """The pre-play questionnaire: consent, age, skill, genre preference, study questions."""
    with locked(session_id) as session:
        if session.state != State.QUESTIONNAIRE:
            raise WrongState(
                f"the questionnaire is answered in state questionnaire (the session is "
                f"{session.state})"
            )
        participant = Participant.objects.select_for_update().get(pk=session.participant_id)
        needs = pre_play_requirements(session)
        if needs["consent"] and data.get("consent") is not True:
            raise InvalidInput("the participant's consent is required", field="consent")
        age = data.get("age")
        if age is not None:
            if isinstance(age, bool) or not isinstance(age, int) or not 10 <= age <= 120:
                raise InvalidInput("age: a whole number from 10 to 120", field="age")
        elif needs["age"]:
            raise InvalidInput("age: required", field="age")
        skill = data.get("skill")
        if skill is not None and skill not in Skill.values:
            raise InvalidInput(f"skill: one of {', '.join(Skill.values)}", field="skill")
        if skill is None and needs["skill"]:
            raise InvalidInput(f"skill: required (one of {', '.join(Skill.values)})", field="skill")
        favours = data.get("genre_preference")
        if not isinstance(favours, bool):
            raise InvalidInput(
                "genre_preference: true or false (does the participant favour games of "
                "this genre?)",
                field="genre_preference",
            )
        answers = _answers(session, "pre", data.get("answers", {}))
        now = timezone.now()
        if participant.consent_at is None:
            participant.consent_at = now
        if age is not None:
            participant.age = age
        if skill is not None:
            participant.skill = skill
        genre = session.game.genre or session.game.name
        participant.genre_preferences = {**participant.genre_preferences, genre: favours}
        participant.save()
        Answer.objects.update_or_create(
            session=session,
            key="genre_preference",
            defaults={"phase": "pre", "value": favours, "answered_at": now},
        )
        for key, value in answers.items():
            Answer.objects.update_or_create(
                session=session,
                key=key,
                defaults={"phase": "pre", "value": value, "answered_at": now},
            )
        _enter_free_play(session)
        return session


def finish_free_play(session_id: int, *, researcher: bool) -> Session:
    with locked(session_id) as session:
        if session.state != State.FREE_PLAY:
            raise WrongState(f"the session is not in free play (state {session.state})")
        remaining = seconds_remaining(session) or 0.0
        if remaining > 0 and not researcher:
            raise WrongState(f"free play lasts {remaining:.0f} more seconds")
        session.current_index = 0
        _transition(session, State.APPLYING, "current_index")
        _apply_current(session)
        return session


@dataclass(frozen=True)
class RateResult:
    rating: Rating
    created: bool
    session: Session


def rate(
    session_id: int,
    *,
    score: Any,
    idempotency_key: str,
    position: Any,
    scenario_id: int | None = None,
    source: str,
) -> RateResult:
    """Record the rating of the current scenario; idempotent by ``idempotency_key``."""
    if not isinstance(idempotency_key, str) or not 8 <= len(idempotency_key) <= 100:
        raise InvalidInput("idempotency_key: 8–100 characters", field="idempotency_key")
    with locked(session_id) as session:
        existing = Rating.objects.filter(session=session, idempotency_key=idempotency_key).first()
        if existing is not None:
            if existing.score != score or existing.order_index + 1 != position:
                raise WrongState(
                    "this idempotency_key was already used for a different rating "
                    f"(score {existing.score} for scenario {existing.order_index + 1})",
                    field="idempotency_key",
                )
            return RateResult(existing, False, session)
        scale_max = session.study.scale_max
        if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= scale_max:
            raise InvalidInput(f"score: a whole number from 1 to {scale_max}", field="score")
        if isinstance(position, bool) or not isinstance(position, int):
            raise InvalidInput("position: the scenario's number in the session", field="position")
        _tick(session, timezone.now(), renew=False)
        if session.state != State.RATING:
            raise WrongState(
                f"a rating can only be given in state rating; the session is {session.state}"
                + (
                    f" ({session.message.splitlines()[-1]})"
                    if session.state == State.PAUSED
                    else ""
                )
            )
        entry = session.order_entry()
        assert entry is not None
        if scenario_id is not None and scenario_id != entry["scenario"]:
            if not Scenario.objects.filter(pk=scenario_id, study=session.study).exists():
                raise InvalidInput(
                    f"scenario {scenario_id} is not a scenario of this study", field="scenario"
                )
            raise InvalidInput(
                f"scenario {scenario_id} is not the scenario being rated", field="scenario"
            )
        if position != session.current_index + 1:
            raise WrongState(
                f"position {position} is stale: the session is rating scenario "
                f"{session.current_index + 1} of {session.scenario_count}",
                field="position",
            )
        if session.applied_profile is None:
            raise WrongState("the scenario's verified impairment is missing; replay it")
        rating = Rating.objects.create(
            session=session,
            scenario_id=entry["scenario"],
            order_index=session.current_index,
            round=entry.get("round", 1),
            score=score,
            scenario_started_at=session.scenario_started_at,
            scenario_ended_at=session.scenario_ended_at,
            rated_at=timezone.now(),
            applied_profile=session.applied_profile,
            idempotency_key=idempotency_key,
            source=source,
        )
        if session.current_index + 1 < session.scenario_count:
            session.current_index += 1
            session.scenario_started_at = session.scenario_ended_at = None
            _transition(
                session, State.APPLYING, "current_index", "scenario_started_at", "scenario_ended_at"
            )
        else:
            _transition(session, State.POST_QUESTIONS)
    # The rating is committed; now apply the next scenario (or clear after the last one).
    with locked(session_id) as session:
        if session.state == State.APPLYING:
            _apply_current(session)
        elif session.state == State.POST_QUESTIONS and session.station is not None:
            _clear_impairment(session)
        return RateResult(rating, True, session)


def submit_post_questions(session_id: int, data: dict[str, Any]) -> Session:
    with locked(session_id) as session:
        if session.state != State.POST_QUESTIONS:
            raise WrongState(
                f"the post-session questions come after the last rating (the session is "
                f"{session.state})"
            )
        answers = _answers(session, "post", data.get("answers", {}))
        now = timezone.now()
        for key, value in answers.items():
            Answer.objects.update_or_create(
                session=session,
                key=key,
                defaults={"phase": "post", "value": value, "answered_at": now},
            )
        _leave(session, State.COMPLETED)
        return session


def end_scenario(session_id: int) -> Session:
    """Researcher: end the current scenario's play period now (go to rating)."""
    with locked(session_id) as session:
        _tick(session, timezone.now(), renew=False)
        if session.state != State.PLAYING:
            raise WrongState(f"no scenario is being played (state {session.state})")
        session.scenario_ended_at = timezone.now()
        _transition(session, State.RATING, "scenario_ended_at")
        return session


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
    waiting_for: dict[str, str] = {
        State.QUESTIONNAIRE: "the questionnaire answers (POST questionnaire)",
        State.RATING: "a rating (POST rate)",
        State.POST_QUESTIONS: "the post-session answers (POST post-questions)",
        State.PAUSED: "the researcher to resume it (POST resume)",
    }
    if session.state in waiting_for:
        raise WrongState(f"the session is waiting for {waiting_for[session.state]}")
    raise WrongState(f"the session is {session.state}; there is no next step")


def pause(session_id: int, reason: str = "") -> Session:
    with locked(session_id) as session:
        if session.state not in ACTIVE_STATES or session.state == State.PAUSED:
            raise WrongState(f"only a running session can be paused (state {session.state})")
        resume_to = session.state
        if resume_to == State.PLAYING:
            resume_to = State.APPLYING  # an interrupted scenario is replayed in full
        _pause(session, resume_to, f"Paused by the researcher. {reason}".strip())
        return session


def resume(session_id: int) -> Session:
    with locked(session_id) as session:
        if session.state != State.PAUSED:
            raise WrongState(f"only a paused session can be resumed (state {session.state})")
        target = session.paused_from or State.QUESTIONNAIRE
        session.paused_from = ""
        session.paused_at = None
        _note(session, "Resumed.")
        if target == State.FREE_PLAY:
            _enter_free_play(session)
        elif target == State.APPLYING:
            _transition(session, State.APPLYING, "paused_from", "paused_at", "message")
            _apply_current(session)
        else:
            _transition(session, target, "paused_from", "paused_at", "message")
        return session


def abort(session_id: int, reason: str = "") -> Session:
    with locked(session_id) as session:
        if session.state in FINAL_STATES:
            raise WrongState(f"the session is already {session.state}")
        _note(session, f"Aborted. {reason}".strip())
        session.save(update_fields=["message"])
        _leave(session, State.ABORTED)
        return session
