"""OpenAPI description of the participant token authentication."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ParticipantTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "qoelab.runs.views.ParticipantTokenAuthentication"
    name = "participantToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-Participant-Token",
            "description": "The per-session token shown to the researcher (no account).",
        }
