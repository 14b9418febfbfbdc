"""A local HTTP listener that counts what reaches it: the attacker's URL of issue 13."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Listener:
    """Answers every request with ``body``; keeps each request's path and bearer header."""

    body: bytes = b"{}"
    url: str = ""
    requests: list[tuple[str, str]] = field(default_factory=list)


@contextmanager
def listening(body: bytes = b"{}") -> Iterator[Listener]:
    listener = Listener(body=body)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            listener.requests.append((self.path, self.headers.get("Authorization", "")))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(listener.body)))
            self.end_headers()
            with contextlib.suppress(OSError):  # the client stopped reading (the size cap)
                self.wfile.write(listener.body)

        do_PUT = do_POST = do_DELETE = do_GET

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    listener.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield listener
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
