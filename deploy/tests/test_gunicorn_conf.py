"""deploy/gunicorn.conf.py: worker processes per CPU, threads, override by env; and its
workers' JSON answers to malformed requests, against the real production stack (issue 34).
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import runpy
import socket
from pathlib import Path
from typing import Any

import pytest
from smoke_stack import HEALTH_TOKEN, Stack, services, wait_for

CONF = Path(__file__).resolve().parents[1] / "gunicorn.conf.py"


def settings(monkeypatch: pytest.MonkeyPatch, cpus: int, **env: str) -> dict[str, Any]:
    for name in ("GUNICORN_WORKERS", "GUNICORN_THREADS", "GUNICORN_WORKER_CLASS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(multiprocessing, "cpu_count", lambda: cpus)
    return runpy.run_path(str(CONF))


@pytest.mark.parametrize(("cpus", "workers"), [(1, 2), (2, 3), (4, 5), (7, 8), (32, 8)])
def test_one_threaded_worker_per_cpu_plus_one_at_most_eight(
    monkeypatch: pytest.MonkeyPatch, cpus: int, workers: int
) -> None:
    conf = settings(monkeypatch, cpus)
    assert conf["workers"] == workers
    assert conf["threads"] == 8
    # gunicorn's gthread worker, answering its own errors in JSON (issue 34).
    assert conf["worker_class"] == "qoelab.core.gunicorn_workers.JsonErrorThreadWorker"


def test_the_environment_overrides_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    conf = settings(monkeypatch, 2, GUNICORN_WORKERS="5", GUNICORN_THREADS="4")
    assert conf["workers"] == 5 and conf["threads"] == 4


@pytest.mark.parametrize(
    ("given", "threads", "selected"),
    [
        ("sync", "1", "qoelab.core.gunicorn_workers.JsonErrorSyncWorker"),
        # gunicorn runs "sync" with threads as gthread: so does the JSON variant.
        ("sync", "4", "qoelab.core.gunicorn_workers.JsonErrorThreadWorker"),
        ("gthread", "2", "qoelab.core.gunicorn_workers.JsonErrorThreadWorker"),
        ("gevent", "1", "gevent"),
    ],
)
def test_the_worker_class_answers_malformed_requests_in_json(
    monkeypatch: pytest.MonkeyPatch, given: str, threads: str, selected: str
) -> None:
    conf = settings(monkeypatch, 2, GUNICORN_WORKER_CLASS=given, GUNICORN_THREADS=threads)
    assert conf["worker_class"] == selected


def raw_exchange(port: int, request: bytes) -> tuple[int, dict[str, str], Any]:
    """Send ``request`` as bytes (nothing checks or fixes it) and read the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return int(status_line.split()[1]), headers, json.loads(body)


def app_exchange(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], Any]:
    """A well-formed request (as behind the TLS proxy) whose content the app judges."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers={"X-Forwarded-Proto": "https", **headers})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read())
    finally:
        connection.close()


#: Refused by gunicorn itself: (request bytes, status, words of the JSON detail).
MALFORMED = [
    (b"X-Participant-Token: abc\x00def\r\n", 400, "RFC 9110 §5.5"),
    (b"X-Forwarded-For: 198.51.100.7\rX-Evil: 1\r\n", 400, "RFC 9110 §5.5"),
    (b"Bad Name: x\r\n", 400, "header name is not an RFC 9110 token"),
    (b"Content-Length: 1\r\nContent-Length: 2\r\n", 400, '("CONTENT-LENGTH")'),
    (b"X-Big: " + b"a" * 9000 + b"\r\n", 431, "at most 100 fields of at most 8190 bytes"),
]


@pytest.mark.system
def test_malformed_requests_get_json_from_the_production_stack(tmp_path: Path) -> None:
    """gunicorn's own 400s are JSON; what passes gunicorn but has a control character once
    decoded (an octal escape in a cookie, %00 in the query) is the app's JSON 400; nothing
    is a 5xx, the workers keep serving, and /healthz tells a stranger the status only."""
    with services() as backing:
        stack = Stack(tmp_path, backing)
        try:
            _check_malformed_requests(stack, backing.database)
        except BaseException:
            print(stack.report())
            raise
        finally:
            stack.stop_all()


def _check_malformed_requests(stack: Stack, database: str) -> None:
    stack.manage("migrate", "--noinput")
    web = stack.web()

    def up() -> bool:
        web.check_alive()
        try:
            return app_exchange(stack.port, "/healthz")[0] == 200
        except OSError:
            return False

    wait_for("gunicorn", up, timeout=120)
    start = b"GET /api/v1/participant/sessions/1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    for header, status, words in MALFORMED:
        answer = raw_exchange(stack.port, start + header + b"\r\n")
        assert answer[0] == status, answer
        assert answer[1]["Content-Type"] == "application/json", answer
        assert words in answer[2]["detail"] and "abc" not in answer[2]["detail"], answer
    garbage = raw_exchange(stack.port, b"GARBAGE <html>\r\n\r\n")
    assert garbage[0] == 400 and "<" not in garbage[2]["detail"], garbage
    too_long = raw_exchange(stack.port, b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n")
    assert too_long[0] == 414 and "4094 bytes" in too_long[2]["detail"], too_long

    cookie = 'sessionid="' + "a" * 28 + '\\000"'  # Django unquotes \\000 into U+0000
    status, headers, body = app_exchange(stack.port, "/api/v1/studies/", Cookie=cookie)
    assert status == 400 and headers["X-Request-ID"], body
    assert body["detail"].startswith('The cookie "sessionid" contains the control character')
    status, _, body = app_exchange(stack.port, "/api/v1/studies/?search=a%00b")
    assert status == 400 and 'query parameter "search"' in body["detail"], body

    # The workers survived every one: normal requests are served.
    assert app_exchange(stack.port, "/api/v1/studies/")[0] == 200
    status, _, body = app_exchange(stack.port, "/healthz?worker=1")
    assert status == 503 and body == {"status": "degraded"}  # no Celery worker runs here
    status, _, body = app_exchange(stack.port, "/healthz")
    assert (status, body) == (200, {"status": "ok"})
    status, _, details = app_exchange(stack.port, "/healthz", **{"X-Health-Token": HEALTH_TOKEN})
    assert status == 200 and details["database"]["vendor"] == "postgresql", details
    assert database in json.dumps(details)  # the details name it; the stranger's answer not
    log = web.text()
    assert "Traceback" not in log and "Error handling request" not in log, web.tail()
