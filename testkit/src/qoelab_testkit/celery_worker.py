"""A Celery worker of QoE Lab as the Procfile starts it: one process, one task at a time."""

from __future__ import annotations

import sys
from pathlib import Path

from qoelab_testkit.processes import Process


def worker_argv(name: str, program: list[str] | None = None) -> list[str]:
    """``celery --app qoelab worker`` named ``name@host``, concurrency 1.

    ``program`` replaces the ``celery`` executable (e.g. a wrapper that paces the tasks).
    """
    celery = program or [str(Path(sys.executable).with_name("celery"))]
    return [
        *celery,
        "--app",
        "qoelab",
        "worker",
        "--loglevel",
        "INFO",
        "--concurrency",
        "1",
        "--hostname",
        f"{name}@%h",
    ]


def worker_ready(worker: Process) -> bool:
    """Whether the worker has logged Celery's "ready." line (raises if it exited)."""
    worker.check_alive()
    text = worker.text()
    return "@" in text and " ready." in text
