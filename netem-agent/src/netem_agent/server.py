"""REST API (stdlib ``http.server``), the lease watcher and ``serve`` wiring.

Endpoints (all under ``/v1`` need ``Authorization: Bearer <token>``):

* ``GET /healthz`` — liveness, no token needed, reveals nothing about the profile
* ``GET /v1/capabilities`` — interfaces, kernel support, topology
* ``GET /v1/profile`` — the installed state as read back from the kernel
* ``PUT /v1/profile`` — body ``{"profile": {...}, "lease_seconds": 30}``
* ``POST /v1/lease/renew`` — body ``{"lease_seconds": 30}`` (optional) — the heartbeat
* ``DELETE /v1/profile`` — restore the interfaces
* ``GET /v1/operations`` — dry-run backend only: the recorded operations

With ``[server] tls_cert_file``/``tls_key_file`` the API is HTTPS only (TLS >= 1.2); plain
HTTP is served on loopback or with an explicit ``allow_plain_http`` (see config.py).
"""

from __future__ import annotations

import gc
import hmac
import json
import logging
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from netem_profile import ProfileError, parse_profile

from netem_agent import __version__
from netem_agent.agent import Agent
from netem_agent.backends import Backend, DryRunBackend, NetlinkBackend
from netem_agent.config import Config, ConfigError, transport_problem
from netem_agent.errors import AgentError
from netem_agent.state_store import StateStore
from netem_agent.tls import server_context

log = logging.getLogger("netem_agent.server")

MAX_BODY = 64 * 1024
#: A TLS client that does not finish its handshake within this time is dropped.
HANDSHAKE_TIMEOUT = 10.0
#: The longest the lease watcher sleeps (seconds); it wakes earlier for a lease's end.
WATCH_INTERVAL = 60.0


class ApiError(Exception):
    def __init__(self, status: int, error: str, detail: Any = None) -> None:
        super().__init__(error)
        self.status = status
        self.error = error
        self.detail = detail


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class Handler(BaseHTTPRequestHandler):
    server: AgentHTTPServer
    protocol_version = "HTTP/1.1"
    # Headers and body go out as separate writes (separate TLS records): send each at once
    # instead of letting Nagle's algorithm hold the second until the first is acknowledged.
    disable_nagle_algorithm = True
    server_version = f"netem-agent/{__version__}"

    def log_message(self, format: str, *args: Any) -> None:
        if log.isEnabledFor(logging.DEBUG):  # every request passes here: format only if shown
            log.debug("%s - %s", self.address_string(), format % args)

    # --- plumbing --------------------------------------------------------------------
    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body, indent=None, sort_keys=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        if status == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="netem-agent"')
        # Headers and body in ONE write (end_headers() would flush the headers alone): one
        # segment, one system call here and one wake-up of the client instead of two.
        # send_header() collects the header lines in _headers_buffer, which flush_headers()
        # writes out in one call (http.server keeps both since 3.3; typeshed omits it).
        buffer: list[bytes] = self._headers_buffer  # type: ignore[attr-defined]
        buffer += [b"\r\n", data]
        self.flush_headers()

    def _body(self) -> Any:
        length = self.headers.get("Content-Length")
        if length is None:
            if self.headers.get("Transfer-Encoding"):
                raise ApiError(411, "Content-Length required")
            return None
        try:
            n = int(length)
        except ValueError:
            raise ApiError(400, "invalid Content-Length") from None
        if n > MAX_BODY:
            raise ApiError(413, f"body larger than {MAX_BODY} bytes")
        raw = self.rfile.read(n)
        if not raw.strip():
            return None
        try:
            return json.loads(raw, parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError) as e:
            raise ApiError(400, "body is not valid JSON", str(e)) from None

    def _auth(self) -> None:
        token = self.server.token
        header = self.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if not header:
            raise ApiError(
                401, "missing bearer token", "send the header 'Authorization: Bearer <token>'"
            )
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            given.strip().encode(), token.encode()
        ):
            raise ApiError(401, "invalid bearer token")

    def _dispatch(self, method: str) -> None:
        path = self.path.split("?", 1)[0].rstrip("/") or "/"
        try:
            if path == "/healthz" and method == "GET":
                self._send(
                    200,
                    {
                        "status": "ok",
                        "version": __version__,
                        "backend": self.server.agent.backend.name,
                    },
                )
                return
            routes = {
                ("GET", "/v1/capabilities"): self._capabilities,
                ("GET", "/v1/profile"): self._get_profile,
                ("PUT", "/v1/profile"): self._put_profile,
                ("DELETE", "/v1/profile"): self._delete_profile,
                ("POST", "/v1/lease/renew"): self._renew,
                ("GET", "/v1/operations"): self._operations,
            }
            handler = routes.get((method, path))
            if handler is None:
                known = {p for _, p in routes} | {"/healthz"}
                if path in known:
                    raise ApiError(405, f"method {method} not allowed on {path}")
                raise ApiError(404, f"no such endpoint {path}")
            self._auth()
            handler()
        except ApiError as e:
            self._send(e.status, {"error": e.error, "detail": e.detail})
        except AgentError as e:
            self._send(e.status, {"error": f"{e.code}: {e}", "detail": e.detail})
        except Exception as e:  # pragma: no cover - last resort, keep serving
            log.exception("internal error")
            self._send(500, {"error": "internal error", "detail": repr(e)})

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    # --- endpoints ---------------------------------------------------------------------
    def _capabilities(self) -> None:
        self._send(200, self.server.agent.capabilities())

    def _get_profile(self) -> None:
        self._send(200, self.server.agent.status())

    def _lease(self, body: dict[str, Any]) -> float:
        agent = self.server.agent
        value = body.get("lease_seconds", agent.default_lease)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ApiError(400, "lease_seconds must be a number")
        if not 0 < value <= agent.max_lease:
            raise ApiError(400, f"lease_seconds must be > 0 and <= {agent.max_lease:g}")
        return float(value)

    def _put_profile(self) -> None:
        body = self._body()
        if not isinstance(body, dict):
            raise ApiError(400, 'body must be a JSON object {"profile": {...}, "lease_seconds": N}')
        unknown = sorted(set(body) - {"profile", "lease_seconds"})
        if unknown:
            raise ApiError(
                400,
                f"unknown field(s) {unknown} in request body",
                {"allowed": ["profile", "lease_seconds"]},
            )
        if "profile" not in body:
            raise ApiError(400, "missing field 'profile'")
        lease = self._lease(body)
        try:
            profile = parse_profile(body["profile"])
        except ProfileError as e:
            raise ApiError(422, f"invalid profile: {e}", e.errors) from None
        result = self.server.agent.apply(profile, lease)
        self._send(200, result)

    def _renew(self) -> None:
        body = self._body() or {}
        if not isinstance(body, dict) or set(body) - {"lease_seconds"}:
            raise ApiError(400, 'body must be {} or {"lease_seconds": N}')
        lease = self._lease(body)
        result = self.server.agent.renew(lease)
        self._send(200, result)

    def _delete_profile(self) -> None:
        result = self.server.agent.clear("DELETE /v1/profile")
        self._send(200, result)

    def _operations(self) -> None:
        backend = self.server.agent.backend
        if not isinstance(backend, DryRunBackend):
            raise ApiError(404, "operations are only recorded by the dry-run backend")
        self._send(200, {"backend": backend.name, "operations": list(backend.operations)})


class AgentHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        address: tuple[str, int],
        agent: Agent,
        token: str,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.agent = agent
        self.token = token
        self.tls = tls
        self.lease_changed = threading.Event()
        self.watcher: LeaseWatcher | None = None
        agent.on_lease_change = self.lease_updated
        super().__init__(address, Handler)

    def lease_updated(self, deadline: float | None) -> None:
        """Wake the lease watcher only if the lease now ends (``deadline``, agent clock)
        before the watcher looks next.

        The agent calls this under its lock after every apply and renew, which orders it
        with the watcher's own look (see LeaseWatcher.run) without a second lock round
        or clock reading. Waking the watcher on every apply made its thread compete with
        the request's thread for the GIL while the response was being written (in UML:
        milliseconds at the p99).
        """
        looks_at = self.watcher.looks_at if self.watcher is not None else None
        if deadline is not None and (looks_at is None or deadline < looks_at):
            self.lease_changed.set()

    def get_request(self) -> tuple[socket.socket, Any]:
        conn, addr = super().get_request()
        if self.tls is None:
            return conn, addr
        # The handshake runs in the request's own thread (finish_request), so a slow or
        # silent client never blocks accepting the next connection.
        return self.tls.wrap_socket(conn, server_side=True, do_handshake_on_connect=False), addr

    def finish_request(self, request: Any, client_address: Any) -> None:
        if isinstance(request, ssl.SSLSocket):
            try:
                request.settimeout(HANDSHAKE_TIMEOUT)
                request.do_handshake()
                request.settimeout(None)
            except (ssl.SSLError, OSError) as e:
                # e.g. a plain-HTTP client on the HTTPS port, or a client that distrusts us
                log.info("TLS handshake with %s failed: %s", client_address[0], e)
                return
        super().finish_request(request, client_address)


class LeaseWatcher(threading.Thread):
    """Restores the interfaces when the lease runs out.

    It sleeps until the lease's deadline (at most :data:`WATCH_INTERVAL`), not on a short
    period: every wake-up of this thread takes the GIL, and one that lands during a
    request delays its response. ``looks_at`` is when it will look next (agent clock;
    None: only when woken), so that an apply or renew wakes it only for an earlier end.
    """

    def __init__(self, agent: Agent, wake: threading.Event) -> None:
        super().__init__(name="lease-watcher", daemon=True)
        self.agent = agent
        self.wake = wake
        self.stopping = threading.Event()
        self.looks_at: float | None = None

    def run(self) -> None:
        agent = self.agent
        while not self.stopping.is_set():
            with agent.lock:  # the look and its time are set together (see lease_updated)
                remaining = agent.seconds_to_expiry()
                timeout = None if remaining is None else min(WATCH_INTERVAL, remaining + 0.001)
                self.looks_at = None if timeout is None else agent.clock() + timeout
            self.wake.wait(timeout)
            self.wake.clear()
            try:
                agent.check_lease()
            except AgentError:
                log.exception("restore after lease expiry failed; will retry")
                time.sleep(0.5)

    def stop(self) -> None:
        self.stopping.set()
        self.wake.set()


def make_backend(cfg: Config) -> Backend:
    if cfg.backend == "dry-run":
        return DryRunBackend(cfg.topology.interfaces() + cfg.dry_run_interfaces)
    return NetlinkBackend()


def make_agent(cfg: Config, backend: Backend | None = None) -> Agent:
    return Agent(
        cfg.topology,
        backend or make_backend(cfg),
        StateStore(cfg.state_dir),
        default_lease=cfg.lease_seconds,
        max_lease=cfg.max_lease_seconds,
    )


class Service:
    """Agent + HTTP server + lease watcher; usable in-process (tests) or from ``serve``."""

    def __init__(self, cfg: Config, backend: Backend | None = None) -> None:
        if not cfg.token:
            raise ValueError("a bearer token is required (server.token or server.token_file)")
        problem = transport_problem(cfg)
        if problem:
            raise ConfigError(problem)
        tls = None
        if cfg.tls_cert_file is not None and cfg.tls_key_file is not None:
            tls = server_context(cfg.tls_cert_file, cfg.tls_key_file)
        self.cfg = cfg
        self.agent = make_agent(cfg, backend)
        self.recovered = self.agent.recover()
        self.httpd = AgentHTTPServer((cfg.listen, cfg.port), self.agent, cfg.token, tls)
        self.watcher = LeaseWatcher(self.agent, self.httpd.lease_changed)
        self.httpd.watcher = self.watcher
        self._thread: threading.Thread | None = None

    @property
    def scheme(self) -> str:
        return "http" if self.httpd.tls is None else "https"

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.httpd.server_address[:2]
        return str(host), int(port)

    def start(self) -> None:
        # Everything loaded so far (the profile registry, the modules, ...) lives for the whole run:
        # move it out of the collector's reach so full collections stay short and the
        # apply latency has no multi-millisecond GC pauses.
        gc.collect()
        gc.freeze()
        # When a background thread (lease watcher, accept loop) wakes during a request,
        # the two threads meet at the GIL and the waiting one gets it only after the switch
        # interval (default 5 ms): a 5 ms step at the p99 in UML. 0.5 ms bounds that wait;
        # nothing in the agent is CPU-bound enough to suffer from the more frequent hand-off.
        sys.setswitchinterval(0.0005)
        self.watcher.start()
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="http", daemon=True)
        self._thread.start()

    def serve_forever(self) -> None:
        self.watcher.start()
        self.httpd.serve_forever()

    def stop(self, restore: bool = True) -> dict[str, Any] | None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.watcher.stop()
        if restore:
            return self.agent.clear("agent shutdown")
        return None
