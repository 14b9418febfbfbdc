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
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import requests
from qoelab_testkit.celery_worker import worker_argv
from qoelab_testkit.processes import Process as BaseProcess
from qoelab_testkit.services import Services, isolated_services
from qoelab_testkit.waiting import free_port, wait_for

__all__ = [
    "HEALTH_TOKEN",
    "Api",
    "Process",
    "Services",
    "Stack",
    "free_port",
    "services",
    "wait_for",
]

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
MANAGE = REPO / "backend" / "manage.py"
#: Variables of the calling environment that must not leak into the stack's processes.
FOREIGN_PREFIXES = ("DATABASE_URL", "CELERY_", "DJANGO_", "QOELAB_", "GUNICORN_", "NETEM_AGENT_")
#: The stack's QOELAB_HEALTH_TOKEN: sent as X-Health-Token, /healthz answers with details.
HEALTH_TOKEN = secrets.token_urlsafe(24)


@contextlib.contextmanager
def services() -> Iterator[Services]:
    """The smoke run's own PostgreSQL database and pair of Redis databases."""
    with isolated_services("the production smoke test", prefix="qoelab_smoke") as run:
        yield run


class Process(BaseProcess):
    """A process of the stack: started in the repository, with the stack's environment."""

    def __init__(self, name: str, argv: list[str], env: dict[str, str], log_dir: Path) -> None:
        super().__init__(name, argv, env, log_dir, cwd=REPO)


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
            # Production needs a shared cache; the results database holds it here (its keys
            # carry their own prefix).
            "QOELAB_CACHE_URL": services.result_url,
            # The smoke test asks /healthz?worker=1 for each newly started worker: a shared
            # answer must not outlive the worker that gave it.
            "QOELAB_HEALTH_WORKER_CACHE_SECONDS": "1",
            # /healthz shows its details (database, broker, worker) to this token only.
            "QOELAB_HEALTH_TOKEN": HEALTH_TOKEN,
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
        paced_program = [sys.executable, str(Path(__file__).with_name("paced_worker.py"))]
        return self.process(name, worker_argv(name, paced_program if paced else None))

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
