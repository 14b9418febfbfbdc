"""/healthz and the configuration errors of `manage.py` (preflight, bad variables)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client, override_settings

BACKEND_DIR = Path(__file__).resolve().parents[4]


TOKEN = "health-token-for-tests-0123456789"


@pytest.mark.django_db
@override_settings(QOELAB_HEALTH_TOKEN=TOKEN)
def test_healthz_tells_strangers_the_status_only() -> None:
    """Issue 34: anonymous /healthz showed the database's host, port and name, the broker's
    URL and the worker's host name. Now a stranger gets the status alone."""
    for headers in ({}, {"X-Health-Token": "wrong-" + TOKEN}, {"X-Health-Token": ""}):
        response = Client().get("/healthz", headers=headers)
        assert response.status_code == 200, response.content
        assert response.json() == {"status": "ok"}
        assert response["Cache-Control"].startswith("max-age=0")


@pytest.mark.django_db
@override_settings(QOELAB_HEALTH_TOKEN=TOKEN)
def test_healthz_reports_database_and_broker_to_the_token_holder() -> None:
    response = Client().get("/healthz", headers={"X-Health-Token": TOKEN})
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok" and body["version"]
    assert body["database"]["ok"] is True
    assert body["database"]["vendor"] in {"sqlite", "postgresql"}
    assert body["broker"]["ok"] is True


@pytest.mark.django_db
def test_healthz_details_are_for_staff_sessions_not_researchers() -> None:
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    staff = Client()
    staff.force_login(users.create_user("operator", password="operator-pw-1", is_staff=True))
    researcher = Client()
    researcher.force_login(users.create_user("researcher", password="researcher-pw-1"))
    assert staff.get("/healthz").json()["database"]["ok"] is True
    assert researcher.get("/healthz").json() == {"status": "ok"}
    # No token configured (the default): a sent one opens nothing.
    assert Client().get("/healthz", headers={"X-Health-Token": "anything"}).json() == {
        "status": "ok"
    }


@pytest.mark.django_db
@override_settings(
    CELERY_TASK_ALWAYS_EAGER=False,
    CELERY_BROKER_URL="redis://:secret@127.0.0.1:1/0",
    QOELAB_HEALTH_TOKEN=TOKEN,
)
def test_healthz_is_503_degraded_when_the_broker_is_unreachable() -> None:
    anonymous = Client().get("/healthz")
    assert anonymous.status_code == 503
    assert anonymous.json() == {"status": "degraded"}
    for secret in ("127.0.0.1", "redis", "secret", "postgres", "sqlite", "qoelab"):
        assert secret not in anonymous.content.decode()
    response = Client().get("/healthz", headers={"X-Health-Token": TOKEN})
    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "degraded"
    assert body["broker"]["ok"] is False
    assert body["broker"]["url"] == "redis://:***@127.0.0.1:1/0"
    assert body["database"]["ok"] is True


def test_a_short_health_token_is_a_configuration_error() -> None:
    from django.core.exceptions import ImproperlyConfigured

    from qoelab.core.health_access import parse_health_token

    assert parse_health_token("  ") == ""
    assert parse_health_token(f" {TOKEN} ") == TOKEN
    with pytest.raises(ImproperlyConfigured, match="QOELAB_HEALTH_TOKEN is 6 characters long"):
        parse_health_token("secret")


def run_manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    environment.update(env)
    return subprocess.run(
        [sys.executable, str(BACKEND_DIR / "manage.py"), *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=False,
    )


@pytest.mark.slow
def test_unreachable_database_url_names_the_variable() -> None:
    result = run_manage("preflight", DATABASE_URL="postgres://qoelab@127.0.0.1:1/qoelab")
    assert result.returncode != 0
    assert "DATABASE_URL: cannot connect to PostgreSQL database 'qoelab' at 127.0.0.1:1" in (
        result.stderr
    )
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_malformed_database_url_is_a_one_line_configuration_error() -> None:
    result = run_manage("preflight", DATABASE_URL="mysql-ish://nothing")
    assert result.returncode == 2
    assert result.stderr.startswith("Configuration error: DATABASE_URL='mysql-ish://nothing'")
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_production_mode_refuses_to_start_without_a_secret_key() -> None:
    result = run_manage("check", QOELAB_ENV="production", DJANGO_SECRET_KEY="")
    assert result.returncode == 2
    assert "DJANGO_SECRET_KEY is not set" in result.stderr


@pytest.mark.django_db(transaction=True)
def test_anonymous_worker_probes_share_one_ping(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13: each anonymous /healthz?worker=1 queued a Celery task. Now 40 calls, 8 at
    a time, queue one ping (the answer is shared for QOELAB_HEALTH_WORKER_CACHE_SECONDS)."""
    from concurrent.futures import ThreadPoolExecutor

    from django.core.cache import cache

    from qoelab.core import health
    from qoelab.core.tasks import ping

    cache.delete_many([health.WORKER_RESULT_KEY, health.WORKER_PROBE_LOCK])
    sent: list[int] = []
    real_apply_async = ping.apply_async

    def counting_apply_async(*args: object, **kwargs: object) -> object:
        sent.append(1)
        return real_apply_async(*args, **kwargs)

    monkeypatch.setattr(ping, "apply_async", counting_apply_async)

    def probe(_: int) -> tuple[int, dict[str, str]]:
        response = Client().get("/healthz", {"worker": "1"})
        return response.status_code, response.json()

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(probe, range(40)))
    assert len(sent) == 1
    # One probe's answer, shared: in-process it is ok; with CI's broker and no worker here,
    # every caller gets the same "degraded" (strangers see the status only).
    eager = settings.CELERY_TASK_ALWAYS_EAGER
    expected = (200, {"status": "ok"}) if eager else (503, {"status": "degraded"})
    assert answers == [expected] * 40
    cache.delete_many([health.WORKER_RESULT_KEY, health.WORKER_PROBE_LOCK])
