"""gunicorn workers whose own error answers are JSON, like the app's (issue 34, finding 6).

gunicorn refuses a malformed request itself, before Django sees it — a control character
or a bare CR in a header value, an invalid header name, a broken request line, headers
over its limits — and answers with an HTML page (``gunicorn.util.write_error``). Under
/api/ every error is JSON ``{"detail": "..."}`` (docs/api.md, "Errors"), so these workers
answer the same statuses as gunicorn (400, 414, 431, 501, ...) with a JSON body whose
detail names the rule broken, and never echo the request's bytes.

They are gunicorn's own ``gthread`` and ``sync`` workers with ``handle_error`` overridden:
``worker_class`` may name "a subclass of gunicorn.workers.base.Worker" (gunicorn's
settings reference), and deploy/gunicorn.conf.py selects them for GUNICORN_WORKER_CLASS
gthread (the default) and sync. The answer is JSON on every path, not just /api/: when a
header fails to parse, gunicorn has not kept the request's path, and a JSON 400 does a
browser no harm. Logging (a warning per refused request, the access log line) is gunicorn's.
"""

from __future__ import annotations

import json
import re
import ssl
import uuid
from datetime import datetime
from http import HTTPStatus
from typing import Any

from gunicorn import util  # type: ignore[import-untyped]
from gunicorn.http import errors  # type: ignore[import-untyped]
from gunicorn.http.wsgi import Response, default_environ  # type: ignore[import-untyped]
from gunicorn.workers.gthread import ThreadWorker  # type: ignore[import-untyped]
from gunicorn.workers.sync import SyncWorker  # type: ignore[import-untyped]

MALFORMED = "Malformed request, refused before the application read it: "
#: (exception classes, status, detail) in order: the first match answers. ``{cfg.x}`` is
#: gunicorn's setting x. The response-header errors (the application's fault) come before
#: InvalidHeader(Name), of which they are subclasses.
ANSWERS: tuple[tuple[tuple[type[BaseException], ...], int, str], ...] = (
    (
        (errors.InvalidResponseHeader, errors.InvalidResponseHeaderName),
        500,
        "Internal server error: the application sent an invalid response header.",
    ),
    (
        (errors.InvalidHeader,),
        400,
        MALFORMED + "a header{named} is not valid HTTP/1.1 (RFC 9110 §5.5: no control "
        "characters in a value; RFC 9112 §6: one valid Content-Length, a known "
        "Transfer-Encoding).",
    ),
    (
        (errors.InvalidHeaderName,),
        400,
        MALFORMED + "a header name is not an RFC 9110 token (§5.1).",
    ),
    (
        (errors.ObsoleteFolding,),
        400,
        MALFORMED + "a header value is folded over several lines (RFC 9112 §5.2).",
    ),
    (
        (errors.InvalidRequestLine, errors.InvalidRequestMethod, errors.InvalidHTTPVersion),
        400,
        MALFORMED + 'the request line is not "METHOD target HTTP/1.x" (RFC 9112 §3).',
    ),
    (
        (errors.LimitRequestLine,),
        414,
        "The request line is longer than {cfg.limit_request_line} bytes "
        "(gunicorn's limit_request_line).",
    ),
    (
        (errors.LimitRequestHeaders,),
        431,
        "The request headers exceed the server's limits: at most {cfg.limit_request_fields} "
        "fields of at most {cfg.limit_request_field_size} bytes each.",
    ),
    (
        (errors.UnsupportedTransferCoding,),
        501,
        "The request's Transfer-Encoding is not supported (only chunked; RFC 9112 §6.1).",
    ),
    (
        (errors.ExpectationFailed,),
        417,
        "The request's Expect header asks for more than 100-continue (RFC 9110 §10.1.1).",
    ),
    (
        (errors.InvalidChunkSize, errors.ChunkMissingTerminator, errors.InvalidChunkExtension),
        400,
        MALFORMED + "the chunked body is not valid (RFC 9112 §7.1).",
    ),
    (
        (errors.ForbiddenProxyRequest,),
        403,
        "PROXY protocol headers are accepted only from gunicorn's proxy_allow_ips.",
    ),
    ((ssl.SSLError,), 403, "The TLS connection could not be established."),
    (
        (errors.ConfigurationProblem,),
        500,
        "Internal server error: the HTTP server is misconfigured.",
    ),
    ((errors.ParseException,), 400, MALFORMED + "it is not valid HTTP/1.1."),
)
SERVER_ERROR = "Internal server error; quote the request id when reporting it."


#: A header name quoted back: an RFC 9110 token (gunicorn has checked it), not too long.
QUOTABLE_NAME = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]{1,40}")


def error_answer(exc: BaseException, cfg: Any) -> tuple[int, str]:
    """The status and the JSON detail for an exception gunicorn's worker caught."""
    name = getattr(exc, "hdr", None)
    named = f' ("{name}")' if isinstance(name, str) and QUOTABLE_NAME.fullmatch(name) else ""
    for classes, status, detail in ANSWERS:
        if isinstance(exc, classes):
            return status, detail.format(cfg=cfg, named=named)
    return 500, SERVER_ERROR


def json_error_response(status: int, detail: str, request_id: str | None = None) -> bytes:
    """A complete HTTP/1.1 answer with a JSON error body; the connection is closed after it
    (the rest of a malformed request cannot be trusted to frame the next one)."""
    body: dict[str, str] = {"detail": detail}
    extra = ""
    if request_id is not None:
        body["request_id"] = request_id
        extra = f"X-Request-ID: {request_id}\r\n"
    payload = json.dumps(body, ensure_ascii=False).encode()  # JSON is UTF-8 (RFC 8259)
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\n"
        f"{extra}\r\n"
    )
    return head.encode("latin-1") + payload


class JsonErrorsMixin:
    """``handle_error`` of gunicorn's ``Worker`` (gunicorn/workers/base.py, version 27),
    with the same statuses and logging, answering JSON instead of HTML."""

    cfg: Any
    log: Any

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        started = datetime.now()
        addr = addr or ("", -1)  # a unix socket has no peer address
        status, detail = error_answer(exc, self.cfg)
        request_id = None
        if status < 500:
            self.log.warning("Invalid request from ip=%s: %s", addr[0], exc)
        else:
            request_id = uuid.uuid4().hex
            uri = getattr(req, "uri", None) or "(no URI read)"
            self.log.exception("Error handling request %s [%s]", uri, request_id)
        if req is None and isinstance(exc, errors.InvalidHeader | errors.InvalidHeaderName):
            req = getattr(exc, "req", None)  # set for some header errors: the access log
        if req is not None:
            self._log_access(req, client, addr, status, started)
        try:
            util.write_nonblock(client, json_error_response(status, detail, request_id))
        except Exception:  # the client may be gone already; as gunicorn, don't fail here
            self.log.debug("Failed to send error message.")

    def _log_access(self, req: Any, client: Any, addr: Any, status: int, started: Any) -> None:
        environ = default_environ(req, client, self.cfg)
        environ["REMOTE_ADDR"] = addr[0]
        environ["REMOTE_PORT"] = str(addr[1])
        response = Response(req, client, self.cfg)
        response.status = f"{status} {HTTPStatus(status).phrase}"
        response.response_length = 0
        self.log.access(response, req, environ, datetime.now() - started)


class JsonErrorThreadWorker(JsonErrorsMixin, ThreadWorker):  # type: ignore[misc]
    """gunicorn's gthread worker, answering its own errors in JSON."""


class JsonErrorSyncWorker(JsonErrorsMixin, SyncWorker):  # type: ignore[misc]
    """gunicorn's sync worker, answering its own errors in JSON."""
