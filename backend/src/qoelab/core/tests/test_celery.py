"""A task through the configured Celery broker (Redis in CI), answered by a real worker; the
queues and time limits every task runs with (issue 34)."""

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

from qoelab.celery import app, unknown_queues

#: The tasks of the heavy queue; every other task of QoE Lab is a short one.
HEAVY = {"exports.run_import", "analysis_jobs.run", "datasets.run_import"}


@pytest.fixture
def celery_worker() -> Iterator[None]:
    from celery.contrib.testing.worker import start_worker

    require(
        bool(os.environ.get("CELERY_BROKER_URL")),
        "CELERY_BROKER_URL is not set (CI points it at the local Redis)",
    )
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        yield


@pytest.mark.broker
@pytest.mark.django_db(transaction=True)
def test_ping_task_travels_through_the_broker_to_a_worker(celery_worker: None) -> None:
    from django.contrib.auth import get_user_model

    assert settings.CELERY_TASK_ALWAYS_EAGER is False
    client = Client()  # staff: /healthz shows the checks' details (issue 34)
    client.force_login(get_user_model().objects.create_user("ops", is_staff=True))
    response = client.get("/healthz", {"worker": "1"})
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


def qoelab_tasks() -> dict[str, object]:
    app.loader.import_default_modules()
    return {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}


def test_every_task_has_a_soft_and_a_hard_time_limit_within_the_visibility_timeout() -> None:
    tasks = qoelab_tasks()
    assert set(tasks) >= {*HEAVY, "core.ping", "runs.heartbeat", "runs.expire_sessions"}
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    grace = settings.QOELAB_TASK_KILL_GRACE_S
    for name, task in tasks.items():
        soft, hard = getattr(task, "soft_time_limit", None), getattr(task, "time_limit", None)
        assert soft and hard, f"{name} has no time limits"
        assert soft + grace == hard < visibility, name
        if name not in HEAVY:  # the short tasks (heartbeat, session expiry, ping)
            assert soft == settings.QOELAB_UPKEEP_TIME_LIMIT_S, name


def test_heavy_jobs_have_their_own_queue_and_the_short_tasks_the_default_one() -> None:
    for name in qoelab_tasks():
        queue = app.amqp.router.route({}, name, (), {})["queue"].name
        assert queue == ("heavy" if name in HEAVY else "celery"), name
    # A worker without --queues takes both (the demo, the testkit's workers).
    assert set(app.amqp.queues.consume_from) == {"celery", "heavy"}


def test_periodic_tasks_expire_when_the_next_is_due() -> None:
    """After a worker outage the queue does not replay hours of stale heartbeats."""
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["options"]["expires"] == entry["schedule"], entry


def test_an_unknown_queue_is_named_in_the_refusal() -> None:
    assert unknown_queues(["celery", "heavy"], ["celery", "heavy"]) == ""
    error = unknown_queues(["1"], ["celery", "heavy"])
    assert error.startswith("this worker's queue 1 is not one of QoE Lab's queues (celery, heavy)")
    assert "qoelab-worker@heavy" in error


@pytest.mark.slow
def test_a_worker_with_an_unknown_queue_refuses_to_start() -> None:
    """E.g. a systemd unit still named qoelab-worker@1: it would wait for ever on queue "1"."""
    celery = Path(sys.executable).with_name("celery")
    result = subprocess.run(
        [str(celery), "--app", "qoelab", "worker", "--queues", "celery,1", "--pool", "solo"],
        env={**os.environ, "CELERY_BROKER_URL": "redis://127.0.0.1:9/0"},  # never reached
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert "this worker's queue 1 is not one of QoE Lab's queues" in result.stderr
