"""The production stack as separate processes, for test_production_smoke.py.

* its own PostgreSQL database (``qoelab_smoke_<random>`` on the server of DATABASE_URL,
  dropped afterwards) and its own pair of Redis databases (claimed, emptied before and
  after), so it never touches another suite's data — nor another smoke run's;
* gunicorn (deploy/gunicorn.conf.py), Celery workers and the dry-run netem agent
  (deploy/agent-dry-run.sh), each a subprocess in its own process group with its log in
  the test's directory; stopped by PID (process group) whatever happens.

Without DATABASE_URL / CELERY_BROKER_URL the local defaults are tried
(postgres://postgres@127.0.0.1:5432/postgres, redis://127.0.0.1:6379/0). A missing or
non-PostgreSQL/Redis service skips the test, or fails it with QOELAB_STRICT=1 (CI).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
MANAGE = REPO / "backend" / "manage.py"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/postgres"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/0"
#: Pairs of Redis database numbers (broker, results) a smoke run may claim.
REDIS_DB_PAIRS = ((10, 11), (12, 13), (14, 15))
REDIS_CLAIM_KEY = "qoelab-smoke:claim"
#: Variables of the calling environment that must not leak into the stack's processes.
FOREIGN_PREFIXES = ("DATABASE_URL", "CELERY_", "DJANGO_", "QOELAB_", "GUNICORN_", "NETEM_AGENT_")


def require(condition: bool, reason: str) -> None:
    """Skip — or, with QOELAB_STRICT=1 as in CI, fail — when a prerequisite is missing."""
    if condition:
        return
    if os.environ.get("QOELAB_STRICT") == "1":
        pytest.fail(f"required in strict mode (QOELAB_STRICT=1): {reason}")
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(what: str, condition: Callable[[], Any], timeout: float, interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


# --- PostgreSQL and Redis --------------------------------------------------------------------


@dataclass
class Services:
    database_url: str  # the server's URL with the smoke database's name
    broker_url: str
    result_url: str
    database: str
    admin_url: str  # where CREATE/DROP DATABASE are sent
    redis_dbs: tuple[int, int] = (0, 0)
    run_id: str = field(default_factory=lambda: secrets.token_hex(4))


def _with_path(url: str, path: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=path, query="", fragment=""))


def _redis_client(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=10)


@contextlib.contextmanager
def services() -> Iterator[Services]:
    """An own PostgreSQL database and an own pair of Redis databases, for the duration."""
    database_url = os.environ.get("DATABASE_URL", "").strip() or DEFAULT_DATABASE_URL
    broker_url = os.environ.get("CELERY_BROKER_URL", "").strip() or DEFAULT_BROKER_URL
    require(
        urlsplit(database_url).scheme in {"postgres", "postgresql"},
        f"the production smoke test needs PostgreSQL; DATABASE_URL is {urlsplit(database_url).scheme}://…",
    )
    require(
        urlsplit(broker_url).scheme == "redis",
        f"the production smoke test needs Redis; CELERY_BROKER_URL is {urlsplit(broker_url).scheme}://…",
    )
    import psycopg

    try:
        with psycopg.connect(database_url, connect_timeout=3) as connection:
            connection.execute("SELECT 1")
        postgres_error = ""
    except psycopg.Error as exc:
        postgres_error = str(exc).strip().splitlines()[0]
    require(
        not postgres_error,
        f"no PostgreSQL at {_with_path(database_url, '')} ({postgres_error}); "
        "set DATABASE_URL to a server where this user may create databases",
    )
    try:
        _redis_client(broker_url).ping()
        redis_error = ""
    except Exception as exc:
        redis_error = str(exc)
    require(not redis_error, f"no Redis at {_with_path(broker_url, '')} ({redis_error})")

    run = Services(
        database_url="",
        broker_url="",
        result_url="",
        database="",
        admin_url=database_url,
    )
    run.database = f"qoelab_smoke_{run.run_id}"
    run.database_url = _with_path(database_url, f"/{run.database}")
    run.redis_dbs = _claim_redis(broker_url, run.run_id)
    run.broker_url = _with_path(broker_url, f"/{run.redis_dbs[0]}")
    run.result_url = _with_path(broker_url, f"/{run.redis_dbs[1]}")
    try:
        with psycopg.connect(database_url, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{run.database}"')
        try:
            yield run
        finally:
            with psycopg.connect(database_url, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{run.database}" WITH (FORCE)')
    finally:
        for number in run.redis_dbs:
            _redis_client(_with_path(broker_url, f"/{number}")).flushdb()


def _claim_redis(broker_url: str, run_id: str) -> tuple[int, int]:
    """Claim a free pair of Redis databases (another smoke run may be using one)."""
    for broker_db, result_db in REDIS_DB_PAIRS:
        claim = _redis_client(_with_path(broker_url, f"/{broker_db}"))
        if not claim.set(REDIS_CLAIM_KEY, run_id, nx=True, ex=900):
            continue
        for key in claim.scan_iter(count=1000):  # leftovers of an interrupted run
            if key != REDIS_CLAIM_KEY.encode():
                claim.delete(key)
        _redis_client(_with_path(broker_url, f"/{result_db}")).flushdb()
        return broker_db, result_db
    pytest.fail(f"every Redis database pair {REDIS_DB_PAIRS} is claimed by another smoke run")


# --- processes -------------------------------------------------------------------------------


class Process:
    """One long-running process of the stack, in its own process group, logging to a file."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_dir: Path) -> None:
        self.name = name
        self.argv = argv
        self.env = env
        self.log = log_dir / f"{name}.log"
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> Process:
        with self.log.open("ab") as log:
            self.popen = subprocess.Popen(
                self.argv,
                cwd=REPO,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: pgid == pid
            )
        return self

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def check_alive(self) -> None:
        if not self.alive():
            code = None if self.popen is None else self.popen.returncode
            raise AssertionError(f"{self.name} exited (code {code}):\n{self.tail()}")

    def finish(self, timeout: float = 120) -> None:
        """Wait for a one-shot command; it must succeed."""
        assert self.popen is not None
        code = self.popen.wait(timeout=timeout)
        assert code == 0, f"{self.name} failed (code {code}):\n{self.tail()}"

    def kill_group(self) -> None:
        """SIGKILL the process and every process it started (a crash, power loss)."""
        if self.popen is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(timeout=10)

    def terminate(self, timeout: float = 15.0) -> int:
        """SIGTERM to the main process (warm shutdown); SIGKILL the group after ``timeout``."""
        if self.popen is None:
            return 0
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill_group()
        with contextlib.suppress(ProcessLookupError):  # children left behind, if any
            os.killpg(self.popen.pid, signal.SIGKILL)
        return self.popen.returncode

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def tail(self, lines: int = 80) -> str:
        return "\n".join(self.text().splitlines()[-lines:])


class Stack:
    """Environment, one-shot commands and the processes of one production-mode QoE Lab."""

    def __init__(self, directory: Path, services: Services, **settings: str) -> None:
        self.directory = directory
        self.services = services
        self.logs = directory / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.agent_port = free_port()
        self.agent_url = f"http://127.0.0.1:{self.agent_port}"
        self.agent_token = secrets.token_urlsafe(24)
        inherited = {k: v for k, v in os.environ.items() if not k.startswith(FOREIGN_PREFIXES)}
        self.env = {
            **inherited,
            "PYTHONUNBUFFERED": "1",
            "QOELAB_ENV": "production",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            # As behind nginx: TLS is terminated by the proxy, which says so in a header.
            "DJANGO_SECURE_PROXY_SSL_HEADER": "1",
            "DATABASE_URL": services.database_url,
            "CELERY_BROKER_URL": services.broker_url,
            "CELERY_RESULT_BACKEND": services.result_url,
            "QOELAB_DATA_DIR": str(directory / "data"),
            "QOELAB_STATIC_ROOT": str(directory / "static"),
            "GUNICORN_BIND": f"127.0.0.1:{self.port}",
            "GUNICORN_WORKERS": "2",
            "NETEM_AGENT_PORT": str(self.agent_port),
            "NETEM_AGENT_TOKEN": self.agent_token,
            **settings,
        }
        self.processes: list[Process] = []
        self.commands: list[str] = []
        self.durations: dict[str, float] = {}

    def manage(self, *args: str, timeout: float = 120) -> str:
        argv = [sys.executable, str(MANAGE), *args]
        began = time.monotonic()
        result = subprocess.run(
            argv, cwd=REPO, env=self.env, capture_output=True, text=True, timeout=timeout
        )
        self.durations[args[0]] = round(time.monotonic() - began, 1)
        self.commands.append(f"$ manage.py {' '.join(args)}\n{result.stdout}{result.stderr}")
        assert result.returncode == 0, f"manage.py {' '.join(args)} failed:\n{result.stderr}"
        return result.stdout

    def manage_in_background(self, *args: str) -> Process:
        """A one-shot ``manage.py`` command running beside the next steps; ``finish()`` it."""
        return self.process(args[0], [sys.executable, str(MANAGE), *args])

    def process(self, name: str, argv: list[str], **extra_env: str) -> Process:
        process = Process(name, argv, {**self.env, **extra_env}, self.logs).start()
        self.processes.append(process)
        return process

    def web(self) -> Process:
        return self.process(
            "web",
            [
                str(BIN / "gunicorn"),
                "--config",
                str(REPO / "deploy" / "gunicorn.conf.py"),
                "qoelab.wsgi:application",
            ],
        )

    def agent(self) -> Process:
        return self.process("agent", ["bash", str(REPO / "deploy" / "agent-dry-run.sh")])

    def worker(self, name: str, *, paced: bool = True) -> Process:
        """A Celery worker as the Procfile starts it (one process), named ``name@host``."""
        program = [sys.executable, str(Path(__file__).with_name("paced_worker.py"))]
        celery = program if paced else [str(BIN / "celery")]
        return self.process(
            name,
            [
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
            ],
        )

    def stop_all(self) -> None:
        for process in reversed(self.processes):
            process.terminate(timeout=10)

    def report(self) -> str:
        parts = [*self.commands]
        for process in self.processes:
            parts.append(f"----- {process.name} (pid {process.pid}) {process.log} -----")
            parts.append(process.tail(120))
        return "\n".join(parts)


class Api:
    """HTTP to the web process, as a browser behind the TLS proxy (X-Forwarded-Proto)."""

    def __init__(self, base_url: str, *, auth: tuple[str, str] | None = None, **headers: str):
        self.base_url = base_url
        self.http = requests.Session()
        self.http.headers["X-Forwarded-Proto"] = "https"
        self.http.headers.update(headers)
        if auth is not None:
            self.http.auth = auth

    def call(
        self, method: str, path: str, expect: int | tuple[int, ...] = (200, 201), **kwargs: Any
    ) -> Any:
        response = self.http.request(
            method, self.base_url + path, timeout=30, allow_redirects=False, **kwargs
        )
        expected = expect if isinstance(expect, tuple) else (expect,)
        assert response.status_code in expected, (
            f"{method} {path}: {response.status_code} {response.text[:2000]}"
        )
        return response.json() if response.content else None

    def get(self, path: str, expect: int | tuple[int, ...] = 200, **kwargs: Any) -> Any:
        return self.call("GET", path, expect, **kwargs)

    def post(
        self, path: str, body: Any = None, expect: int | tuple[int, ...] = (200, 201), **kwargs: Any
    ) -> Any:
        if "data" not in kwargs:
            kwargs["json"] = body if body is not None else {}
        return self.call("POST", path, expect, **kwargs)
