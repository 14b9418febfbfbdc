"""JSON errors on every path under /api/, with a request id on every response.

Issue 13 (finding 3): oversized bodies were answered with Django's HTML 400 page, unknown
API paths with the HTML 404 page, and a 4.5 s PostgreSQL restart with 154 HTML 500 pages.
The rules (docs/api.md, "Errors"):

* every error under ``/api/`` is JSON ``{"detail": "..."}``; a 5xx adds ``"request_id"``
  and never carries a traceback;
* every response carries ``X-Request-ID`` (the proxy's, when it sends a well-formed one),
  and every log record written while the request runs carries ``request_id``;
* a body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` → 413;
* the database unreachable (``OperationalError``/``InterfaceError``) → 503 with
  ``Retry-After``; a retried request then finds the state as the database last committed
  it (the rating endpoints are idempotent by ``idempotency_key``);
* any other uncaught exception → 500, logged with its traceback and the request id.

:class:`ApiErrorMiddleware` (first in ``MIDDLEWARE``) covers exceptions raised by views in
any ``DEBUG`` mode; the ``handler400/403/404/500`` views (``qoelab.urls``) cover those
raised by other middleware; and a last pass turns any remaining non-JSON error answer under
``/api/`` into the JSON body of its status.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from http import HTTPStatus

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.views import defaults

from qoelab.core.parsers import too_large_message

logger = logging.getLogger("qoelab.api")

API_PREFIX = "/api/"
REQUEST_ID_HEADER = "X-Request-ID"
#: A request id the proxy may pass on: short, printable, no spaces (safe in a log line).
_ACCEPTED_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{8,64}")
#: Seconds a client should wait before retrying after a database outage (503).
RETRY_AFTER_SECONDS = 5

_request_id: ContextVar[str] = ContextVar("qoelab_request_id", default="-")


def current_request_id() -> str:
    """The id of the request being handled in this context ("-" outside one)."""
    return _request_id.get()


class RequestIdLogFilter(logging.Filter):
    """Adds ``request_id`` to every log record (LOGGING filter): the id of the request
    during which it was written, so a 500's logged traceback is found by the id the client
    got."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            # Django logs a 4xx after the middleware has returned, with the request.
            request = getattr(record, "request", None)
            record.request_id = getattr(request, "request_id", None) or _request_id.get()
        return True


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith(API_PREFIX)


def error_body(status: int, detail: str | None = None) -> dict[str, str]:
    """The JSON error body: ``detail``, plus ``request_id`` for a 5xx."""
    body = {"detail": detail or _default_detail(status)}
    if status >= 500:
        body["request_id"] = current_request_id()
    return body


def _default_detail(status: int) -> str:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Error"
    return f"{phrase[0]}{phrase[1:].lower()}."  # DRF's style: "Not found."


def json_error(status: int, detail: str | None = None) -> JsonResponse:
    response = JsonResponse(error_body(status, detail), status=status)
    if status == HTTPStatus.SERVICE_UNAVAILABLE:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def database_unavailable(exc: BaseException) -> bool:
    """Is ``exc`` the database failing (connection refused, dropped, server restarting)?"""
    return isinstance(exc, OperationalError | InterfaceError)


def exception_response(request: HttpRequest, exc: BaseException) -> JsonResponse:
    """The JSON answer to an exception that no view handled; a 5xx is logged (with its
    traceback and the request id), a client error is not."""
    if isinstance(exc, RequestDataTooBig):
        return json_error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, too_large_message())
    if isinstance(exc, Http404):
        return json_error(HTTPStatus.NOT_FOUND, "Not found.")
    if isinstance(exc, PermissionDenied):
        return json_error(HTTPStatus.FORBIDDEN, "You do not have permission to do this.")
    if database_unavailable(exc):
        return _server_error(
            request,
            exc,
            HTTPStatus.SERVICE_UNAVAILABLE,
            "Database unavailable: %s %s → 503",
            "The database is unavailable; retry in a few seconds.",
        )
    return _server_error(
        request,
        exc,
        HTTPStatus.INTERNAL_SERVER_ERROR,
        "Internal Server Error: %s %s",
        "Internal server error; quote the request id when reporting it.",
    )


def _server_error(
    request: HttpRequest, exc: BaseException, status: HTTPStatus, log_format: str, message: str
) -> JsonResponse:
    """Log ``exc`` with its traceback (``log_format`` takes the method and the path) and
    answer ``status`` with ``message``."""
    logger.error(
        log_format,
        request.method,
        request.path,
        exc_info=(type(exc), exc, exc.__traceback__),
        extra={"status_code": int(status), "request_id": current_request_id()},
    )
    return _logged(json_error(status, message))


def _logged(response: JsonResponse) -> JsonResponse:
    """Logged here with the traceback: Django's handler must not log it a second time
    (the flag its own ``log_response`` sets and checks)."""
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


class ApiErrorMiddleware:
    """Request ids everywhere; JSON errors under /api/ (see the module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        given = request.headers.get(REQUEST_ID_HEADER, "")
        request_id = given if _ACCEPTED_REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        request.request_id = request_id  # type: ignore[attr-defined]
        token = _request_id.set(request_id)
        try:
            response = self.get_response(request)
            if is_api(request) and response.status_code >= 400:
                response = _as_json_error(response)
            response[REQUEST_ID_HEADER] = request_id
            return response
        finally:
            _request_id.reset(token)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponseBase | None:
        """A view's uncaught exception under /api/ (DRF re-raises what it does not know)."""
        if not is_api(request):
            return None
        return exception_response(request, exc)


def _as_json_error(response: HttpResponseBase) -> HttpResponseBase:
    """An error answer under /api/ that is not JSON becomes the JSON body of its status
    (e.g. Django's DEBUG pages); a JSON 5xx gains the request id."""
    content_type = response.get("Content-Type", "")
    if not content_type.startswith("application/json"):
        replacement = json_error(response.status_code)
        # Keep what inner middleware set (security headers, Allow, Retry-After, cookies).
        for header, value in response.items():
            if header.lower() not in {"content-type", "content-length", "content-disposition"}:
                replacement[header] = value
        replacement.cookies = response.cookies
        return replacement
    if response.status_code >= 500 and isinstance(response, HttpResponse):
        try:
            body = json.loads(response.content)
        except ValueError:
            return json_error(response.status_code)
        if isinstance(body, dict) and "request_id" not in body:
            body["request_id"] = current_request_id()
            response.content = json.dumps(body).encode()
            if "Content-Length" in response:
                response["Content-Length"] = str(len(response.content))
    return response


# --- handler400/403/404/500 (qoelab.urls): exceptions raised outside views --------------


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponseBase:
    if is_api(request):
        if isinstance(exception, RequestDataTooBig):
            return exception_response(request, exception)
        return json_error(HTTPStatus.BAD_REQUEST, "Bad request.")
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponseBase:
    if is_api(request):
        return json_error(HTTPStatus.FORBIDDEN, "You do not have permission to do this.")
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponseBase:
    if is_api(request):
        return json_error(HTTPStatus.NOT_FOUND, "Not found.")
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponseBase:
    """Django has logged the exception (with the request id, via the log filter)."""
    if is_api(request):
        exc = sys.exc_info()[1]
        if exc is not None and database_unavailable(exc):
            return json_error(
                HTTPStatus.SERVICE_UNAVAILABLE,
                "The database is unavailable; retry in a few seconds.",
            )
        return json_error(
            HTTPStatus.INTERNAL_SERVER_ERROR,
            "Internal server error; quote the request id when reporting it.",
        )
    return defaults.server_error(request)
