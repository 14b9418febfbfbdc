"""Periodic session upkeep (Celery beat): lease heartbeat and expiry of long pauses.

Short tasks on the default queue, never behind an import or analysis (settings
``CELERY_TASK_ROUTES``), within ``QOELAB_UPKEEP_TIME_LIMIT_S``: a run stopped there ends
(a session's locked transaction is rolled back) and the next beat runs again; each run
expires when the next is due (settings ``CELERY_BEAT_SCHEDULE``)."""

from __future__ import annotations

from celery import shared_task

from qoelab.core.background_jobs import upkeep_time_limit
from qoelab.runs import services


@shared_task(name="runs.heartbeat", **upkeep_time_limit())  # type: ignore[untyped-decorator]
def heartbeat() -> int:
    """Advance timers and renew agent leases of every running session."""
    return services.heartbeat_all()


@shared_task(name="runs.expire_sessions", **upkeep_time_limit())  # type: ignore[untyped-decorator]
def expire_sessions() -> list[int]:
    """Clear the impairment of sessions paused longer than QOELAB_PAUSE_TIMEOUT_SECONDS."""
    return services.expire_sessions()
