"""REST API with the dry-run backend, in-process and as `netem-agent serve`."""

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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from netem_agent import __version__
from netem_agent.config import config_from_dict
from netem_agent.server import WATCH_INTERVAL, Service

TOKEN = "test-token-0123456789"
PROFILE = {"upstream": {"delay_ms": 80}, "downstream": {"delay_ms": 40, "loss_pct": 1}}


def config(tmp_path: Path, **agent: Any) -> dict[str, Any]:
    return {
        "server": {"listen": "127.0.0.1", "port": 0, "token": TOKEN},
        "topology": {"mode": "bridge", "client_iface": "eth-c", "server_iface": "eth-s"},
        "agent": {"backend": "dry-run", "state_dir": str(tmp_path / "state"), **agent},
    }


class Client:
    def __init__(self, base: str) -> None:
        self.base = base

    def __call__(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = TOKEN,
        raw: bytes | None = None,
    ) -> tuple[int, Any]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if token is not None:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    svc = Service(config_from_dict(config(tmp_path)))
    svc.start()
    yield svc
    svc.stop()


@pytest.fixture
def api(service: Service) -> Client:
    host, port = service.address
    return Client(f"http://{host}:{port}")


def test_healthz_needs_no_token(api: Client) -> None:
    assert api("GET", "/healthz", token=None) == (
        200,
        {"status": "ok", "version": __version__, "backend": "dry-run"},
    )


@pytest.mark.parametrize(
    "method,path",
    [
        ("GET", "/v1/profile"),
        ("PUT", "/v1/profile"),
        ("DELETE", "/v1/profile"),
        ("GET", "/v1/capabilities"),
        ("POST", "/v1/lease/renew"),
        ("GET", "/v1/operations"),
    ],
)
def test_everything_else_needs_the_token(api: Client, method: str, path: str) -> None:
    status, body = api(method, path, {"profile": PROFILE}, token=None)
    assert status == 401 and "token" in body["error"]
    status, body = api(method, path, {"profile": PROFILE}, token="wrong-token-xxxxxxxx")
    assert status == 401 and body["error"] == "invalid bearer token"


def test_put_get_delete(api: Client, service: Service) -> None:
    status, body = api("PUT", "/v1/profile", {"profile": PROFILE, "lease_seconds": 30})
    assert status == 200, body
    assert body["backend"] == "dry-run"
    assert body["installed"]["upstream"]["delay_ms"] == 80
    assert body["installed"]["downstream"]["loss_pct"] == 1
    assert body["lease_expires_at"].endswith("Z") and body["applied_at"]
    status, got = api("GET", "/v1/profile")
    assert status == 200 and got["installed"] == body["installed"] and got["applied"]
    status, ops = api("GET", "/v1/operations")
    assert [o["op"] for o in ops["operations"]] == ["qdisc_add", "qdisc_add"]
    assert ops["operations"][0]["params"]["latency_ns"] == 80_000_000
    status, res = api("DELETE", "/v1/profile")
    assert status == 200 and res["restored"]
    assert api("GET", "/v1/profile")[1]["installed"] is None


@pytest.mark.parametrize(
    "body,status,text",
    [
        ({"profile": {"upstream": {"bandwidth": 1}}}, 422, "bandwidth"),
        ({"profile": {"upstream": {"loss_pct": 150}}}, 422, "loss_pct"),
        ({"profile": {"downstream": {"delay_ms": -1}}}, 422, "delay_ms"),
        ({"profile": PROFILE, "lease_seconds": 0}, 400, "lease_seconds"),
        ({"profile": PROFILE, "lease_seconds": "10"}, 400, "lease_seconds"),
        ({"profile": PROFILE, "iface": "eth9"}, 400, "iface"),
        ({"upstream": {"delay_ms": 1}}, 400, "upstream"),
        ([1], 400, "JSON object"),
    ],
)
def test_bad_requests_change_nothing(api: Client, body: Any, status: int, text: str) -> None:
    api("PUT", "/v1/profile", {"profile": PROFILE})
    before = api("GET", "/v1/operations")[1]["operations"]
    got, err = api("PUT", "/v1/profile", body)
    assert got == status and text in json.dumps(err), err
    assert set(err) == {"error", "detail"}
    assert api("GET", "/v1/operations")[1]["operations"] == before


def test_invalid_json(api: Client) -> None:
    assert api("PUT", "/v1/profile", raw=b"{nope")[0] == 400
    assert api("PUT", "/v1/profile", raw=b'{"profile": {"upstream": {"delay_ms": NaN}}}')[0] == 400


def test_unknown_endpoint_and_method(api: Client) -> None:
    assert api("GET", "/v2/nothing")[0] == 404
    assert api("POST", "/v1/profile", {})[0] == 405


def test_renew(api: Client) -> None:
    assert api("POST", "/v1/lease/renew", {})[0] == 409  # nothing applied
    api("PUT", "/v1/profile", {"profile": PROFILE, "lease_seconds": 5})
    status, body = api("POST", "/v1/lease/renew", {"lease_seconds": 20})
    assert status == 200 and body["lease_seconds"] == 20
    assert api("POST", "/v1/lease/renew", {"nope": 1})[0] == 400


def test_lease_expiry_through_the_watcher(api: Client) -> None:
    api("PUT", "/v1/profile", {"profile": PROFILE, "lease_seconds": 0.3})
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and api("GET", "/v1/profile")[1]["installed"]:
        time.sleep(0.05)
    assert api("GET", "/v1/profile")[1]["installed"] is None
    ops = [o["op"] for o in api("GET", "/v1/operations")[1]["operations"]]
    assert ops[-2:] == ["qdisc_del", "qdisc_del"]


def test_capabilities(api: Client) -> None:
    status, caps = api("GET", "/v1/capabilities")
    assert status == 200
    assert {i["name"] for i in caps["interfaces"]} >= {"eth-c", "eth-s"}
    assert caps["configured_interfaces_present"] == {"eth-c": True, "eth-s": True}
    assert caps["shaping"]["upstream"]["direction"] == "client→server"
    assert caps["shaping"]["upstream"]["interface"] == "eth-s"
    assert "delay_ms" in caps["profile_fields"]


def test_unknown_interface_is_404(tmp_path: Path) -> None:
    cfg = config_from_dict(config(tmp_path))
    cfg.topology = type(cfg.topology)(mode="bridge", client_iface="eth-c", server_iface="nosuch0")
    from netem_agent.backends import DryRunBackend

    svc = Service(cfg, backend=DryRunBackend(["eth-c"]))
    svc.start()
    try:
        host, port = svc.address
        api = Client(f"http://{host}:{port}")
        status, body = api("PUT", "/v1/profile", {"profile": PROFILE})
        assert status == 404 and "nosuch0" in body["error"]
        assert api("GET", "/v1/operations")[1]["operations"] == []
    finally:
        svc.stop()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_subprocess_dry_run_and_sigterm(tmp_path: Path) -> None:
    port = _free_port()
    cfg = tmp_path / "agent.toml"
    (tmp_path / "token").write_text(TOKEN + "\n")
    cfg.write_text(f"""
[server]
listen = "127.0.0.1"
port = {port}
token_file = "token"

[topology]
mode = "bridge"
client_iface = "eth-c"
server_iface = "eth-s"

[agent]
backend = "dry-run"
lease_seconds = 30
state_dir = "state"
""")
    proc = subprocess.Popen(
        [sys.executable, "-m", "netem_agent.cli", "serve", "--config", str(cfg)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert json.loads(line)["listening"] == f"127.0.0.1:{port}"
        api = Client(f"http://127.0.0.1:{port}")
        assert api("PUT", "/v1/profile", {"profile": PROFILE})[0] == 200
        assert (tmp_path / "state" / "state.json").exists()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == 0
        out = proc.stdout.read() if proc.stdout else ""
        stopped = json.loads(out.strip().splitlines()[-1])
        assert stopped["stopped"] == "SIGTERM" and stopped["restore"]["restored"]
        assert not (tmp_path / "state" / "state.json").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for f in (proc.stdout, proc.stderr):
            if f:
                f.close()


def test_service_requires_a_token(tmp_path: Path) -> None:
    doc = config(tmp_path)
    del doc["server"]["token"]
    with pytest.raises(ValueError, match="token"):
        Service(config_from_dict(doc))
    assert os.environ.get("NO_SUCH_THING") is None


def test_every_profile_and_capabilities_answer_names_the_agent_and_a_recording(
    api: Client,
) -> None:
    """Issue 13 finding 5: the dry-run agent's ``kernel`` is a recording, and says so on
    PUT/GET /v1/profile and /v1/capabilities, with the agent's version."""
    from netem_agent import __version__

    answers = [
        api("PUT", "/v1/profile", {"profile": PROFILE, "lease_seconds": 30}),
        api("GET", "/v1/profile"),
        api("GET", "/v1/capabilities"),
    ]
    for status, body in answers:
        assert status == 200, body
        assert body["agent_version"] == __version__
        assert body["backend"] == "dry-run"
        assert body["kernel_source"] == "recorded"
        assert "nothing was applied to a kernel" in body["kernel_note"]


class WatchedEvent(threading.Event):
    """The lease watcher's wake-up event, recording each sleep (its timeout) and each
    ``set`` in order, so that a test can wait for the watcher's state instead of sleeping."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = threading.Condition()
        self.log: list[tuple[str, float | None]] = []

    def _record(self, entry: tuple[str, float | None]) -> None:
        with self.changed:
            self.log.append(entry)
            self.changed.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        self._record(("sleep", timeout))
        return super().wait(timeout)

    def set(self) -> None:
        self._record(("set", None))
        super().set()

    def wait_for(self, predicate: Any, timeout: float) -> list[tuple[str, float | None]]:
        with self.changed:
            assert self.changed.wait_for(lambda: predicate(self.log), timeout), self.log
            return list(self.log)


def test_a_renewal_that_shortens_the_lease_wakes_the_watcher(tmp_path: Path) -> None:
    svc = Service(config_from_dict(config(tmp_path)))
    wake = WatchedEvent()
    svc.httpd.lease_changed = svc.watcher.wake = wake
    svc.start()
    try:
        api = Client("http://{}:{}".format(*svc.address))
        api("PUT", "/v1/profile", {"profile": PROFILE, "lease_seconds": 300})
        # the watcher goes to sleep for the long lease (WATCH_INTERVAL, shorter than it)
        before = wake.wait_for(lambda log: ("sleep", WATCH_INTERVAL) in log, 10)
        assert api("POST", "/v1/lease/renew", {"lease_seconds": 0.3})[0] == 200
        # well before the long sleep would end (20 s < WATCH_INTERVAL: a watcher left asleep
        # fails here), it has been woken, has restored the interfaces and sleeps with no
        # deadline (None: no lease)
        assert WATCH_INTERVAL > 20
        after = wake.wait_for(lambda log: len(log) > len(before) and log[-1] == ("sleep", None), 20)
        assert ("set", None) in after[len(before) :], after  # the renewal woke it
        assert api("GET", "/v1/profile")[1]["installed"] is None
    finally:
        svc.stop()
