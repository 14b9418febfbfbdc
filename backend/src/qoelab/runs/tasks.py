"""Periodic session upkeep (Celery beat): lease heartbeat and expiry of long pauses."""

from __future__ import annotations

from celery import shared_task

from qoelab.runs import services


@shared_task(name="runs.heartbeat")  # type: ignore[untyped-decorator]
def heartbeat() -> int:
    """Advance timers and renew agent leases of every running session."""
    return services.heartbeat_all()


@shared_task(name="runs.expire_sessions")  # type: ignore[untyped-decorator]
def expire_sessions() -> list[int]:
    """Clear the impairment of sessions paused longer than QOELAB_PAUSE_TIMEOUT_SECONDS."""
    return services.expire_sessions()
