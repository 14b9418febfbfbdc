"""Health probes for /healthz and ``manage.py preflight``: database, broker, worker."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.db.utils import Error as DatabaseError

from qoelab.celery import app
from qoelab.config import describe_database, redact_url
from qoelab.core.tasks import ping


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
    started = time.perf_counter()
    try:
        # A ping no worker takes within the wait is dropped, not left queued for later.
        answer = ping.apply_async(expires=timeout_s + 1).get(timeout=timeout_s)
    except Exception as exc:  # a timeout or a broker error: no worker answered
        return {"ok": False, "error": _first_line(exc) or type(exc).__name__}
    return {
        "ok": True,
        "hostname": answer["hostname"],
        "round_trip_ms": round((time.perf_counter() - started) * 1e3, 2),
    }


WORKER_RESULT_KEY = "qoelab:healthz:worker-result"
WORKER_PROBE_LOCK = "qoelab:healthz:worker-probe"


def shared_worker_status(timeout_s: float = 3.0) -> dict[str, Any]:
    """The worker probe as an anonymous caller of /healthz?worker=1 may trigger it.

    Issue 13 (finding 6): each call used to queue a ping task. Now the result is kept in the
    shared cache for ``settings.QOELAB_HEALTH_WORKER_CACHE_SECONDS`` and at most one probe is
    in flight across all web processes (a cache lock); a caller that finds a probe running
    waits for its result. So at most one task is queued per cache period and probe timeout,
    however many requests arrive.
    """
    try:
        cached = cache.get(WORKER_RESULT_KEY)
        if cached is not None:
            return {**cached, "cached": True}
        if cache.add(WORKER_PROBE_LOCK, 1, timeout=int(timeout_s) + 2):
            try:
                status = worker_status(timeout_s)
                status["checked_at"] = datetime.now(UTC).isoformat(timespec="seconds")
                cache.set(WORKER_RESULT_KEY, status, settings.QOELAB_HEALTH_WORKER_CACHE_SECONDS)
            finally:
                cache.delete(WORKER_PROBE_LOCK)
            return {**status, "cached": False}
        deadline = time.monotonic() + timeout_s + 1
        while time.monotonic() < deadline:
            time.sleep(0.1)
            cached = cache.get(WORKER_RESULT_KEY)
            if cached is not None:
                return {**cached, "cached": True}
    except Exception as exc:  # the cache (Redis) is down: report it, never probe unguarded
        return {"ok": False, "error": f"cache unavailable: {_first_line(exc)}"}
    return {"ok": False, "error": "another request's worker probe did not finish in time"}


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
