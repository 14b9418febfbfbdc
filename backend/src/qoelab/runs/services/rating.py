"""Rating the scenario just played: idempotent, and committed before the next is applied."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from qoelab.ratings.models import Rating
from qoelab.ratings.values import (
    OVERALL,
    ItemError,
    clean_values,
    is_single_overall,
    needs_baseline,
)
from qoelab.runs.models import Session
from qoelab.runs.qc_plan import is_trap, rating_kind
from qoelab.runs.services.errors import InvalidInput, WrongState
from qoelab.runs.services.heartbeat import catch_up
from qoelab.runs.services.impairment import apply_current_scenario, clear_impairment
from qoelab.runs.services.transitions import (
    bump_session_data_version,
    locked,
    save_revision,
    transition,
)
from qoelab.runs.state_machine import State
from qoelab.studies.models import Scenario


@dataclass(frozen=True)
class RateResult:
    rating: Rating
    created: bool
    session: Session


MAX_RESPONSE_MS = 24 * 3600 * 1000


def rate(
    session_id: int,
    *,
    values: Any = None,
    score: Any = None,
    response_ms: Any = None,
    idempotency_key: str,
    position: Any,
    scenario_id: int | None = None,
    source: str,
) -> RateResult:
    """Record the rating of the current scenario; idempotent by ``idempotency_key``.

    ``values`` is ``{item key: number}`` on the study's rating items; the legacy ``score``
    alone stands for ``{"overall": score}`` in a study whose only item is "overall".
    A repeated key with the same values and position returns the stored rating
    (``created=False``); with different ones it is refused. The rating is committed in its
    own transaction before the next scenario is applied, so an agent failure cannot lose it.
    """
    if not isinstance(idempotency_key, str) or not 8 <= len(idempotency_key) <= 100:
        raise InvalidInput("idempotency_key: 8–100 characters", field="idempotency_key")
    if response_ms is not None and (
        isinstance(response_ms, bool)
        or not isinstance(response_ms, int)
        or not 0 <= response_ms <= MAX_RESPONSE_MS
    ):
        raise InvalidInput(
            "response_ms: whole milliseconds from 0 (rating screen shown → submit)",
            field="response_ms",
        )
    with locked(session_id) as session:
        values = _values_of(session, values=values, score=score)
        existing = Rating.objects.filter(session=session, idempotency_key=idempotency_key).first()
        if existing is not None:
            given = (
                {k: v for k, v in values.items() if v is not None}
                if isinstance(values, dict)
                else values
            )
            if existing.values != given or existing.order_index + 1 != position:
                raise WrongState(
                    "this idempotency_key was already used for a different rating "
                    f"({existing.values} for scenario {existing.order_index + 1})",
                    field="idempotency_key",
                )
            return RateResult(existing, False, session)
        _check_rating(session, position=position, scenario_id=scenario_id)
        try:
            items = rated_items(session)
            # Only a DCR item depends on a rated baseline: without one, skip the query.
            cleaned = clean_values(
                items, values, baseline_rated=needs_baseline(items) and baseline_rated(session)
            )
        except ItemError as exc:
            raise InvalidInput(
                str(exc), field=f"values.{exc.item}" if exc.item else "values"
            ) from None
        rating = _record(
            session,
            values=cleaned,
            response_ms=response_ms,
            idempotency_key=idempotency_key,
            source=source,
        )
        if session.current_index + 1 < session.scenario_count:
            session.current_index += 1
            if is_trap(session.order_entry()):
                save_revision(session)  # a trap is rated at once: no new play
            else:
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


def _values_of(session: Session, *, values: Any, score: Any) -> Any:
    """The body's values: ``values``, or the legacy ``score`` as ``{"overall": score}``."""
    if values is not None and score is not None:
        raise InvalidInput("send values or the legacy score, not both", field="score")
    if values is not None:
        return values
    if score is None:
        raise InvalidInput(
            "values: {item key: number} for the study's rating items", field="values"
        )
    if not is_single_overall(session.study.rating_items):
        raise InvalidInput(
            "score: this study rates several items; send values {item key: number}",
            field="score",
        )
    return {OVERALL: score}


def rated_items(session: Session) -> list[dict[str, Any]]:
    """The items the current slot asks: a trap asks the first item only (required)."""
    items: list[dict[str, Any]] = session.study.rating_items
    if is_trap(session.order_entry()):
        return [{**items[0], "required": True}]
    return items


def baseline_rated(session: Session) -> bool:
    """Has a baseline scenario (training or test) been rated earlier in this session?"""
    return Rating.objects.filter(
        session=session, order_index__lt=session.current_index, scenario__is_baseline=True
    ).exists()


def _check_rating(session: Session, *, position: Any, scenario_id: int | None) -> None:
    """Refuse a rating that is early, stale, or for another scenario."""
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


def provenance_of(session: Session) -> dict[str, Any]:
    """The applied scenario's provenance as a rating keeps it (``Rating.provenance``):
    the agent's backend and version, its kernel document, and when a kernel read-back
    verified it (None when nothing was read back from a kernel, e.g. dry-run)."""
    verified = session.applied_verified_at
    return {
        "backend": session.applied_backend,
        "agent_version": session.applied_agent_version,
        "kernel": session.applied_kernel,
        "verified_at": verified.isoformat().replace("+00:00", "Z") if verified else None,
    }


def _record(
    session: Session,
    *,
    values: dict[str, int | float],
    response_ms: int | None,
    idempotency_key: str,
    source: str,
) -> Rating:
    """Store the rating of the current slot with its play period, verified profile and
    times (``since_end_ms``: server time from the end of play to the rating)."""
    entry = session.order_entry()
    assert entry is not None
    now = timezone.now()
    ended = session.scenario_ended_at
    rating = Rating.objects.create(
        session=session,
        scenario_id=entry["scenario"],
        order_index=session.current_index,
        round=entry.get("round", 1),
        values=values,
        training=bool(entry.get("training")),
        kind=rating_kind(entry),
        response_ms=response_ms,
        since_end_ms=max(0, round((now - ended).total_seconds() * 1000)) if ended else None,
        scenario_started_at=session.scenario_started_at,
        scenario_ended_at=ended,
        rated_at=now,
        applied_profile=session.applied_profile,
        provenance=provenance_of(session),
        idempotency_key=idempotency_key,
        source=source,
    )
    # In the rating's transaction: the analysis cache sees the rating and the counter together.
    bump_session_data_version(session)
    return rating
