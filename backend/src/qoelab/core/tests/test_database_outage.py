"""Issue 13, finding 3: the database going away → 503 JSON with Retry-After, then recovery.

A real PostgreSQL connection failure, no mock: gunicorn serves QoE Lab on a scratch
PostgreSQL database reached through a small TCP forwarder. Closing the forwarder cuts the
server's open database connection and refuses new ones, as a PostgreSQL restart does
(before the fix: 154 HTML 500 pages in 2 s). Reopening it must bring the API back.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests
from django.conf import settings
from qoelab_testkit.prerequisites import require

from qoelab.testing import free_port, wait_for

MANAGE = Path(settings.BACKEND_DIR) / "manage.py"
PASSWORD = "outage-password-1"


def admin_url() -> str:
    """The PostgreSQL server of DATABASE_URL (CI), else the machine's on 127.0.0.1."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        url = "postgresql://postgres@127.0.0.1:5432/postgres"
    return urlunsplit(urlsplit(url)._replace(scheme="postgresql", path="/postgres"))


def with_database(url: str, name: str, host: str | None = None, port: int | None = None) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc
    if host is not None and port is not None:
        credentials = netloc.rpartition("@")[0]
        netloc = f"{credentials}@{host}:{port}" if credentials else f"{host}:{port}"
    return urlunsplit(parts._replace(netloc=netloc, path=f"/{name}"))


def reachable(url: str) -> bool:
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=3):
            return True
    except psycopg.Error:
        return False


@contextmanager
def scratch_database(url: str) -> Iterator[str]:
    """A fresh, empty database on the server of ``url``; dropped afterwards."""
    import psycopg

    name = f"qoelab_outage_{os.getpid()}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield name
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class TcpForwarder:
    """Relays connections from a local port to ``upstream``. :meth:`close` stops listening
    and cuts every relayed connection; :meth:`open` listens again on the same port."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.port = free_port()
        self._listener: socket.socket | None = None
        self._relayed: set[socket.socket] = set()
        self._lock = threading.Lock()

    def open(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, args=(self._listener,), daemon=True).start()

    def close(self) -> None:
        if self._listener is not None:
            with suppress(OSError):
                self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
            self._listener.close()
            self._listener = None
        with self._lock:
            relayed, self._relayed = self._relayed, set()
        for sock in relayed:
            _cut(sock)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self._relayed |= {client, server}
            for source, target in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(source, target), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            _cut(source)
            _cut(target)


def _cut(sock: socket.socket) -> None:
    with suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with suppress(OSError):
        sock.close()


def environment(database_url: str, data_dir: Path) -> dict[str, str]:
    removed = {"DATABASE_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "DJANGO_DEBUG"}
    return {
        **{k: v for k, v in os.environ.items() if k not in removed},
        "DATABASE_URL": database_url,
        "DJANGO_DEBUG": "0",
        "QOELAB_DATA_DIR": str(data_dir),
    }


def manage(env: dict[str, str], *args: str) -> None:
    result = subprocess.run(
        [sys.executable, str(MANAGE), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr


@contextmanager
def gunicorn(env: dict[str, str], log: Path) -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with log.open("ab") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "qoelab.wsgi:application",
                f"--bind=127.0.0.1:{port}",
                "--workers=1",
                "--threads=4",
                "--timeout=60",
            ],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )

    def healthy() -> bool:
        assert process.poll() is None, log.read_text()
        try:
            return requests.get(f"{url}/healthz", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    try:
        wait_for("gunicorn", healthy, timeout=90, interval=0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


@pytest.mark.slow
def test_a_stopped_database_is_a_503_json_with_retry_after_and_the_api_recovers(
    tmp_path: Path,
) -> None:
    server_url = admin_url()
    require(reachable(server_url), f"PostgreSQL is not reachable at {server_url}")
    parts = urlsplit(server_url)
    upstream = (parts.hostname or "127.0.0.1", parts.port or 5432)
    with scratch_database(server_url) as name:
        direct = environment(with_database(server_url, name), tmp_path)
        manage(direct, "migrate", "--noinput", "-v", "0")
        manage(direct, "ensure_demo_user", "--username", "lab", f"--password={PASSWORD}")
        forwarder = TcpForwarder(upstream)
        forwarder.open()
        relayed = environment(
            with_database(server_url, name, "127.0.0.1", forwarder.port), tmp_path
        )
        log = tmp_path / "gunicorn.log"
        try:
            with gunicorn(relayed, log) as url:
                api = requests.Session()
                api.auth = ("lab", PASSWORD)
                assert api.get(f"{url}/api/v1/studies/", timeout=30).status_code == 200

                forwarder.close()  # the database goes away
                answers = []
                for _ in range(3):
                    answers += [
                        api.get(f"{url}/api/v1/studies/", timeout=30),
                        api.post(f"{url}/api/v1/participants/", json={"study": 1}, timeout=30),
                        requests.get(
                            f"{url}/api/v1/participant/sessions/1/",
                            headers={"X-Participant-Token": "t" * 32},
                            timeout=30,
                        ),
                    ]
                check_outage_answers(answers, log.read_text())
                # Paths that need no database still answer as before.
                assert requests.get(f"{url}/api/v1/nothing/", timeout=30).status_code == 404

                forwarder.open()  # the database is back
                wait_for(
                    "the API to answer again",
                    lambda: api.get(f"{url}/api/v1/studies/", timeout=30).status_code == 200,
                    timeout=30,
                    interval=0.5,
                )
        finally:
            forwarder.close()


def check_outage_answers(answers: list[Any], log: str) -> None:
    statuses = [answer.status_code for answer in answers]
    assert statuses == [503] * len(answers), [(a.status_code, a.text[:300]) for a in answers]
    for answer in answers:
        assert answer.headers["Content-Type"] == "application/json"
        assert answer.headers["Retry-After"] == "5"
        body = answer.json()
        assert body["detail"] == "The database is unavailable; retry in a few seconds."
        assert body["request_id"] == answer.headers["X-Request-ID"]
        assert "Traceback" not in answer.text
        # The server logged the failure with its traceback, under the same id.
        assert f"[{body['request_id']}]: Database unavailable" in log
    assert "OperationalError" in log or "InterfaceError" in log
