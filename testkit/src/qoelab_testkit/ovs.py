"""Open vSwitch in a sandbox: ovsdb-server + ovs-vswitchd started by a test, in a network
namespace of their own (sockets, pidfiles and logs in a temp dir; no systemd, no kernel
module: bridges use the userspace datapath, ``datapath_type=netdev``)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from qoelab_testkit.prerequisites import require

SBIN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
OVS_SCHEMA = Path("/usr/share/openvswitch/vswitch.ovsschema")


def which(name: str) -> str | None:
    return shutil.which(name, path=SBIN_PATH + ":" + os.environ.get("PATH", ""))


#: The programs checked before an :class:`OvsSandbox` starts, with the Debian package of each.
OVS_TOOLS = (
    ("ovs-vswitchd", "openvswitch-switch"),
    ("ovsdb-server", "openvswitch-switch"),
    ("ovs-ofctl", "openvswitch-common"),
    ("ip", "iproute2"),
)


def require_ovs(needs_root: str) -> None:
    """Skip (fail with QOELAB_STRICT=1) unless an :class:`OvsSandbox` can start: root
    (network namespaces; ``needs_root`` says who needs it), :data:`OVS_TOOLS` and the
    OVSDB schema. See :func:`qoelab_testkit.prerequisites.require`."""
    require(os.geteuid() == 0, needs_root)
    for tool, package in OVS_TOOLS:
        require(which(tool) is not None, f"{tool} missing: install the Debian package {package}")
    require(OVS_SCHEMA.exists(), f"{OVS_SCHEMA} missing: install openvswitch-switch")


class OvsSandbox:
    """ovsdb-server + ovs-vswitchd in a network namespace, state in ``self.dir``."""

    def __init__(self, netns: str | None = None) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="qoe-ovs-"))
        self.netns = netns or f"qoe-policy-{os.getpid()}"
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
