"""Read a steering service's live state: ``GET <status_url>/v1/status`` with its token.

Every failure becomes a JSON error naming what failed, for the console to show
(:class:`StateUnavailable`): 504 ``timeout`` when the service does not answer within
:data:`STATE_TIMEOUT_S` (per connect and per read); 502 ``refused`` (nothing listens, or
the connection broke), ``tls`` (certificate not trusted), ``unauthorized`` (the service
answered 401/403: the stored token is not its ``[status] token``), ``http_error`` (any
other non-200, redirects included: the token follows no redirect), ``not_json``,
``too_large`` (more than :data:`MAX_STATUS_BYTES`) and ``malformed`` (the document does not
fit the contract; ``field`` names where, :mod:`qoelab.steering.status_document`).
Plain HTTP to another machine is refused before anything is sent, as for stations.
"""

from __future__ import annotations

import json
import time
from typing import Any

import requests
from django.conf import settings

from qoelab.core.capped_http import read_capped
from qoelab.core.errors import ServiceError
from qoelab.stations.agent_tls import ca_bundle_path, plain_http_problem
from qoelab.steering.models import SteeringService
from qoelab.steering.serializers import STATUS_PATH
from qoelab.steering.status_document import StatusDocumentError, validate_status_document

#: Seconds to connect, and seconds between bytes of the answer: the console polls every 2 s.
STATE_TIMEOUT_S = 2.0
#: The most read of an answer (100 events with measurements fit in well under 1 MiB).
MAX_STATUS_BYTES = 2 * 1024 * 1024


class StateUnavailable(ServiceError):
    """The service's state could not be read; ``failure`` says why, ``field`` where."""

    def __init__(self, status: int, failure: str, message: str, field: str | None = None):
        super().__init__(message)
        self.status = status
        self.failure = failure
        self.field = field

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"detail": str(self), "failure": self.failure}
        if self.field is not None:
            body["field"] = self.field
        return body


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _get(service: SteeringService, url: str) -> tuple[int, bytes | None]:
    verify: bool | str = True
    if service.ca_cert:
        verify = str(ca_bundle_path(service.ca_cert + "\n", settings.DATA_DIR))
    try:
        with requests.get(
            url,
            headers={"Authorization": f"Bearer {service.token}", "Accept": "application/json"},
            timeout=(STATE_TIMEOUT_S, STATE_TIMEOUT_S),
            verify=verify,
            allow_redirects=False,
            stream=True,
        ) as response:
            return response.status_code, read_capped(response, MAX_STATUS_BYTES)
    except requests.exceptions.SSLError as exc:
        raise StateUnavailable(
            502, "tls", f"TLS handshake with {url} failed ({str(exc)[-200:]})"
        ) from exc
    except requests.Timeout as exc:
        raise StateUnavailable(
            504,
            "timeout",
            f"the steering service at {url} did not answer within {STATE_TIMEOUT_S:g} s",
        ) from exc
    except requests.RequestException as exc:
        raise StateUnavailable(
            502,
            "refused",
            f"the steering service at {url} is unreachable "
            f"({type(exc).__name__}: connection refused or broken)",
        ) from exc


def fetch_state(service: SteeringService) -> dict[str, Any]:
    """``{"fetched_at_unix", "round_trip_ms", "status"}`` with the validated document."""
    url = f"{service.status_url}{STATUS_PATH}"
    refused = plain_http_problem(service.status_url, settings.QOELAB_AGENT_ALLOW_PLAIN_HTTP)
    if refused:
        raise StateUnavailable(502, "plain_http", refused.replace("agent URL", "status URL"))
    started = time.monotonic()
    code, content = _get(service, url)
    round_trip_ms = (time.monotonic() - started) * 1000.0
    if code in (401, 403):
        raise StateUnavailable(
            502,
            "unauthorized",
            f"the steering service at {url} refused the token (HTTP "
            f"{code}): enter the daemon's [status] token",
        )
    if code != 200:
        raise StateUnavailable(
            502, "http_error", f"the steering service at {url} answered HTTP {code}"
        )
    if content is None:
        raise StateUnavailable(
            502,
            "too_large",
            f"the steering service at {url} answered with more than "
            f"{MAX_STATUS_BYTES // 1024} KiB; the answer was not read",
        )
    try:
        document = json.loads(content, parse_constant=_no_constants)
    except (ValueError, RecursionError):
        raise StateUnavailable(
            502, "not_json", f"the steering service at {url} answered with non-JSON"
        ) from None
    try:
        status = validate_status_document(document)
    except StatusDocumentError as exc:
        raise StateUnavailable(
            502,
            "malformed",
            f"the status document of {url} does not fit the qoe-steer contract: {exc}",
            field=exc.field,
        ) from None
    return {"fetched_at_unix": time.time(), "round_trip_ms": round_trip_ms, "status": status}
