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

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from qoe_analysis.policy import Topology, build_policy, export_policy
from qoe_analysis.policy.adapters.ovs import ovs_commands
from qoelab_testkit.prerequisites import require

pytestmark = pytest.mark.system

SBIN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
OVS_SCHEMA = Path("/usr/share/openvswitch/vswitch.ovsschema")
FLOW = {"cloud-gaming": {"server_ip": "198.51.100.7", "server_port": 5004}}


def _which(name: str) -> str | None:
    return shutil.which(name, path=SBIN_PATH + ":" + os.environ.get("PATH", ""))


class OvsSandbox:
    """ovsdb-server + ovs-vswitchd in a network namespace, state in ``self.dir``."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="qoe-ovs-"))
        self.netns = f"qoe-policy-{os.getpid()}"
        self.env = {
            **os.environ,
            "PATH": SBIN_PATH + ":" + os.environ.get("PATH", ""),
            "OVS_RUNDIR": str(self.dir),
            "OVS_DBDIR": str(self.dir),
            "OVS_LOGDIR": str(self.dir),
            "OVS_SYSCONFDIR": str(self.dir),
        }
        self.processes: list[subprocess.Popen[bytes]] = []

    def run(self, *argv: str, netns: bool = False, check: bool = True) -> str:
        full = ["ip", "netns", "exec", self.netns, *argv] if netns else list(argv)
        done = subprocess.run(full, env=self.env, capture_output=True, text=True, timeout=30)
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(argv)} failed: {done.stderr.strip()}")
        return done.stdout

    def start(self) -> None:
        d = self.dir
        self.run("ip", "netns", "add", self.netns)
        self.run("ip", "link", "set", "lo", "up", netns=True)
        self.run("ovsdb-tool", "create", str(d / "conf.db"), str(OVS_SCHEMA))
        self.run(
            "ovsdb-server", str(d / "conf.db"), f"--remote=punix:{d / 'db.sock'}",
            f"--unixctl={d / 'ovsdb.ctl'}", f"--pidfile={d / 'ovsdb.pid'}", "--detach",
            f"--log-file={d / 'ovsdb.log'}", netns=True,
        )  # fmt: skip
        self.run("ovs-vsctl", "--no-wait", "init")
        self.run(
            "ovs-vswitchd", f"unix:{d / 'db.sock'}", f"--unixctl={d / 'vswitchd.ctl'}",
            f"--pidfile={d / 'vswitchd.pid'}", "--detach", f"--log-file={d / 'vswitchd.log'}",
            netns=True,
        )  # fmt: skip

    def add_bridge(
        self, name: str, dpid: int, ports: dict[str, int], controller: str | None
    ) -> None:
        argv = ["ovs-vsctl", "add-br", name, "--", "set", "bridge", name,
                "datapath_type=netdev", "protocols=OpenFlow13",
                f"other-config:datapath-id={dpid:016x}"]  # fmt: skip
        argv += ["fail-mode=secure"] if controller else []
        self.run(*argv)
        for port, number in ports.items():
            self.run("ovs-vsctl", "add-port", name, port, "--", "set", "interface", port,
                     "type=internal", f"ofport_request={number}")  # fmt: skip
            self.run("ip", "link", "set", port, "up", netns=True)
        if controller:
            self.run("ovs-vsctl", "set-controller", name, controller)

    def ofctl(self, command: str, bridge: str) -> str:
        return self.run("ovs-ofctl", "-O", "OpenFlow13", command, bridge)

    def spawn(self, argv: list[str], env: dict[str, str], log: str) -> None:
        with open(self.dir / log, "wb") as out:
            self.processes.append(
                subprocess.Popen(
                    ["ip", "netns", "exec", self.netns, *argv],
                    env={**self.env, **env},
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )

    def log(self, name: str) -> str:
        path = self.dir / name
        return path.read_text(errors="replace")[-3000:] if path.exists() else ""

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)
        for pidfile in ("vswitchd.pid", "ovsdb.pid"):
            path = self.dir / pidfile
            if path.exists():
                pid = int(path.read_text().strip())
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    continue
                for _ in range(50):
                    try:
                        os.kill(pid, 0)
                    except ProcessLookupError:
                        break
                    time.sleep(0.1)
        subprocess.run(["ip", "netns", "del", self.netns], capture_output=True, check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def sandbox() -> Iterator[OvsSandbox]:
    require(os.geteuid() == 0, "the Open vSwitch end-to-end test needs root")
    for tool, package in (
        ("ovs-vswitchd", "openvswitch-switch"),
        ("ovsdb-server", "openvswitch-switch"),
        ("ovs-ofctl", "openvswitch-common"),
        ("ip", "iproute2"),
    ):
        require(_which(tool) is not None, f"{tool} missing: install the Debian package {package}")
    require(OVS_SCHEMA.exists(), f"{OVS_SCHEMA} missing: install openvswitch-switch")
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
