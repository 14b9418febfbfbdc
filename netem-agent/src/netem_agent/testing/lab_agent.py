"""The netem agent as a real process inside the user-mode kernel's router namespace,
configured by file and driven over HTTP from the root namespace (as the backend would)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from netem_agent.testing.lab import MGMT_IP, ROUTER, TOKEN


def write_config(
    path: Path,
    *,
    topology: dict[str, Any],
    port: int = 8787,
    listen: str = MGMT_IP,
    state_dir: str = "/run/agent-state",
    lease: float = 30,
) -> Path:
    lines = [
        "[server]",
        f'listen = "{listen}"',
        f"port = {port}",
        f'token = "{TOKEN}"',
        # The management link is a veth pair inside the test kernel: an isolated cable.
        "allow_plain_http = true",
        "",
        "[topology]",
    ]
    flow = topology.pop("flow", None)
    for k, v in topology.items():
        lines.append(f"{k} = {json.dumps(v)}")
    if flow:
        lines += ["", "[topology.flow]"] + [f"{k} = {json.dumps(v)}" for k, v in flow.items()]
    lines += [
        "",
        "[agent]",
        'backend = "netlink"',
        f"lease_seconds = {lease}",
        f'state_dir = "{state_dir}"',
        "",
    ]
    path.write_text("\n".join(lines))
    return path


class AgentProcess:
    """``netem-agent serve`` running in a namespace, driven over HTTP from the root ns."""

    def __init__(
        self,
        config: Path,
        ns: str = ROUTER,
        host: str = MGMT_IP,
        port: int = 8787,
        log: Path | None = None,
    ) -> None:
        self.config = config
        self.ns = ns
        self.base = f"http://{host}:{port}"
        self.log = log or config.with_suffix(".log")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30) -> None:
        logf = open(self.log, "ab")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                self.ns,
                sys.executable,
                "-m",
                "netem_agent.cli",
                "serve",
                "--config",
                str(self.config),
            ],
            stdout=logf,
            stderr=logf,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"agent exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}"
                )
            try:
                if self.request("GET", "/healthz", auth=False)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("agent did not become healthy")

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        auth: bool = True,
        token: str | None = None,
        raw: bytes | None = None,
        timeout: float = 30,
    ) -> tuple[int, Any]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if auth:
            req.add_header("Authorization", f"Bearer {token or TOKEN}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def put(self, profile: dict[str, Any], lease: float = 60) -> tuple[int, Any]:
        return self.request("PUT", "/v1/profile", {"profile": profile, "lease_seconds": lease})

    def kill(self, sig: int = signal.SIGKILL) -> int:
        assert self.proc is not None
        # `ip netns exec` execs the agent, so the pid is the agent's own
        self.proc.send_signal(sig)
        return int(self.proc.wait(timeout=30))

    def stop(self) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        return self.kill(signal.SIGTERM)
