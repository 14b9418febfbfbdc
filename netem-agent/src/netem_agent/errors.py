"""The agent's errors, each with the HTTP status and code the REST API answers with."""

from __future__ import annotations

from typing import Any


class AgentError(Exception):
    status = 500
    code = "internal error"

    def __init__(self, message: str, detail: Any = None) -> None:
        super().__init__(message)
        self.detail = detail

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.code, "message": str(self), "detail": self.detail}


class UnknownInterface(AgentError):
    status = 404
    code = "unknown interface"


class Conflict(AgentError):
    status = 409
    code = "conflict"


class VerificationFailed(AgentError):
    status = 502
    code = "verification failed"


class KernelError(AgentError):
    status = 503
    code = "kernel operation failed"
