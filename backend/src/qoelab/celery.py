"""The Celery application, configured from Django settings (CELERY_* variables), and what
the settings take from here: the queues, the routes, the beat schedule and the check of the
time limits against the visibility timeout (issue 34, docs/deploy.md "Queues and time
limits").

A worker consumes the queues named by ``--queues``, or both without it: ``celery`` (the
default: agent lease heartbeat, session expiry, the health probe's ping) and ``heavy``
(imports, analyses), so that a long job never delays a heartbeat. A queue name QoE Lab does
not know (a systemd instance named as before issue 34, ``qoelab-worker@1``) would create a
queue no task is sent to, and the worker would wait for ever: it refuses to start instead.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from celery import Celery, signals
from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qoelab.settings")

DEFAULT_QUEUE = "celery"
HEAVY_QUEUE = "heavy"
#: The tasks of the heavy queue; every other task is a short one of the default queue.
HEAVY_TASKS = ("exports.run_import", "analysis_jobs.run", "datasets.run_import")
#: The settings that hold a task's soft time limit; the hard one is QOELAB_TASK_KILL_GRACE_S later.
TIME_LIMITS = (
    "QOELAB_IMPORT_TIME_LIMIT_S",
    "QOELAB_ANALYSIS_TIME_LIMIT_S",
    "QOELAB_UPKEEP_TIME_LIMIT_S",
)

app = Celery("qoelab")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def queue_settings() -> tuple[str, dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """CELERY_TASK_DEFAULT_QUEUE, CELERY_TASK_QUEUES and CELERY_TASK_ROUTES."""
    queues = {
        name: {"exchange": name, "routing_key": name} for name in (DEFAULT_QUEUE, HEAVY_QUEUE)
    }
    return DEFAULT_QUEUE, queues, {task: {"queue": HEAVY_QUEUE} for task in HEAVY_TASKS}


def beat_schedule(every: Mapping[str, tuple[str, float]]) -> dict[str, dict[str, Any]]:
    """CELERY_BEAT_SCHEDULE of ``{entry: (task, period in s)}``. Each run's message expires
    when the next is due: a worker back after an outage does not replay hours of beats."""
    return {
        entry: {"task": task, "schedule": period, "options": {"expires": period}}
        for entry, (task, period) in every.items()
    }


def check_visibility_timeout(visibility_s: float, settings: Mapping[str, Any]) -> None:
    """Refuse a visibility timeout that is not above the longest hard time limit: Redis
    would hand a job that is still running to a second worker (docs/deploy.md)."""
    grace = float(settings["QOELAB_TASK_KILL_GRACE_S"])
    longest = max(TIME_LIMITS, key=lambda name: float(settings[name]))
    hard = float(settings[longest]) + grace
    if visibility_s <= hard:
        raise ImproperlyConfigured(
            f"CELERY_VISIBILITY_TIMEOUT ({visibility_s:g} s) must be above the longest hard "
            f"time limit, {longest} + QOELAB_TASK_KILL_GRACE_S ({hard:g} s): raise the "
            "timeout or lower the limit."
        )


def unknown_queues(consumed: list[str], known: list[str]) -> str:
    """The error for a worker that would consume a queue no task goes to; empty if none."""
    unknown = sorted(set(consumed) - set(known))
    if not unknown:
        return ""
    return (
        f"this worker's queue {', '.join(unknown)} is not one of QoE Lab's queues "
        f"({', '.join(known)}): start one worker per queue, e.g. --queues heavy, or the "
        "systemd units qoelab-worker@celery and qoelab-worker@heavy (docs/deploy.md)"
    )


@signals.celeryd_after_setup.connect  # type: ignore[untyped-decorator]
def refuse_unknown_queues(sender: str, instance: Any, **_: Any) -> None:
    """Stop a worker started with an unknown queue (exit code 2, the reason on stderr)."""
    error = unknown_queues(
        list(instance.app.amqp.queues.consume_from), list(instance.app.conf.task_queues or [])
    )
    if error:
        print(f"qoelab worker {sender}: {error}", file=sys.stderr)
        raise SystemExit(2)
