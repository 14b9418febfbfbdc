"""The backend's client of a station's netem agent (netem-agent/, REST with bearer token).

Every integration detail of the agent API lives in this module:

* ``PUT /v1/profile`` ``{"profile": {...}, "lease_seconds": N}`` → the state read back from
  the kernel (``installed`` per direction, ``complete``, ``problems``);
* ``POST /v1/lease/renew`` ``{"lease_seconds": N}`` — the heartbeat (409 when no profile
  is applied any more, e.g. the lease ran out);
* ``DELETE /v1/profile`` — restore the interfaces; ``GET /v1/profile`` — read back;
* ``GET /healthz`` and ``GET /v1/capabilities`` for the station's health.

Failures are classified for the session state machine: :class:`AgentUnreachable`
(connection refused, timeout, garbage answer), :class:`AgentRejected` (4xx, e.g. a bad
token or a profile the agent refuses), :class:`AgentStateMismatch` (the agent answered,
but what it reports as installed is not what was asked for). The client never trusts an
HTTP 200 alone: :meth:`AgentClient.apply` compares the read-back with the request itself.

Transport (issue 13): an https:// agent is verified against the station's
``agent_ca_cert`` (blank: the system CAs); a failed handshake is :class:`AgentUnreachable`
saying whether the certificate is not trusted or names another host. Plain http:// to a
non-loopback host is refused before anything is sent unless the client allows it
(``QOELAB_AGENT_ALLOW_PLAIN_HTTP``; stations/agent_tls.py).
"""

from __future__ import annotations

import http.cookiejar
import json
import math
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests
from netem_profile import DIRECTIONS as DIRECTIONS  # re-exported: the health check uses it
from netem_profile import DirectionProfile, ProfileError, parse_profile

from qoelab.core.capped_http import read_capped
from qoelab.stations.agent_tls import ca_bundle_path, plain_http_problem, tls_failure_message

#: The profile fields the backend sets; every other field must read back neutral.
SCENARIO_FIELDS = ("delay_ms", "jitter_ms", "loss_pct")
#: Read-back tolerance: netem stores delay in ns and loss as a 32-bit fraction.
DELAY_TOLERANCE_MS = 0.001
LOSS_TOLERANCE_PCT = 1e-6
#: The most the backend reads of an agent's answer; a longer one is refused unread.
MAX_RESPONSE_BYTES = 1024 * 1024
#: The agent backend that records operations instead of applying them to a kernel.
DRY_RUN = "dry-run"


class AgentError(Exception):
    """The agent could not be used; ``str()`` is a message for the researcher."""


class AgentUnreachable(AgentError):
    pass


class AgentRejected(AgentError):
    pass


class AgentStateMismatch(AgentError):
    pass


class LeaseGone(AgentStateMismatch):
    """The agent answered a lease renewal with 409: it holds no profile any more (its lease
    ran out and it restored the interfaces, it restarted, or it was cleared). The agent
    works; only the impairment is gone."""


def neutral_direction() -> dict[str, Any]:
    return DirectionProfile().to_dict()


def expected_profile(profile: dict[str, dict[str, float]]) -> dict[str, dict[str, Any]]:
    """The full profile document the agent should read back for ``profile``."""
    return parse_profile(profile).to_dict()


def validate_profile(profile: dict[str, dict[str, float]]) -> list[dict[str, str]]:
    """Problems the agent would reject the profile for (empty list when it is valid)."""
    try:
        parse_profile(profile)
    except ProfileError as exc:
        return list(exc.errors)
    return []


def _close(field: str, want: Any, got: Any) -> bool:
    if isinstance(want, dict):
        # the Gilbert–Elliott object: its parts are percentages read back like loss_pct
        return isinstance(got, dict) and all(
            _close(f"{field}.{key}", value, got.get(key)) for key, value in want.items()
        )
    if isinstance(want, bool) or isinstance(got, bool) or want is None or got is None:
        return bool(want == got)
    if isinstance(want, int | float) and isinstance(got, int | float):
        tolerance = LOSS_TOLERANCE_PCT if field.endswith("_pct") else DELAY_TOLERANCE_MS
        return math.isfinite(float(got)) and abs(float(want) - float(got)) <= tolerance
    return bool(want == got)


def compare_profiles(want: dict[str, Any], got: Any) -> list[str]:
    """Differences between the expected and the read-back profile, as readable lines."""
    if not isinstance(got, dict):
        return ["the agent reports no installed profile"]
    problems = []
    for direction in DIRECTIONS:
        expected = want.get(direction, {})
        installed = got.get(direction)
        if not isinstance(installed, dict):
            problems.append(f"{direction}: not reported")
            continue
        for field, value in expected.items():
            if not _close(field, value, installed.get(field)):
                problems.append(
                    f"{direction}.{field}: asked for {value!r}, agent reports "
                    f"{installed.get(field)!r}"
                )
    return problems


def summarize(installed: dict[str, Any]) -> dict[str, dict[str, float]]:
    """The scenario fields of a read-back profile (what ratings and exports keep)."""
    return {
        direction: {field: float(installed[direction][field]) for field in SCENARIO_FIELDS}
        for direction in DIRECTIONS
    }


@dataclass(frozen=True)
class AppliedState:
    """A verified installation: the scenario fields and the agent's full answer."""

    profile: dict[str, dict[str, float]]
    installed: dict[str, Any]
    lease_expires_at: str | None
    #: The agent's backend (``dry-run`` records kernel operations instead of running them).
    backend: str | None = None
    #: What the agent read back per direction (qdiscs and netem parameters, or the dry-run
    #: backend's recorded state).
    kernel: dict[str, Any] | None = None
    #: The agent's package version (``netem_agent.__version__``).
    agent_version: str | None = None
    #: True only when the agent says ``kernel`` was dumped from a kernel after the change
    #: (``kernel_source == "read-back"``); a dry-run recording is never a verification.
    kernel_read_back: bool = False


_local = threading.local()


def _session() -> requests.Session:
    """This thread's HTTP session to the agents: connections stay open between calls.

    A new TCP (and TLS) connection per call cost 6–15 ms at p50 and up to 48 ms at p99 per
    switch (docs/performance.md, netem agent). One session per thread, because a
    ``requests.Session`` is not thread-safe; a new one after ``fork`` (Celery, gunicorn),
    so no connection is shared between processes. Cookies are refused: an agent's answer
    must not change the next request.
    """
    session: requests.Session | None = getattr(_local, "session", None)
    if session is None or getattr(_local, "pid", None) != os.getpid():
        session = requests.Session()
        session.cookies.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
        _local.session, _local.pid = session, os.getpid()
    return session


def _drop_session() -> None:
    """Forget this thread's session (its pooled connections may be dead)."""
    session = getattr(_local, "session", None)
    _local.session = None
    if session is not None:
        session.close()


class AgentClient:
    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 5.0,
        ca_cert: str = "",
        ca_dir: Path | None = None,
        allow_plain_http: bool = True,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        #: PEM certificates an https:// agent must chain to ("" = the system CAs), kept as
        #: a file in ``ca_dir`` because requests' ``verify=`` takes a path.
        self.ca_cert = ca_cert.strip()
        self.ca_dir = ca_dir
        self.allow_plain_http = allow_plain_http

    def ca_file(self) -> Path | None:
        """The file holding :attr:`ca_cert` (written on first use), or None."""
        if not self.ca_cert:
            return None
        if self.ca_dir is None:
            raise ValueError("ca_dir is needed with ca_cert")
        return ca_bundle_path(self.ca_cert + "\n", self.ca_dir)

    @classmethod
    def for_station(cls, station: Any, *, timeout: float | None = None) -> AgentClient:
        from django.conf import settings

        return cls(
            station.agent_url,
            station.agent_token,
            timeout=timeout if timeout is not None else settings.QOELAB_AGENT_TIMEOUT,
            ca_cert=station.agent_ca_cert,
            ca_dir=settings.DATA_DIR,
            allow_plain_http=settings.QOELAB_AGENT_ALLOW_PLAIN_HTTP,
        )

    # --- plumbing ----------------------------------------------------------------------
    def _request(self, method: str, path: str, body: Any = None, auth: bool = True) -> Any:
        headers = {"Accept": "application/json"}
        if auth:
            headers["Authorization"] = f"Bearer {self.token}"
        url = f"{self.base_url}{path}"
        refused = plain_http_problem(self.base_url, self.allow_plain_http)
        if refused:
            raise AgentUnreachable(refused)
        try:
            ca_file = self.ca_file()
        except OSError as exc:
            raise AgentUnreachable(
                f"cannot store the station's agent CA certificate under {self.ca_dir}: {exc}"
            ) from exc
        verify: bool | str = str(ca_file) if ca_file is not None else True
        try:
            response, content = self._send(method, url, body, headers, verify)
        except requests.exceptions.SSLError as exc:
            raise AgentUnreachable(tls_failure_message(self.base_url, exc)) from exc
        except requests.Timeout as exc:
            raise AgentUnreachable(
                f"the agent at {self.base_url} did not answer within {self.timeout:g} s"
            ) from exc
        except requests.RequestException as exc:
            hint = ""
            if self.base_url.startswith("http://") and "RemoteDisconnected" in repr(exc):
                # what an HTTPS agent does with a plain-HTTP request
                hint = "; it closed the connection: if it serves HTTPS, use an https:// URL"
            raise AgentUnreachable(
                f"the agent at {self.base_url} is unreachable ({type(exc).__name__}){hint}"
            ) from exc
        if content is None:
            raise AgentUnreachable(
                f"the agent at {self.base_url} answered with more than "
                f"{MAX_RESPONSE_BYTES // 1024} KiB; the answer was not read"
            )
        try:
            data = json.loads(content)
        except (ValueError, RecursionError):  # RecursionError: JSON nested too deep
            data = None
        if response.status_code >= 400:
            reason = data.get("error") if isinstance(data, dict) else None
            # Shown and stored as the station's check message: bounded.
            reason = str(reason or response.reason or "error")[:200]
            message = f"the agent refused {method} {path} (HTTP {response.status_code}: {reason})"
            if response.status_code >= 500:
                # 502 = the agent's own verification failed, 503 = kernel operation failed
                raise AgentStateMismatch(message)
            if response.status_code == 409 and method == "POST" and path == "/v1/lease/renew":
                # the agent's one 409 on a renewal: "no profile is applied; nothing to renew"
                raise LeaseGone(f"lease renewal failed: {message}")
            raise AgentRejected(message)
        if not isinstance(data, dict):
            raise AgentUnreachable(f"the agent at {self.base_url} answered with non-JSON")
        return data

    def _send(
        self, method: str, url: str, body: Any, headers: dict[str, str], verify: bool | str
    ) -> tuple[requests.Response, bytes | None]:
        """One request on this thread's session. A connection error (not a timeout) on a
        kept-open connection is tried once more on a new one: the agent may have closed it
        while idle or restarted. Every agent call is idempotent (the same profile, a lease
        renewal, a read, clearing), so a second try cannot do anything twice."""
        for attempt in (1, 2):
            session = _session()
            try:
                response = session.request(
                    method,
                    url,
                    json=body,
                    headers=headers,
                    timeout=self.timeout,
                    verify=verify,
                    stream=True,
                )
                with response:
                    return response, read_capped(response, MAX_RESPONSE_BYTES)
            except (requests.exceptions.SSLError, requests.Timeout):
                raise  # a second try would not change a certificate, and would double a wait
            except requests.ConnectionError:
                _drop_session()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    # --- API ---------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        data: dict[str, Any] = self._request("GET", "/healthz", auth=False)
        return data

    def capabilities(self) -> dict[str, Any]:
        data: dict[str, Any] = self._request("GET", "/v1/capabilities")
        return data

    def status(self) -> dict[str, Any]:
        data: dict[str, Any] = self._request("GET", "/v1/profile")
        return data

    def apply(self, profile: dict[str, dict[str, float]], lease_seconds: float) -> AppliedState:
        """Install ``profile`` and check the agent's read-back against it."""
        want = expected_profile(profile)
        data = self._request(
            "PUT", "/v1/profile", {"profile": profile, "lease_seconds": lease_seconds}
        )
        if data.get("complete") is False:
            reported = "; ".join(map(str, data.get("problems") or [])) or "incomplete"
            raise AgentStateMismatch(f"the agent reports an incomplete installation: {reported}")
        problems = compare_profiles(want, data.get("installed"))
        if problems:
            raise AgentStateMismatch(
                "the agent reports a different state than requested: " + "; ".join(problems)
            )
        backend, kernel = data.get("backend"), data.get("kernel")
        version = data.get("agent_version")
        backend = backend if isinstance(backend, str) else None
        return AppliedState(
            profile=summarize(data["installed"]),
            installed=data["installed"],
            lease_expires_at=data.get("lease_expires_at"),
            backend=backend,
            kernel=kernel if isinstance(kernel, dict) else None,
            agent_version=version if isinstance(version, str) else None,
            kernel_read_back=(
                data.get("kernel_source") == "read-back" and backend not in (None, DRY_RUN)
            ),
        )

    def renew(self, lease_seconds: float) -> dict[str, Any]:
        try:
            data: dict[str, Any] = self._request(
                "POST", "/v1/lease/renew", {"lease_seconds": lease_seconds}
            )
        except AgentRejected as exc:
            # another refusal (a bad token, a lease longer than the agent allows);
            # a 409, nothing applied any more, is LeaseGone (raised by _request)
            raise AgentStateMismatch(f"lease renewal failed: {exc}") from exc
        return data

    def verify(self, profile: dict[str, dict[str, float]]) -> dict[str, Any]:
        """Read back the installed state and check it still is ``profile``."""
        data = self.status()
        try:
            want = expected_profile(profile)
        except ProfileError as exc:
            raise AgentStateMismatch(f"the verified profile is not valid any more: {exc}") from exc
        problems = compare_profiles(want, data.get("installed"))
        if problems or not data.get("applied", True):
            raise AgentStateMismatch(
                "the agent reports a different state than verified: "
                + ("; ".join(problems) or "no profile applied")
            )
        return data

    def clear(self) -> dict[str, Any]:
        """Restore the interfaces (no impairment); raises unless the agent confirms it."""
        data: dict[str, Any] = self._request("DELETE", "/v1/profile")
        if data.get("restored") is False:
            raise AgentStateMismatch(
                "the agent could not restore the interfaces: "
                + "; ".join(map(str, data.get("left_over") or data.get("errors") or []))
            )
        return data
