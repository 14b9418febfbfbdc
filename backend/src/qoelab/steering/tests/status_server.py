"""A real HTTP server in a thread that plays a ``qoe-steer`` status listener for the tests.

It checks the bearer token as the daemon does (401 JSON otherwise) and answers ``GET
/v1/status`` with ``server.body``, after ``server.delay_s``; every request's path and
``Authorization`` header are kept.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOKEN = "steer-status-token-0123456789"


@dataclass
class StatusServer:
    body: bytes = b"{}"
    delay_s: float = 0.0
    token: str = TOKEN
    url: str = ""
    requests: list[tuple[str, str]] = field(default_factory=list)

    def serve(self, document: Any) -> None:
        self.body = json.dumps(document).encode()


@contextmanager
def status_server(document: Any = None) -> Iterator[StatusServer]:
    server_state = StatusServer()
    if document is not None:
        server_state.serve(document)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            auth = self.headers.get("Authorization", "")
            server_state.requests.append((self.path, auth))
            time.sleep(server_state.delay_s)
            if auth != f"Bearer {server_state.token}":
                self._answer(401, b'{"error": "unauthorized"}')
            elif self.path != "/v1/status":
                self._answer(404, b'{"error": "not found"}')
            else:
                self._answer(200, server_state.body)

        def _answer(self, code: int, body: bytes) -> None:
            with suppress(OSError):  # the client gave up (timeout)
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server_state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server_state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
