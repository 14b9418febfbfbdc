"""Service errors: a request the business logic refuses, with the HTTP answer it deserves.

Services raise them; the one DRF exception handler (:func:`qoelab.core.api.exception_handler`)
turns them into JSON responses, so no view catches them. The body is ``{"detail": message}``
plus whatever a subclass adds (the session endpoints' ``field``, the CSV import's ``line``).
Plain exceptions, no DRF: services stay usable from tasks and commands.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Refused; ``status`` is the HTTP status, :meth:`body` the JSON answer."""

    status: int = 409

    def body(self) -> dict[str, Any]:
        return {"detail": str(self)}


class BadRequest(ServiceError):
    """The input cannot be honoured as given (400)."""

    status = 400


class NotFound(ServiceError):
    """The named thing does not exist (404)."""

    status = 404


class Conflict(ServiceError):
    """The current state forbids the request (409)."""

    status = 409


class BadGateway(ServiceError):
    """A service the request depends on (a station's agent) failed (502)."""

    status = 502
