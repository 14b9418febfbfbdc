"""OskenActuator against a fake steering app on a Unix socket (the osken_app's HTTP API).

Would catch: a request body the app cannot use (match not OXM, no cookie), a confirm before
the barrier reply or for an older change, a switch error not raised, a dead app not turned
into a one-line ActuatorError.
"""

from __future__ import annotations

import json
import socketserver
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from qoe_steer.actuators import osken_client
from qoe_steer.actuators.base import ActuatorError
from qoe_steer.actuators.osken_client import OskenActuator
from qoe_steer.actuators.ovs import flow_cookie
from qoe_steer.config import ActuatorConfig
from qoe_steer.model import FlowSpec, PathSpec

FLOW = FlowSpec("game", "cloud-gaming.fast", {"udp_dst": 5004})
B = PathSpec("b", "10.0.0.2", 7002, "3")


class FakeApp(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str) -> None:
        self.state: dict[str, Any] = {"datapath": 81, "flows": {}}
        self.posts: list[dict[str, Any]] = []
        app = self

        class Handler(BaseHTTPRequestHandler):
            def address_string(self) -> str:
                return "unix"

            def _send(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send(200, app.state)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                app.posts.append(body)
                change = len(app.posts)
                app.state["flows"][body["flow"]] = {"port": body["port"], "change": change,
                                                    "confirmed": False, "error": None}  # fmt: skip
                self._send(202, {"flow": body["flow"], "change": change})

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(path, Handler)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[FakeApp]:
    server = FakeApp(str(tmp_path / "app.sock"))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_confirm_waits_for_the_barrier_of_this_change(app: FakeApp, tmp_path: Path) -> None:
    actuator = OskenActuator(str(tmp_path / "app.sock"))
    actuator.check()
    actuator.move(FLOW, B)
    assert app.posts[-1] == {"flow": "game", "port": 3, "cookie": flow_cookie("game"),
                             "priority": 40000, "match": {"eth_type": 2048, "ip_proto": 17,
                                                          "udp_dst": 5004}}  # fmt: skip
    assert not actuator.confirm(FLOW, B) and actuator.current(FLOW) is None
    app.state["flows"]["game"]["confirmed"] = True
    assert actuator.confirm(FLOW, B) and actuator.current(FLOW) == "3"
    app.state["flows"]["game"]["change"] = 99  # someone else's later change
    assert not actuator.confirm(FLOW, B)
    app.state["flows"]["game"].update(change=1, error="type=5 code=0")
    with pytest.raises(ActuatorError, match="refused flow game: type=5 code=0"):
        actuator.confirm(FLOW, B)


def test_no_switch_or_no_app_is_an_error(app: FakeApp, tmp_path: Path) -> None:
    app.state["datapath"] = None
    with pytest.raises(ActuatorError, match="no switch is connected"):
        OskenActuator(str(tmp_path / "app.sock")).check()
    gone = OskenActuator(str(tmp_path / "missing.sock"))
    with pytest.raises(ActuatorError, match=r"^osken: .*missing.sock: "):
        gone.move(FLOW, B)


def test_create_refuses_port_names_and_bad_matches(tmp_path: Path) -> None:
    options = osken_client.validate_options({"socket": str(tmp_path / "app.sock")})
    config = ActuatorConfig("osken", 1.0, 2, options)
    assert osken_client.create(config, [B], [FLOW]).socket_path.endswith("app.sock")
    with pytest.raises(ActuatorError, match=r"path x: port 'eth1'"):
        osken_client.create(config, [PathSpec("x", "h", 1, "eth1")], [FLOW])
    with pytest.raises(ActuatorError, match=r"flow g: match\.vlan"):
        osken_client.create(config, [B], [FlowSpec("g", "c", {"vlan": 1})])
