"""The OpenAPI schema's error answers, added to every operation in one place.

Issue 13 (finding 3): 51 status codes that operations really return were missing from the
schema. :class:`ErrorDocumentingAutoSchema` (``REST_FRAMEWORK['DEFAULT_SCHEMA_CLASS']``)
adds to each operation the errors that the shared machinery can answer, with the shared
bodies of :mod:`qoelab.core.api_errors` (docs/api.md, "Errors"):

* 400 (``BadRequest``: ``detail`` and/or field errors) — an operation with a request body
  or query parameters;
* 401 and 403 — an operation that needs a login or a participant token; 403 also for every
  unsafe method (CSRF of a signed-in session);
* 404 — a path with parameters (an unknown id, or one the caller may not see);
* 409 — an unsafe method (the current state forbids it);
* 413 and 415 — an operation with a request body (too large; a media type it does not
  parse);
* 401 and 429 — also every operation that accepts HTTP basic auth: wrong credentials are
  a 401 wherever they are sent, and a client or user name out of guessing tries gets a 429
  (qoelab.accounts.throttles);
* 429 — a throttled operation;
* 500 and 503 (``Error`` with ``request_id``; 503 with ``Retry-After``) — every operation.

A status that a view documents itself keeps its body; an error status documented without
a body (e.g. a station check's 502) gets the shared one.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers
from rest_framework.authentication import BasicAuthentication
from rest_framework.permissions import AllowAny

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}

DESCRIPTIONS = {
    400: "Bad request: malformed or invalid input (JSON nested too deep, field errors).",
    401: "Not authenticated (the participant token or the login is missing or wrong).",
    403: "Forbidden: no permission, or the CSRF token of a signed-in session is missing.",
    404: "Not found (or not visible to the caller).",
    409: "Conflict: the current state forbids the request.",
    413: "The request body is larger than the upload limit.",
    415: "Unsupported media type: send application/json.",
    429: "Too many requests (throttled, or too many failed password checks); retry after "
    "Retry-After seconds.",
    500: "Internal server error; the body carries the request id.",
    503: "Service unavailable (the database is unreachable); retry after Retry-After seconds.",
}


class ErrorSerializer(serializers.Serializer[Any]):
    """Every error answer under /api/: ``detail``; a 5xx adds ``request_id``."""

    detail = serializers.CharField(help_text="what went wrong, for people")
    request_id = serializers.CharField(
        required=False,
        help_text="5xx only: the id under which the server logged the failure "
        "(also in the X-Request-ID header)",
    )


class BadRequestSerializer(serializers.Serializer[Any]):
    """A 400: ``{"detail": message}`` (with ``field``, ``line`` where known) or DRF's
    field errors ``{"field name": ["message", …]}``."""

    detail = serializers.CharField(required=False, help_text="what is wrong with the input")


def _retry_after() -> dict[str, Any]:
    return {
        "Retry-After": {
            "schema": {"type": "integer"},
            "description": "seconds to wait before retrying",
        }
    }


class ErrorDocumentingAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema plus the shared error answers (module docstring)."""

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation: dict[str, Any] | None = super().get_operation(*args, **kwargs)
        if operation is None:
            return None
        responses: dict[str, Any] = operation.setdefault("responses", {})
        for status in self.error_statuses(operation):
            self._document(responses, status)
        for code, response in responses.items():  # e.g. a view's own 502
            if code.isdigit() and int(code) >= 400 and not response.get("content"):
                response["content"] = self._error_content(int(code))
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def error_statuses(self, operation: dict[str, Any]) -> list[int]:
        has_body = "requestBody" in operation
        parameters = operation.get("parameters", [])
        in_path = any(parameter.get("in") == "path" for parameter in parameters)
        in_query = any(parameter.get("in") == "query" for parameter in parameters)
        unsafe = self.method in UNSAFE_METHODS
        statuses = [500, 503]
        if has_body or in_query:
            statuses.append(400)
        if self._needs_credentials():
            statuses += [401, 403]
        if unsafe:
            statuses += [403, 409]
        if in_path:
            statuses.append(404)
        if has_body:
            statuses += [413, 415]
        if self.view.get_throttles():
            statuses.append(429)
        if self._checks_passwords():
            statuses += [401, 429]
        return sorted(set(statuses))

    def _checks_passwords(self) -> bool:
        return any(isinstance(a, BasicAuthentication) for a in self.view.get_authenticators())

    def _needs_credentials(self) -> bool:
        return not all(isinstance(p, AllowAny) for p in self.view.get_permissions())

    def _error_content(self, status: int) -> dict[str, Any]:
        serializer = BadRequestSerializer if status == 400 else ErrorSerializer
        schema = self.resolve_serializer(serializer, "response").ref
        return {"application/json": {"schema": schema}}

    def _document(self, responses: dict[str, Any], status: int) -> None:
        response = responses.get(str(status))
        if response is None:
            response = responses[str(status)] = {"description": DESCRIPTIONS[status]}
        if not response.get("content"):
            response["content"] = self._error_content(status)
        if status in {429, 503}:
            response.setdefault("headers", {}).update(_retry_after())
