"""End to end: Open vSwitch (userspace datapath) + Faucet with the exported config.

As root, in a network namespace of its own: ovsdb-server and ovs-vswitchd started by the
test (sockets, pidfiles and logs in a temp dir, no systemd, no kernel module), a bridge
with ``datapath_type=netdev`` and OpenFlow 1.3, Faucet (from the tool venv) listening on
127.0.0.1 inside the namespace as its controller. The test reads the installed flows and
meters back with ``ovs-ofctl`` and looks for the policy's DSCP ``set_field`` and meter.
A second bridge without controller gets the ``--format ovs`` commands applied and read
back. Everything is torn down whatever happens.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from qoe_analysis.policy import Topology, build_policy, export_policy
from qoe_analysis.policy.adapters.ovs import ovs_commands
from qoelab_testkit.ovs import SBIN_PATH, OvsSandbox, require_ovs

pytestmark = pytest.mark.system

FLOW = {"cloud-gaming": {"server_ip": "198.51.100.7", "server_port": 5004}}


@pytest.fixture
def sandbox() -> Iterator[OvsSandbox]:
    require_ovs("the Open vSwitch end-to-end test needs root")
    box = OvsSandbox()
    try:
        box.start()
        yield box
    finally:
        box.stop()


@pytest.fixture
def policy(study_doc: dict[str, Any]) -> dict[str, Any]:
    return build_policy(study_doc, provenance={"study_id": "e2e"}, flows=FLOW)


def _poll(check: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.5)
    return False


def test_faucet_installs_marking_and_meter(
    sandbox: OvsSandbox, faucet_venv: Path, policy: dict[str, Any]
) -> None:
    started = time.monotonic()
    topology = Topology(dpid=0x51, server_port=1, client_port=2)
    config = sandbox.dir / "faucet.yaml"
    config.write_text(export_policy(policy, "faucet", topology=topology))
    sandbox.add_bridge("br0", 0x51, {"srv0": 1, "cli0": 2}, "tcp:127.0.0.1:6653")
    sandbox.spawn(
        [
            str(faucet_venv / "bin" / "faucet"),
            "--ryu-ofp-tcp-listen-port=6653",
            "--ryu-ofp-listen-host=127.0.0.1",
        ],
        {
            "PATH": f"{faucet_venv / 'bin'}:{SBIN_PATH}",
            "FAUCET_CONFIG": str(config),
            "FAUCET_LOG": str(sandbox.dir / "faucet.log"),
            "FAUCET_EXCEPTION_LOG": str(sandbox.dir / "faucet_exception.log"),
            "FAUCET_PROMETHEUS_ADDR": "127.0.0.1",
            "FAUCET_PROMETHEUS_PORT": "9302",  # inside the namespace: always free
        },
        "faucet.out",
    )
    rate = policy["traffic"]["meter_rate_kbps"]

    def installed() -> bool:
        flows = sandbox.ofctl("dump-flows", "br0")
        meters = sandbox.ofctl("dump-meters", "br0")
        return (
            "set_field:32->ip_dscp" in flows
            and re.search(r"meter:1\b", flows) is not None
            and re.search(r"meter:2\b", flows) is not None
            and f"rate={rate}" in meters
        )

    ok = _poll(installed, 45)
    diagnostics = sandbox.log("faucet.log") + sandbox.log("faucet.out")
    assert ok, diagnostics
    flows = sandbox.ofctl("dump-flows", "br0")
    down = next(line for line in flows.splitlines() if "nw_src=198.51.100.7" in line)
    up = next(line for line in flows.splitlines() if "nw_dst=198.51.100.7" in line)
    assert "tp_src=5004" in down and "actions=meter:1,set_field:32->ip_dscp" in down
    assert "tp_dst=5004" in up and "actions=meter:2,set_field:32->ip_dscp" in up
    meters = sandbox.ofctl("dump-meters", "br0")
    assert re.search(rf"meter=1 kbps burst.*\n?.*type=drop rate={rate} burst_size=", meters)
    print(f"OVS + Faucet end to end: {time.monotonic() - started:.1f} s")


def test_ovs_commands_apply(sandbox: OvsSandbox, policy: dict[str, Any]) -> None:
    topology = Topology(bridge="br1", server_port_name="srv1", client_port_name="cli1")
    sandbox.add_bridge("br1", 0x52, {"srv1": 1, "cli1": 2}, None)
    for argv in ovs_commands(policy, topology):
        sandbox.run(*argv)
    flows = sandbox.ofctl("dump-flows", "br1")
    assert "actions=meter:1,set_field:32->ip_dscp,set_queue:1,NORMAL" in flows
    assert "actions=meter:2,set_field:32->ip_dscp,set_queue:2,NORMAL" in flows
    meters = sandbox.ofctl("dump-meters", "br1")
    rate = policy["traffic"]["meter_rate_kbps"]
    assert meters.count(f"type=drop rate={rate}") == 2
    qos = sandbox.run("ovs-vsctl", "list", "qos")
    assert "linux-htb" in qos
    queues = sandbox.run("ovs-vsctl", "list", "queue")
    assert 'min-rate="3000000"' in queues and "priority" in queues
