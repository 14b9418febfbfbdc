"""Test helpers shared by the backend's suites: a real netem agent, an agent double, a lab.

:class:`DryRunAgent` runs ``netem-agent serve`` (the real agent, ``backend = "dry-run"``:
it records kernel operations instead of applying them) as a subprocess on a free port.
:class:`AgentDouble` is a tiny stdlib HTTP server that speaks the agent's API but reports
a different installed state — for the fault "the agent reports a different state".
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

AGENT_TOKEN = "backend-test-token-0123456789"
UPSTREAM_DEV, DOWNSTREAM_DEV = "eth-server", "eth-client"  # bridge mode: egress devices


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class DryRunAgent:
    """``netem-agent serve`` in dry-run mode, as a subprocess; stop() and start() again."""

    def __init__(self, directory: Path, *, lease_seconds: float = 30.0) -> None:
        self.directory = directory
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = AGENT_TOKEN
        self.config = directory / "agent.toml"
        self.config.write_text(
            "\n".join(
                [
                    "[server]",
                    'listen = "127.0.0.1"',
                    f"port = {self.port}",
                    f'token = "{self.token}"',
                    "[topology]",
                    'mode = "bridge"',
                    f'client_iface = "{DOWNSTREAM_DEV}"',
                    f'server_iface = "{UPSTREAM_DEV}"',
                    "[agent]",
                    'backend = "dry-run"',
                    f'state_dir = "{directory / "state"}"',
                    f"lease_seconds = {lease_seconds}",
                ]
            )
            + "\n",
            encoding="utf-8",
        )
        self.process: subprocess.Popen[bytes] | None = None
        self.log = directory / "agent.log"

    def start(self) -> DryRunAgent:
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "netem_agent.cli", "serve", "--config", str(self.config)],
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"netem-agent exited: {self.log.read_text()}")
            try:
                with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as response:
                    if response.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"netem-agent did not start: {self.log.read_text()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None

    def request(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=data,
            method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            return json.loads(response.read())

    def operations(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.request("GET", "/v1/operations")["operations"]
        return result

    def applied_profiles(self) -> list[dict[str, float]]:
        """Every profile the agent installed, in order, from its recorded netem operations."""
        profiles: list[dict[str, float]] = []
        current: dict[str, float] = {}
        for op in self.operations():
            if op.get("kind") != "netem" or op["op"] not in {"qdisc_add", "qdisc_change"}:
                continue
            prefix = "us" if op["dev"] == UPSTREAM_DEV else "ds"
            params = op["params"]
            current[f"{prefix}_delay_ms"] = params["latency_ns"] / 1e6
            current[f"{prefix}_jitter_ms"] = params["jitter_ns"] / 1e6
            current[f"{prefix}_loss_pct"] = params["loss"] / 2**32 * 100
            if len(current) == 6:
                profiles.append(current)
                current = {}
        return profiles


class AgentDouble:
    """Speaks the agent API but always reports ``reported`` as installed (a liar)."""

    def __init__(self, reported: dict[str, Any]) -> None:
        from netem_agent.profile import DirectionProfile

        neutral = DirectionProfile().to_dict()
        # Like the real agent, report every field of each direction.
        self.reported = {name: {**neutral, **fields} for name, fields in reported.items()}
        self.requests: list[tuple[str, str]] = []
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _answer(self, status: int, body: dict[str, Any]) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                double.requests.append((self.command, self.path))
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path == "/healthz":
                    self._answer(200, {"status": "ok", "version": "double"})
                else:
                    self._answer(
                        200, {"installed": double.reported, "complete": True, "applied": True}
                    )

            def do_PUT(self) -> None:
                self._answer(200, {"installed": double.reported, "complete": True, "problems": []})

            def do_POST(self) -> None:
                self._answer(200, {"lease_seconds": 30})

            def do_DELETE(self) -> None:
                self._answer(200, {"restored": True})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> AgentDouble:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def wait_until(condition: Any, timeout: float = 60.0, interval: float = 0.1) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


def agent_reachable(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=1):
            return True
    except (urllib.error.URLError, OSError):
        return False
