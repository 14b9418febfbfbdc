"""Test helpers shared by the backend's suites: a real netem agent and an agent double.

:class:`DryRunAgent` is the test kit's ``netem-agent serve`` (the real agent, dry-run
backend: it records kernel operations instead of applying them) on a free port.
:class:`AgentDouble` is a tiny stdlib HTTP server that speaks the agent's API but reports
a different installed state — for the fault "the agent reports a different state".
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from qoelab_testkit import agent as kit
from qoelab_testkit.waiting import free_port, wait_for

__all__ = ["AGENT_TOKEN", "AgentDouble", "DryRunAgent", "free_port", "wait_for"]

AGENT_TOKEN = "backend-test-token-0123456789"
UPSTREAM_DEV, DOWNSTREAM_DEV = "eth-server", "eth-client"  # bridge mode: egress devices


class DryRunAgent(kit.DryRunAgent):
    """The test kit's dry-run agent with the backend's token and bridge devices, and the
    profiles it installed read back from its recorded operations."""

    def __init__(self, directory: Path, *, lease_seconds: float = 30.0) -> None:
        super().__init__(
            directory,
            token=AGENT_TOKEN,
            lease_seconds=lease_seconds,
            client_iface=DOWNSTREAM_DEV,
            server_iface=UPSTREAM_DEV,
        )

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
        from netem_profile import DirectionProfile

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
