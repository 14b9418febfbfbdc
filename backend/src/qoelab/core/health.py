"""Health probes for /healthz and ``manage.py preflight``: database, broker, worker."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.utils import Error as DatabaseError

from qoelab.config import describe_database, redact_url


def database_status(alias: str = "default") -> dict[str, Any]:
    """Connect and run ``SELECT 1``; report vendor, target and latency, or the error."""
    connection = connections[alias]
    status: dict[str, Any] = {
        "vendor": connection.vendor,
        "target": describe_database(connection.settings_dict),
    }
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as exc:
        return {**status, "ok": False, "error": _first_line(exc)}
    return {**status, "ok": True, "latency_ms": round((time.perf_counter() - started) * 1e3, 2)}


def broker_status(timeout_s: float = 2.0) -> dict[str, Any]:
    """Reach the Celery broker; with none configured, tasks run in-process."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"ok": True, "mode": "in-process", "detail": "CELERY_BROKER_URL is not set"}
    from qoelab.celery import app

    status: dict[str, Any] = {"mode": "broker", "url": redact_url(settings.CELERY_BROKER_URL)}
    started = time.perf_counter()
    try:
        with app.connection_for_write(settings.CELERY_BROKER_URL) as connection:
            connection.ensure_connection(max_retries=1, timeout=timeout_s)
    except Exception as exc:  # kombu raises transport-specific errors
        return {**status, "ok": False, "error": _first_line(exc)}
    return {**status, "ok": True, "latency_ms": round((time.perf_counter() - started) * 1e3, 2)}


def worker_status(timeout_s: float = 3.0) -> dict[str, Any]:
    """Send the ``core.ping`` task through the broker and wait for a worker's answer."""
    from qoelab.core.tasks import ping

    started = time.perf_counter()
    try:
        answer = ping.apply_async().get(timeout=timeout_s)
    except Exception as exc:  # a timeout or a broker error: no worker answered
        return {"ok": False, "error": _first_line(exc) or type(exc).__name__}
    return {
        "ok": True,
        "hostname": answer["hostname"],
        "round_trip_ms": round((time.perf_counter() - started) * 1e3, 2),
    }


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
