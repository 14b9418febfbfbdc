"""Production mode (QOELAB_ENV=production), exercised the way a lab server runs it.

Every test starts real processes (manage.py, gunicorn with deploy/gunicorn.conf.py) with a
clean production environment: SQLite in a temporary directory, no broker (tasks
in-process), so nothing here touches the database or Redis that CI points the other
tests at.
"""

from __future__ import annotations

import gzip
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

BACKEND_DIR = Path(__file__).resolve().parents[4]
REPO_DIR = BACKEND_DIR.parent
GUNICORN_CONFIG = REPO_DIR / "deploy" / "gunicorn.conf.py"
HOST = "qoelab.lab.test"
STARTUP_TIMEOUT_S = 120
# Variables of the developer's or CI's shell that must not leak into the production runs.
INHERITED_CONFIGURATION = {
    "DATABASE_URL",
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
    "QOELAB_DATA_DIR",
    "QOELAB_STATIC_ROOT",
    "DJANGO_DEBUG",
    "DJANGO_SECRET_KEY",
    "DJANGO_ALLOWED_HOSTS",
    "DJANGO_CSRF_TRUSTED_ORIGINS",
    "DJANGO_NUM_PROXIES",
    "QOELAB_CACHE_URL",
    "QOELAB_TRUSTED_PROXIES",
    "QOELAB_HEALTH_TOKEN",
}
#: Production requires a Redis cache URL. Nothing below signs in, so it is never contacted:
#: a port nobody listens on makes any accidental use fail loudly instead of touching CI's.
UNUSED_REDIS_CACHE = "redis://127.0.0.1:1/0"
HEALTH_TOKEN = secrets.token_urlsafe(24)


def production_environment(data_dir: Path, **overrides: str | None) -> dict[str, str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in INHERITED_CONFIGURATION
        and not key.startswith(("DJANGO_SECURE_", "GUNICORN_"))
    }
    environment.update(
        QOELAB_ENV="production",
        QOELAB_DATA_DIR=str(data_dir),
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS=HOST,
        DJANGO_SETTINGS_MODULE="qoelab.settings",
        QOELAB_CACHE_URL=UNUSED_REDIS_CACHE,
    )
    for key, value in overrides.items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    return environment


def manage(environment: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BACKEND_DIR / "manage.py"), *args],
        cwd=BACKEND_DIR,
        env=environment,
        capture_output=True,
        text=True,
        # A hang bound, not a speed target: collectstatic compresses every asset and took
        # over 120 s on a loaded 2-core machine.
        timeout=900,
        check=False,
    )


@pytest.mark.parametrize(
    "missing", ["DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "QOELAB_CACHE_URL"]
)
def test_production_refuses_to_start_without(missing: str, tmp_path: Path) -> None:
    result = manage(production_environment(tmp_path, **{missing: None}), "check")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # one clear line, no traceback
    assert lines[0].startswith("Configuration error: ")
    assert missing in lines[0]
    assert "production mode refuses to start" in lines[0]


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        # Issue 13: a per-process cache gave every gunicorn worker its own sign-in counters.
        ("QOELAB_CACHE_URL", "locmem://", "QOELAB_CACHE_URL='locmem://' is not a Redis URL"),
        ("QOELAB_TRUSTED_PROXIES", "127.0.0.1,nginx", "QOELAB_TRUSTED_PROXIES: 'nginx' is not"),
        # Issue 13: NUM_PROXIES=1 believed X-Forwarded-For from anyone who reached gunicorn.
        ("DJANGO_NUM_PROXIES", "1", "DJANGO_NUM_PROXIES is no longer read"),
    ],
)
def test_proxy_and_cache_settings_are_checked_at_start(
    variable: str, value: str, message: str, tmp_path: Path
) -> None:
    result = manage(production_environment(tmp_path, **{variable: value}), "check")
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr


def test_gunicorn_binds_loopback_and_trusts_no_proxy_by_default() -> None:
    """Issue 13: gunicorn listened on 0.0.0.0:8000 behind nginx and trusted 127.0.0.1."""
    script = (
        f"import runpy, json; c = runpy.run_path({str(GUNICORN_CONFIG)!r});"
        "print(json.dumps([c['bind'], c['forwarded_allow_ips']]))"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GUNICORN_", "QOELAB_"))}
    run = subprocess.run([sys.executable, "-c", script], env=clean, capture_output=True, text=True)
    assert json.loads(run.stdout) == ["127.0.0.1:8000", ""], run.stderr
    behind_nginx = {**clean, "QOELAB_TRUSTED_PROXIES": "127.0.0.1"}
    run = subprocess.run(
        [sys.executable, "-c", script], env=behind_nginx, capture_output=True, text=True
    )
    assert json.loads(run.stdout) == ["127.0.0.1:8000", "127.0.0.1"], run.stderr


def test_check_deploy_is_clean(tmp_path: Path) -> None:
    """Every `check --deploy` warning is fixed; the one deliberately silenced is W021."""
    result = manage(production_environment(tmp_path), "check", "--deploy", "--fail-level", "DEBUG")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (1 silenced)." in result.stdout


def test_plain_http_lab_network_is_allowed_but_flagged(tmp_path: Path) -> None:
    """Turning TLS off is a lab's choice; `check --deploy` then says so (and does not fail)."""
    environment = production_environment(
        tmp_path,
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_SECURE_COOKIES="0",
        DJANGO_SECURE_HSTS_SECONDS="0",
    )
    result = manage(environment, "check", "--deploy")
    assert result.returncode == 0, result.stderr
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in result.stderr + result.stdout


def test_bad_integer_names_the_variable(tmp_path: Path) -> None:
    result = manage(production_environment(tmp_path, DJANGO_SECURE_HSTS_SECONDS="a year"), "check")
    assert result.returncode == 2
    assert "DJANGO_SECURE_HSTS_SECONDS='a year' is not an integer." in result.stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Server:
    base_url: str
    log: Path
    static_root: Path

    def get(self, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(self.base_url + path, headers={"Host": HOST, **headers})
        opener = urllib.request.build_opener(NoRedirect)
        try:
            with opener.open(request, timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


@pytest.fixture(scope="module")
def gunicorn_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """collectstatic, then gunicorn (production settings, deploy/gunicorn.conf.py)."""
    data_dir = tmp_path_factory.mktemp("production")
    static_root = data_dir / "collected-static"
    port = free_port()
    environment = production_environment(
        data_dir,
        QOELAB_STATIC_ROOT=str(static_root),
        DJANGO_SECURE_PROXY_SSL_HEADER="1",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        GUNICORN_WORKERS="1",
        QOELAB_HEALTH_TOKEN=HEALTH_TOKEN,
    )
    collected = manage(environment, "collectstatic", "--noinput")
    assert collected.returncode == 0, collected.stderr
    log = data_dir / "gunicorn.log"
    gunicorn = Path(sys.executable).with_name("gunicorn")
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            [str(gunicorn), "-c", str(GUNICORN_CONFIG), "qoelab.wsgi:application"],
            cwd=BACKEND_DIR,
            env=environment,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
    server = Server(f"http://127.0.0.1:{port}", log, static_root)
    try:
        # Bounded, not tight: gunicorn imports Django and the app in every worker, which
        # takes far longer than usual on a machine whose cores other jobs hold.
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if server.get("/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, (
                f"gunicorn did not answer /healthz within {STARTUP_TIMEOUT_S} s"
            )
            time.sleep(0.2)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_gunicorn_serves_healthz(gunicorn_server: Server) -> None:
    status, headers, body = gunicorn_server.get("/healthz")
    assert status == 200
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body) == {"status": "ok"}  # a stranger gets the status only (issue 34)
    status, _, body = gunicorn_server.get("/healthz", **{"X-Health-Token": HEALTH_TOKEN})
    health = json.loads(body)
    assert status == 200 and health["status"] == "ok"
    assert health["database"]["ok"] is True
    assert health["broker"]["mode"] == "in-process"


def test_plain_http_is_redirected_except_healthz(gunicorn_server: Server) -> None:
    status, headers, _ = gunicorn_server.get("/api/v1/studies/")
    assert status == 301
    assert headers["Location"] == f"https://{HOST}/api/v1/studies/"
    assert gunicorn_server.get("/healthz")[0] == 200  # SECURE_REDIRECT_EXEMPT


def test_https_behind_proxy_gets_hsts_and_secure_cookies(gunicorn_server: Server) -> None:
    status, headers, _ = gunicorn_server.get("/admin/login/", **{"X-Forwarded-Proto": "https"})
    assert status == 200
    assert headers["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    cookie = headers["Set-Cookie"]
    assert "csrftoken=" in cookie
    assert "Secure" in cookie


def test_static_files_are_hashed_and_compressed(gunicorn_server: Server) -> None:
    manifest = json.loads((gunicorn_server.static_root / "staticfiles.json").read_text())
    hashed = manifest["paths"]["admin/css/base.css"]
    status, headers, body = gunicorn_server.get(
        f"/static/{hashed}", **{"X-Forwarded-Proto": "https", "Accept-Encoding": "gzip"}
    )
    assert status == 200
    assert headers["Content-Encoding"] == "gzip"
    assert "immutable" in headers["Cache-Control"]
    assert b"body" in gzip.decompress(body)


def test_logs_are_json_lines(gunicorn_server: Server) -> None:
    gunicorn_server.get("/healthz")
    deadline = time.monotonic() + 30  # the access log line is written after the response
    while True:
        lines = [line for line in gunicorn_server.log.read_text().splitlines() if line.strip()]
        if any('"GET /healthz' in line for line in lines) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert {"time", "level", "logger", "message"} <= records[0].keys()
    assert any(
        record["logger"] == "gunicorn.access" and "GET /healthz" in record["message"]
        for record in records
    )
