"""Operational tasks."""

from __future__ import annotations

import socket
from typing import Any

from celery import shared_task


@shared_task(name="core.ping")  # type: ignore[untyped-decorator]
def ping() -> dict[str, Any]:
    """Answer with the worker's host name; /healthz?worker=1 uses it as a worker probe."""
    return {"hostname": socket.gethostname()}
