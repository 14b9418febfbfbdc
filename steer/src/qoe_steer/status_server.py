"""The status endpoint: ``GET /v1/status`` (Bearer token) and ``GET /healthz``.

Answers are JSON; a missing or wrong token is 401 (the token is compared in constant time,
``hmac.compare_digest``), an unknown path 404, another method 405. ``/healthz`` says only
``ok`` (the loop runs) and needs no token.
"""

from __future__ import annotations

import hmac
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from qoe_steer.events import finite


class StatusServer:
    """Serves ``snapshot()`` to holders of ``token`` on ``host:port`` (port 0: any free)."""

    def __init__(
        self, host: str, port: int, token: str, snapshot: Callable[[], dict[str, Any]]
    ) -> None:
        expected = f"Bearer {token}".encode()

        class Handler(BaseHTTPRequestHandler):
            server_version = "qoe-steer"
            sys_version = ""

            def log_message(self, format: str, *args: Any) -> None:
                return  # quiet: the daemon's events are its log

            def _send(self, code: int, body: dict[str, Any], extra: dict[str, str]) -> None:
                data = json.dumps(body, allow_nan=False).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Cache-Control", "no-store")
                for k, v in extra.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                route = self.path.split("?", 1)[0]
                if route == "/healthz":
                    self._send(200, {"status": "ok"}, {})
                elif route == "/v1/status":
                    given = self.headers.get("Authorization", "").encode()
                    if not hmac.compare_digest(given, expected):
                        self._send(
                            401,
                            {"error": "unauthorized", "detail": "a valid Bearer token is required"},
                            {"WWW-Authenticate": 'Bearer realm="qoe-steer"'},
                        )
                        return
                    self._send(200, finite(snapshot()), {})
                else:
                    self._send(404, {"error": "not_found", "detail": route}, {})

            def _not_allowed(self) -> None:
                self._send(
                    405, {"error": "method_not_allowed", "detail": self.command}, {"Allow": "GET"}
                )

            do_POST = do_PUT = do_DELETE = do_PATCH = _not_allowed

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.address: tuple[str, int] = self.httpd.server_address[:2]  # type: ignore[assignment]
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
