"""FaucetActuator with a faucet.yaml in a temp dir, a SIGHUP-counting child as "Faucet" and
a fake Prometheus endpoint serving faucet_config_hash_info.

Would catch: a rewrite that touches another rule or breaks the YAML, a hash computed
differently from Faucet's (sha256 of the file text), a confirm before the reload, a
rejected config not reported, a missing ACL/rule/file not refused at start in one line.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml
from qoe_steer.actuators import faucet
from qoe_steer.actuators.base import ActuatorError
from qoe_steer.actuators.faucet import FaucetActuator
from qoe_steer.config import ActuatorConfig
from qoe_steer.model import FlowSpec, PathSpec

FLOW = FlowSpec("game", "cloud-gaming.fast", {"proto": "udp", "dst_port": 5004})
B = PathSpec("b", "10.0.0.2", 7002, "3")
YAML = """acls:
  steer:
    - rule: {dl_type: 0x800, nw_proto: 17, udp_dst: 5004, actions: {output: {port: 2}}}
    - rule: {actions: {allow: 1}}
dps: {sw1: {dp_id: 1, interfaces: {1: {native_vlan: 100, acls_in: [steer]}}}}
"""


class Prometheus:
    def __init__(self) -> None:
        self.labels = 'config_files="/etc/faucet.yaml",error="",hashes="00"'
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = f"faucet_config_hash_info{{{outer.labels}}} 1.0\n".encode()
                self.send_response(200)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def hup_child(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    code = ("import signal,sys,time\n"
            "signal.signal(signal.SIGHUP, lambda *a: print('hup', flush=True))\n"
            "print('ready', flush=True)\ntime.sleep(60)\n")  # fmt: skip
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    yield child
    child.kill()
    child.wait()


def test_move_rewrites_only_the_rule_then_confirms_on_the_hash(
    tmp_path: Path, hup_child: subprocess.Popen[str]
) -> None:
    config = tmp_path / "faucet.yaml"
    config.write_text(YAML)
    prometheus = Prometheus()
    actuator = FaucetActuator(config, "steer", prometheus.url, pid=hup_child.pid)
    actuator.check()
    actuator.move(FLOW, B)
    assert hup_child.stdout is not None and hup_child.stdout.readline() == "hup\n"
    doc = yaml.safe_load(config.read_text())
    assert doc["acls"]["steer"][0]["rule"]["actions"] == {"output": {"port": 3}}
    assert doc["acls"]["steer"][1] == {"rule": {"actions": {"allow": 1}}}
    assert actuator.current(FLOW) == "3"
    assert not actuator.confirm(FLOW, B)  # Faucet has not reloaded yet
    digest = hashlib.sha256(config.read_bytes()).hexdigest()
    prometheus.labels = f'config_files="{config}",error="",hashes="{digest}"'
    assert actuator.confirm(FLOW, B)
    prometheus.labels = f'config_files="{config}",error="bad port 3",hashes=""'
    with pytest.raises(ActuatorError, match="rejected its config: bad port 3"):
        actuator.confirm(FLOW, B)


def test_dead_faucet_leaves_the_file_alone(tmp_path: Path) -> None:
    config = tmp_path / "faucet.yaml"
    config.write_text(YAML)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    actuator = FaucetActuator(config, "steer", "http://127.0.0.1:9/", pid=dead.pid)
    with pytest.raises(ActuatorError, match="is not running"):
        actuator.move(FLOW, B)
    assert config.read_text() == YAML
    with pytest.raises(ActuatorError, match=r"Prometheus http://127\.0\.0\.1:9/"):
        actuator._hashes()


def _create(options: dict[str, object], flow: FlowSpec = FLOW) -> FaucetActuator:
    checked = faucet.validate_options(options)
    return faucet.create(ActuatorConfig("faucet", 3.0, 2, checked), [B], [flow])


def test_bad_config_is_refused_at_start_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "faucet.yaml"
    config.write_text(YAML)
    base = {"config": str(config), "acl": "steer", "prometheus_url": "http://x/", "pid": 1}
    assert _create(base).acl_name == "steer"
    cases = [
        ({**base, "config": str(tmp_path / "none.yaml")}, None, "cannot read .*none.yaml"),
        ({**base, "acl": "other"}, None, "has no ACL 'other'"),
        (base, FlowSpec("g", "c", {"udp_dst": 6000}), "0 rules matching flow g"),
    ]
    for options, flow, message in cases:
        with pytest.raises(ActuatorError, match=message) as err:
            _create(options, flow or FLOW)
        assert "\n" not in str(err.value)
    from qoe_steer.config import ConfigError

    with pytest.raises(ConfigError, match=r"actuator\.pid_file: give exactly one"):
        faucet.validate_options({k: v for k, v in base.items() if k != "pid"})
    with pytest.raises(ConfigError, match=r"actuator\.prometheus_url"):
        faucet.validate_options({**base, "prometheus_url": "ftp://x"})
