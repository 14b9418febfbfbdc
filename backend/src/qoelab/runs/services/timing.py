"""The session's clocks: the agent lease, the pause timeout, the time left in a step."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from qoelab.runs.models import Session
from qoelab.runs.state_machine import State


def lease_seconds() -> float:
    """How long the agent keeps an impairment without a renewal (QOELAB_AGENT_LEASE_SECONDS)."""
    return float(settings.QOELAB_AGENT_LEASE_SECONDS)


def renew_interval() -> timedelta:
    """Renew at a third of the lease, so two missed heartbeats still leave time."""
    return timedelta(seconds=lease_seconds() / 3)


def pause_timeout() -> timedelta:
    return timedelta(seconds=float(settings.QOELAB_PAUSE_TIMEOUT_SECONDS))


def is_training_slot(session: Session, index: int | None = None) -> bool:
    """True for a slot of the training phase (``"training": true`` in its order entry)."""
    entry = session.order_entry(index)
    return bool(entry and entry.get("training"))


def play_seconds(session: Session) -> int:
    """How long the current scenario is played: the training's seconds on a training slot."""
    if is_training_slot(session):
        return int(session.study.training.get("seconds", session.study.seconds_per_scenario))
    return int(session.study.seconds_per_scenario)


def seconds_remaining(session: Session, now: datetime | None = None) -> float | None:
    """Seconds left of free play or of the scenario being played; None in other states."""
    now = now or timezone.now()
    if session.state == State.FREE_PLAY and session.step_started_at:
        total = session.study.free_play_minutes * 60
        return max(0.0, total - (now - session.step_started_at).total_seconds())
    if session.state == State.PLAYING and session.scenario_started_at:
        total = play_seconds(session)
        return max(0.0, total - (now - session.scenario_started_at).total_seconds())
    return None
