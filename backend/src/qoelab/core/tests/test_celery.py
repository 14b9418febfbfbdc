"""A task through the configured Celery broker (Redis in CI), answered by a real worker."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from qoelab_testkit.prerequisites import require


@pytest.fixture
def celery_worker() -> Iterator[None]:
    from celery.contrib.testing.worker import start_worker

    from qoelab.celery import app

    require(
        bool(os.environ.get("CELERY_BROKER_URL")),
        "CELERY_BROKER_URL is not set (CI points it at the local Redis)",
    )
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        yield


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_ping_task_travels_through_the_broker_to_a_worker(celery_worker: None) -> None:
    assert settings.CELERY_TASK_ALWAYS_EAGER is False
    response = Client().get("/healthz", {"worker": "1"})
    body = response.json()
    assert response.status_code == 200, body
    assert body["broker"]["mode"] == "broker"
    assert body["worker"]["ok"] is True


@pytest.mark.slow
def test_without_a_broker_tasks_run_in_process(tmp_path: Path) -> None:
    """The embedded default of `make demo`: no CELERY_BROKER_URL, tasks run eagerly."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "DATABASE_URL"}
    }
    environment["QOELAB_DATA_DIR"] = str(tmp_path)
    script = (
        "import django; django.setup();"
        "from django.conf import settings; from qoelab.core.tasks import ping;"
        "assert settings.CELERY_TASK_ALWAYS_EAGER;"
        "print(ping.delay().get(timeout=1)['hostname'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        env={**environment, "DJANGO_SETTINGS_MODULE": "qoelab.settings"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == socket.gethostname()
