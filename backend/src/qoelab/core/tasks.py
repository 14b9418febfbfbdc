"""Operational tasks: short, on the default queue, within ``QOELAB_UPKEEP_TIME_LIMIT_S``."""

from __future__ import annotations

import socket
from typing import Any

from celery import shared_task

from qoelab.core.background_jobs import upkeep_time_limit


@shared_task(name="core.ping", **upkeep_time_limit())  # type: ignore[untyped-decorator]
def ping() -> dict[str, Any]:
    """Answer with the worker's host name; /healthz?worker=1 uses it as a worker probe."""
    return {"hostname": socket.gethostname()}
