"""Rating the scenario just played: idempotent, and committed before the next is applied."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from qoelab.ratings.models import Rating
from qoelab.runs.models import Session
from qoelab.runs.services.errors import InvalidInput, WrongState
from qoelab.runs.services.heartbeat import catch_up
from qoelab.runs.services.impairment import apply_current_scenario, clear_impairment
from qoelab.runs.services.transitions import locked, transition
from qoelab.runs.state_machine import State
from qoelab.studies.models import Scenario


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
    """Record the rating of the current scenario; idempotent by ``idempotency_key``.

    A repeated key with the same score and position returns the stored rating
    (``created=False``); with different ones it is refused. The rating is committed in its
    own transaction before the next scenario is applied, so an agent failure cannot lose it.
    """
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
        _check_rating(session, score=score, position=position, scenario_id=scenario_id)
        rating = _record(session, score=score, idempotency_key=idempotency_key, source=source)
        if session.current_index + 1 < session.scenario_count:
            session.current_index += 1
            session.scenario_started_at = session.scenario_ended_at = None
            transition(session, State.APPLYING)
        else:
            transition(session, State.POST_QUESTIONS)
    # The rating is committed; now apply the next scenario (or clear after the last one).
    with locked(session_id) as session:
        if session.state == State.APPLYING:
            apply_current_scenario(session)
        elif session.state == State.POST_QUESTIONS and session.station is not None:
            clear_impairment(session)
        return RateResult(rating, True, session)


def _check_rating(session: Session, *, score: Any, position: Any, scenario_id: int | None) -> None:
    """Refuse a rating that is malformed, early, stale, or for another scenario."""
    scale_max = session.study.scale_max
    if isinstance(score, bool) or not isinstance(score, int) or not 1 <= score <= scale_max:
        raise InvalidInput(f"score: a whole number from 1 to {scale_max}", field="score")
    if isinstance(position, bool) or not isinstance(position, int):
        raise InvalidInput("position: the scenario's number in the session", field="position")
    catch_up(session, timezone.now(), renew=False)
    if session.state != State.RATING:
        raise WrongState(
            f"a rating can only be given in state rating; the session is {session.state}"
            + (f" ({session.message.splitlines()[-1]})" if session.state == State.PAUSED else "")
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


def _record(session: Session, *, score: int, idempotency_key: str, source: str) -> Rating:
    """Store the rating of the current scenario with its play period and verified profile."""
    entry = session.order_entry()
    assert entry is not None
    return Rating.objects.create(
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
