"""``make demo`` as a new user meets it: the real scripts/demo.sh, on free ports, with its
state in a temporary directory (QOELAB_DEMO_VAR) so that var/ is never touched.

* it serves /healthz and the example study, and its station points at the agent it started;
* a study edit made through the API survives a second start;
* with the agent's default port taken it picks another one, says so, and the station follows
  the demo's own agent (not the process on the default port);
* with an explicitly requested agent port taken it stops at once, naming port and variable.

Every start is a process group of its own (bash, the agent, the web server), stopped by PID
and checked gone; every wait polls until a deadline.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from qoelab_testkit.processes import Process
from qoelab_testkit.waiting import free_port, wait_for

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
#: The demo runs on the embedded defaults: nothing of the caller's configuration leaks in.
FOREIGN_PREFIXES = ("DATABASE_URL", "CELERY_", "DJANGO_", "QOELAB_", "GUNICORN_", "NETEM_AGENT_")
RESEARCHER = ("researcher", "qoelab-demo")  # manage.py ensure_demo_user's defaults
AGENT_TOKEN = "demo-token-not-secret-0001"  # scripts/demo.sh
DEFAULT_AGENT_PORT = 8787
#: Start-up on a loaded CI machine: migrations, the example study, two servers.
START_TIMEOUT = 240.0
BANNER = "QoE Lab is running on"


class Demo:
    """One run of scripts/demo.sh with its state in ``var`` and its output in ``logs``."""

    def __init__(self, var: Path, logs: Path, name: str, **settings: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(FOREIGN_PREFIXES)}
        env.update(PYTHONUNBUFFERED="1", QOELAB_DEMO_VAR=str(var), QOELAB_DEMO_WAIT="180")
        env.update(settings)
        self.var = var
        self.process = Process(name, ["bash", "scripts/demo.sh"], env, logs, cwd=REPO)

    def start(self) -> Demo:
        self.process.start()
        return self

    def wait_banner(self) -> str:
        """Wait for the banner (printed once agent and web server answer); the output."""

        def banner() -> bool:
            self.process.check_alive()  # a demo that stopped will never print it
            return BANNER in self.process.text()

        wait_for("the demo's banner", banner, START_TIMEOUT, 0.2)
        return self.process.text()

    def stop(self) -> None:
        """SIGTERM to the script (it stops its agent and web server), then make sure the
        whole process group is gone."""
        if self.process.popen is None:
            return
        self.process.terminate(timeout=30)  # SIGKILLs the group if it does not finish
        wait_for("the demo's process group to end", lambda: _group_gone(self.process.pid), 15)

    def agent(self) -> tuple[int, int]:
        """(port, pid) of the agent this demo started, from the agent's own start-up line."""
        for line in (self.var / "netem-agent-demo.log").read_text().splitlines():
            if line.startswith("{"):
                record = json.loads(line)
                if "listening" in record:
                    return int(record["listening"].rsplit(":", 1)[1]), int(record["pid"])
        raise AssertionError("the agent's log has no start-up line")


def _group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


@contextlib.contextmanager
def demo(var: Path, logs: Path, name: str, **settings: str) -> Iterator[Demo]:
    run = Demo(var, logs, name, **settings).start()
    try:
        yield run
    finally:
        run.stop()


@contextlib.contextmanager
def listener(port: int) -> Iterator[bool]:
    """Another process's listener on 127.0.0.1:``port``; yields False if one was there."""
    sock = socket.socket()
    try:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            yield False  # already taken by someone else: just as good for the test
            return
        sock.listen()
        yield True
    finally:
        sock.close()


def get(url: str, **kwargs: Any) -> Any:
    response = requests.get(url, timeout=10, **kwargs)
    assert response.status_code == 200, f"GET {url}: {response.status_code} {response.text[:500]}"
    return response.json()


def station(base: str) -> dict[str, Any]:
    stations = get(f"{base}/api/v1/stations/", auth=RESEARCHER)
    assert [s["name"] for s in stations] == ["Seat 1"], stations
    result: dict[str, Any] = stations[0]
    return result


def example_study(base: str) -> dict[str, Any]:
    studies = get(f"{base}/api/v1/studies/", auth=RESEARCHER)
    (study,) = [s for s in studies if s["slug"] == "cloud-gaming-2014"]
    result: dict[str, Any] = study
    return result


def test_demo_serves_keeps_an_edit_and_follows_its_agent(tmp_path: Path) -> None:
    var, logs = tmp_path / "var", tmp_path / "logs"
    web_port, agent_port = free_port(), free_port()
    base = f"http://127.0.0.1:{web_port}"
    with demo(
        var,
        logs,
        "first",
        QOELAB_DEMO_PORT=str(web_port),
        QOELAB_DEMO_AGENT_PORT=str(agent_port),
    ) as first:
        output = first.wait_banner()
        assert f"{BANNER} {base}/" in output
        assert get(f"{base}/healthz")["status"] == "ok"
        assert get(f"http://127.0.0.1:{agent_port}/healthz")["backend"] == "dry-run"
        assert first.agent()[0] == agent_port
        assert station(base)["agent_url"] == f"http://127.0.0.1:{agent_port}"
        study = example_study(base)
        edit = requests.patch(
            f"{base}/api/v1/studies/{study['id']}/",
            json={"title": "Edited by the researcher"},
            auth=RESEARCHER,
            timeout=10,
        )
        assert edit.status_code == 200, edit.text
        first_agent_pid = first.agent()[1]
    assert not _alive(first_agent_pid)
    assert not (var / "demo.pid").exists()

    web_port = free_port()
    base = f"http://127.0.0.1:{web_port}"
    with (
        listener(DEFAULT_AGENT_PORT),
        demo(var, logs, "second", QOELAB_DEMO_PORT=str(web_port)) as second,
    ):
        output = second.wait_banner()
        port, pid = second.agent()
        assert port != DEFAULT_AGENT_PORT
        assert (
            f"port {DEFAULT_AGENT_PORT} (QOELAB_DEMO_AGENT_PORT's default) is in use; "
            f"using port {port} instead"
        ) in output
        # The agent on that port is the demo's own (in its process group), and the station
        # was moved to it from the first run's address, saying so.
        assert os.getpgid(pid) == second.process.pid
        assert station(base)["agent_url"] == f"http://127.0.0.1:{port}"
        assert f"the agent moved from http://127.0.0.1:{agent_port} to" in output
        operations = requests.get(
            f"http://127.0.0.1:{port}/v1/operations",
            headers={"Authorization": f"Bearer {AGENT_TOKEN}"},
            timeout=10,
        )
        assert operations.status_code == 200, operations.text
        # The second start kept the edit (and said it kept the study).
        assert example_study(base)["title"] == "Edited by the researcher"
        assert "Study 'cloud-gaming-2014' exists: kept as it is." in output


def test_demo_stops_when_the_requested_agent_port_is_taken(tmp_path: Path) -> None:
    port = free_port()
    with listener(port) as ours:
        assert ours
        run = Demo(
            tmp_path / "var",
            tmp_path / "logs",
            "taken",
            QOELAB_DEMO_PORT=str(free_port()),
            QOELAB_DEMO_AGENT_PORT=str(port),
        ).start()
        try:
            assert run.process.popen is not None
            code = run.process.popen.wait(timeout=START_TIMEOUT)
        finally:
            run.stop()
    output = run.process.text()
    assert code != 0, output
    (message,) = [line for line in output.splitlines() if line.startswith("demo:")]
    assert f"QOELAB_DEMO_AGENT_PORT={port}" in message
    assert f"port {port} on 127.0.0.1 is already in use" in message
    assert BANNER not in output
    assert not (tmp_path / "var" / "netem-agent-demo.log").exists()  # no agent was started


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
