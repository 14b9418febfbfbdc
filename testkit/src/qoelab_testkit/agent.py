"""A real netem agent (``netem-agent serve``, dry-run backend) for a test: it records the
kernel operations it would make instead of making them, so it runs without root.

The configuration goes to a directory of the caller's (a temporary one), the port is a
free one, and ``start()`` returns once ``/healthz`` answers — polled until a deadline,
never a fixed sleep. ``stop()`` then ``start()`` again restarts it on the same port and
state directory (crash recovery, a rebooted emulator box). The agent runs as
``python -m netem_agent.cli`` of this interpreter: the workspace's root project installs it.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

from qoelab_testkit.processes import Process
from qoelab_testkit.waiting import free_port, wait_for

#: At least 16 characters, as the agent requires of a token.
DEFAULT_TOKEN = "testkit-dry-run-agent-token-0001"
#: Bridge mode: client→server leaves on ``server_iface``, server→client on ``client_iface``.
DEFAULT_CLIENT_IFACE = "eth-client"
DEFAULT_SERVER_IFACE = "eth-server"


def healthy(url: str) -> bool:
    """Whether ``url/healthz`` answers 200 now (one try, one second at most)."""
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=1) as response:
            return bool(response.status == 200)
    except OSError:  # refused, reset, timed out, HTTP error: not (yet) healthy
        return False


class DryRunAgent:
    """``netem-agent serve`` with the dry-run backend, as a subprocess in its own group.

    Use as a context manager (started on entry, stopped on exit) or call ``start()`` and
    ``stop()``. Its log is ``directory/agent.log``.
    """

    def __init__(
        self,
        directory: Path,
        *,
        token: str = DEFAULT_TOKEN,
        lease_seconds: float = 30.0,
        client_iface: str = DEFAULT_CLIENT_IFACE,
        server_iface: str = DEFAULT_SERVER_IFACE,
        start_timeout: float = 30.0,
    ) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = token
        self.client_iface = client_iface
        self.server_iface = server_iface
        self.start_timeout = start_timeout
        self.config = directory / "agent.toml"
        self.config.write_text(
            "\n".join(
                [
                    "[server]",
                    'listen = "127.0.0.1"',
                    f"port = {self.port}",
                    f"token = {json.dumps(token)}",
                    "[topology]",
                    'mode = "bridge"',
                    f"client_iface = {json.dumps(client_iface)}",
                    f"server_iface = {json.dumps(server_iface)}",
                    "[agent]",
                    'backend = "dry-run"',
                    f"state_dir = {json.dumps(str(directory / 'state'))}",
                    f"lease_seconds = {lease_seconds}",
                ]
            )
            + "\n",
            encoding="utf-8",
        )
        self.process = Process(
            "agent",
            [sys.executable, "-m", "netem_agent.cli", "serve", "--config", str(self.config)],
            {**os.environ, "PYTHONUNBUFFERED": "1"},
            directory,
        )
        self.log = self.process.log

    def start(self) -> DryRunAgent:
        """Start the agent and wait until it answers ``/healthz``; raises if it exits."""
        self.process.start()

        def ready() -> bool:
            self.process.check_alive()  # an agent that exited will never answer
            return healthy(self.url)

        try:
            wait_for(f"the dry-run agent at {self.url}", ready, self.start_timeout, 0.05)
        except AssertionError as exc:
            if not self.process.alive():
                raise  # check_alive's message holds the exit code and the log's tail
            self.stop()
            raise AssertionError(f"{exc}:\n{self.process.tail()}") from None
        return self

    def stop(self) -> None:
        """SIGTERM (the agent restores the interfaces), SIGKILL after 10 s. Idempotent."""
        if self.process.alive():
            self.process.terminate(timeout=10)

    def __enter__(self) -> DryRunAgent:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One authorised JSON request to the agent's REST API; its decoded answer."""
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
        """The kernel operations the agent recorded, oldest first (``GET /v1/operations``)."""
        operations: list[dict[str, Any]] = self.request("GET", "/v1/operations")["operations"]
        return operations
