"""Issue 34, finding 6: gunicorn answered a malformed request under /api/ with its own HTML
400 page. The workers of deploy/gunicorn.conf.py answer JSON (qoelab.core.gunicorn_workers);
here their ``handle_error`` writes to one end of a socket pair, read at the other. The real
gunicorn is exercised in deploy/tests/test_gunicorn_conf.py."""

from __future__ import annotations

import inspect
import json
import socket
from typing import Any

import pytest
from gunicorn.config import Config
from gunicorn.http import errors

from qoelab.core.gunicorn_workers import (
    JsonErrorSyncWorker,
    JsonErrorThreadWorker,
    error_answer,
)


class RecordingLog:
    def __init__(self) -> None:
        self.lines: list[tuple[str, str]] = []

    def _record(self, level: str) -> Any:
        return lambda message, *args, **kwargs: self.lines.append((level, message % args))

    def __getattr__(self, level: str) -> Any:
        return self._record(level)


def answer(exc: BaseException, worker_class: type = JsonErrorThreadWorker) -> Any:
    """What the worker writes for ``exc``: (status line, headers, body), and its log."""
    worker = object.__new__(worker_class)  # no process: handle_error needs cfg and log only
    worker.cfg = Config()
    worker.log = RecordingLog()
    ours, theirs = socket.socketpair()
    with ours, theirs:
        worker.handle_error(None, ours, ("192.0.2.7", 4711), exc)
        ours.shutdown(socket.SHUT_WR)
        raw = b""
        while chunk := theirs.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in header_lines)
    assert int(headers["Content-Length"]) == len(body)
    return status_line, headers, json.loads(body), worker.log.lines


@pytest.mark.parametrize("worker_class", [JsonErrorThreadWorker, JsonErrorSyncWorker])
def test_a_control_character_in_a_header_is_a_json_400(worker_class: type) -> None:
    status, headers, body, log = answer(errors.InvalidHeader("X-FOO"), worker_class)
    assert status == "HTTP/1.1 400 Bad Request"
    assert headers["Content-Type"] == "application/json"
    assert headers["Connection"] == "close"
    assert body == {
        "detail": "Malformed request, refused before the application read it: a header "
        '("X-FOO") is not valid HTTP/1.1 (RFC 9110 §5.5: no control characters in a value; '
        "RFC 9112 §6: one valid Content-Length, a known Transfer-Encoding)."
    }
    assert log == [("warning", "Invalid request from ip=192.0.2.7: Invalid HTTP Header: 'X-FOO'")]


def test_the_request_is_never_echoed() -> None:
    for exc in (
        errors.InvalidRequestLine("GET /<script>alert(1)</script>"),
        errors.InvalidHeader("<b>name</b>"),
        errors.InvalidHeaderName("Bad Name<script>"),
    ):
        status, _, body, _ = answer(exc)
        assert status == "HTTP/1.1 400 Bad Request"
        assert "<" not in body["detail"] and "script" not in body["detail"]


def test_limits_are_named_with_their_values() -> None:
    status, _, body, _ = answer(errors.LimitRequestLine(9000, 4094))
    assert status == "HTTP/1.1 414 Request-URI Too Long"
    assert body["detail"] == (
        "The request line is longer than 4094 bytes (gunicorn's limit_request_line)."
    )
    status, _, body, _ = answer(errors.LimitRequestHeaders("limit request headers fields"))
    assert status == "HTTP/1.1 431 Request Header Fields Too Large"
    assert "at most 100 fields of at most 8190 bytes each" in body["detail"]


def test_server_faults_are_a_500_with_a_request_id() -> None:
    for exc in (errors.InvalidResponseHeader("X-Bad"), RuntimeError("secret internals")):
        status, headers, body, log = answer(exc)
        assert status == "HTTP/1.1 500 Internal Server Error"
        assert body["request_id"] == headers["X-Request-ID"] and len(body["request_id"]) == 32
        assert "secret" not in json.dumps(body)
        assert log == [
            ("exception", f"Error handling request (no URI read) [{body['request_id']}]")
        ]


def test_every_gunicorn_parse_error_has_its_own_answer() -> None:
    """A parse error of a future gunicorn is still a 400, never a 500."""
    cfg = Config()
    parse_errors = [
        cls
        for _, cls in inspect.getmembers(errors, inspect.isclass)
        if issubclass(cls, errors.ParseException)
    ]
    assert len(parse_errors) > 15
    for cls in parse_errors:
        status, detail = error_answer(cls.__new__(cls), cfg)
        assert detail and ("Internal" in detail) == (status == 500), cls
    assert error_answer(errors.UnsupportedTransferCoding("gzip"), cfg)[0] == 501

    class FutureParseError(errors.ParseException):
        pass

    assert error_answer(FutureParseError(), cfg)[0] == 400
