"""Why a session refuses a request: bad input (400) or not possible in its state (409)."""

from __future__ import annotations

from typing import Any

from qoelab.core.errors import ServiceError


class SessionError(ServiceError):
    """A request the session cannot honour; answered as ``{"detail": message, "field": name}``
    (``field`` names the input at fault, or is null)."""

    status = 409

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    def body(self) -> dict[str, Any]:
        return {"detail": str(self), "field": self.field}


class InvalidInput(SessionError):
    status = 400


class WrongState(SessionError):
    status = 409
