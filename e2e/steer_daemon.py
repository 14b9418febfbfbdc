"""A real ``qoe-steer run`` daemon for the browser tests and `make screenshots` (issue 33).

It runs with the dry-run actuator and injected measurements (``--measurements-from -``:
a JSON line per 0.2 s on its stdin), so its decisions are its own: the example policy
(fixtures/policies/dissertation_shape.policy.json, cloud-gaming.fast: delay ≤ 72.7 ms per
direction) is evaluated by the daemon; ``Daemon.a_delay_ms`` is what the test changes.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Any

from live_server import REPO
from qoelab_testkit.waiting import free_port

TOKEN = "e2e-steer-status-token-000001"
POLICY = REPO / "fixtures" / "policies" / "dissertation_shape.policy.json"
QOE_STEER = REPO / ".venv" / "bin" / "qoe-steer"
TIMEOUT_MS = 30_000

CONFIG = """
[policy]
source = "{policy}"
[probe]
window_s = 1.0
stale_after_s = 2.0
[decision]
dwell_s = 0.5
hysteresis = 0.2
evaluate_every_s = 0.05
[actuator]
kind = "dry-run"
deadline_s = 1.0
retries = 2
confirm_delay_s = 0.02
[status]
listen = "127.0.0.1:{port}"
token = "{token}"
[[path]]
id = "a"
probe_host = "127.0.0.1"
probe_port = 40001
port = "1"
[[path]]
id = "b"
probe_host = "127.0.0.1"
probe_port = 40002
port = "2"
[[flow]]
id = "game"
class = "cloud-gaming.fast"
match = {{ udp_dst = 50000 }}
initial_path = "a"
"""


def measurement_line(a_upstream_delay_ms: float) -> str:
    def path(path_id: str, up: float, down: float) -> dict[str, Any]:
        return {
            "id": path_id,
            "upstream": {"delay_ms": up, "loss_pct": 0.0, "jitter_ms": 1.0},
            "downstream": {"delay_ms": down, "loss_pct": 0.0, "jitter_ms": 1.0},
            "n": 50,
        }

    return json.dumps({"paths": [path("a", a_upstream_delay_ms, 20.0), path("b", 25.0, 25.0)]})


class Daemon:
    """``qoe-steer run`` fed live measurements; ``a_delay_ms`` is path a's upstream delay."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = tmp / "steer.toml"
        config.write_text(CONFIG.format(policy=POLICY, port=self.port, token=TOKEN))
        self.log = tmp / "qoe-steer.log"
        self.a_delay_ms = 20.0
        self._stop = threading.Event()
        with self.log.open("wb") as log:
            self.popen = subprocess.Popen(
                [str(QOE_STEER), "run", "--config", str(config), "--measurements-from", "-"],
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ},
                start_new_session=True,
            )
        self._feeder = threading.Thread(target=self._feed, daemon=True)
        self._feeder.start()

    def _feed(self) -> None:
        stdin = self.popen.stdin
        assert stdin is not None
        while not self._stop.wait(0.2):
            try:
                stdin.write((measurement_line(self.a_delay_ms) + "\n").encode())
                stdin.flush()
            except (BrokenPipeError, ValueError):
                return

    def stop(self) -> None:
        self._stop.set()
        self._feeder.join(timeout=2)
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=5)
        if self.popen.stdin is not None:
            self.popen.stdin.close()


def register(page: Any, daemon: Daemon, name: str = "Lab steering") -> None:
    """From the console's navigation: register ``daemon`` as a steering service."""
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Steering").click()
    page.get_by_role("heading", name="Steering", exact=True).wait_for()
    form = page.get_by_role("form", name="New steering service")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Status URL").fill(daemon.url)
    form.get_by_label("Status token").fill(TOKEN)
    form.get_by_role("button", name="Add service").click()
