"""Start Faucet or the os-ken steering app (from the tool venv) in the lab's switch ns."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from lab import Lab
from qoelab_testkit.ovs import SBIN_PATH

FAUCET_YAML = """\
vlans:
  game: {vid: 100}
acls:
  steer:
    - rule: {dl_type: 0x800, nw_proto: 17, ipv4_dst: 10.0.0.2, udp_dst: 5004,
             actions: {output: {port: 2}}}
    - rule: {actions: {allow: 1}}
dps:
  sw1:
    dp_id: 0x51
    hardware: Open vSwitch
    interfaces:
      1: {native_vlan: game, acls_in: [steer]}
      2: {native_vlan: game}
      3: {native_vlan: game}
"""
PROMETHEUS = "http://127.0.0.1:9302/"  # inside the switch namespace


def poll(check: Callable[[], bool], timeout_s: float, every_s: float = 0.2) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(every_s)
    return False


def start_faucet(lab: Lab, venv: Path) -> tuple[subprocess.Popen[bytes], Path]:
    """Faucet with FAUCET_YAML; returns its process (pid = Faucet's) and the config path."""
    box = lab.switch
    config = box.dir / "faucet.yaml"
    config.write_text(FAUCET_YAML)
    box.spawn(
        [str(venv / "bin" / "faucet"), "--ryu-ofp-tcp-listen-port=6653",
         "--ryu-ofp-listen-host=127.0.0.1"],
        {
            "PATH": f"{venv / 'bin'}:{SBIN_PATH}",
            "FAUCET_CONFIG": str(config),
            "FAUCET_LOG": str(box.dir / "faucet.log"),
            "FAUCET_EXCEPTION_LOG": str(box.dir / "faucet_exception.log"),
            "FAUCET_PROMETHEUS_ADDR": "127.0.0.1",
            "FAUCET_PROMETHEUS_PORT": "9302",
        },
        "faucet.out",
    )  # fmt: skip
    process = box.processes[-1]
    installed = poll(lambda: "output:2" in box.ofctl("dump-flows", "br0"), 45)
    assert installed, box.log("faucet.log") + box.log("faucet.out")
    return process, config


def faucet_table(lab: Lab, config: Path, pid: int, deadline_s: float) -> dict[str, object]:
    """The daemon's ``[actuator]`` table for the Faucet started by :func:`start_faucet`."""
    return {
        "kind": "faucet", "config": str(config), "acl": "steer", "prometheus_url": PROMETHEUS,
        "pid": pid, "bridge": "br0", "ovs_rundir": lab.switch.env["OVS_RUNDIR"],
        "deadline_s": deadline_s, "retries": 2,
    }  # fmt: skip


def start_osken(lab: Lab, venv: Path, socket_path: Path) -> subprocess.Popen[bytes]:
    """osken-manager running qoe_steer.actuators.osken_app, API on ``socket_path``."""
    box = lab.switch
    app = Path(__file__).resolve().parents[2] / "src" / "qoe_steer" / "actuators" / "osken_app.py"
    box.spawn(
        [str(venv / "bin" / "osken-manager"), "--ofp-tcp-listen-port=6653",
         "--ofp-listen-host=127.0.0.1", str(app)],
        {"PATH": f"{venv / 'bin'}:{SBIN_PATH}", "QOE_STEER_OSKEN_SOCKET": str(socket_path)},
        "osken.out",
    )  # fmt: skip
    connected = poll(lambda: "qoe-steer: switch" in box.log("osken.out"), 30)
    assert connected and socket_path.exists(), box.log("osken.out")
    return box.processes[-1]
