"""/healthz and the configuration errors of `manage.py` (preflight, bad variables)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, override_settings

BACKEND_DIR = Path(__file__).resolve().parents[4]


@pytest.mark.django_db
def test_healthz_reports_database_and_broker() -> None:
    response = Client().get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["database"]["vendor"] in {"sqlite", "postgresql"}
    assert body["broker"]["ok"] is True
    assert response["Cache-Control"].startswith("max-age=0")


@pytest.mark.django_db
@override_settings(
    CELERY_TASK_ALWAYS_EAGER=False, CELERY_BROKER_URL="redis://:secret@127.0.0.1:1/0"
)
def test_healthz_is_503_when_the_broker_is_unreachable() -> None:
    response = Client().get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["broker"]["ok"] is False
    assert body["broker"]["url"] == "redis://:***@127.0.0.1:1/0"
    assert body["database"]["ok"] is True


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
