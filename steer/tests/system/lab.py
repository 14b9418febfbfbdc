"""Level A topology: server — OVS switch — client with two uplinks, in network namespaces.

::

    server ns  srv0 10.0.0.1 ──veth── sw-srv (port 1)
                                       OVS br0 (netdev datapath, in the switch ns)
    client ns  cli-a 10.0.0.2 ─veth── sw-a   (port 2)  "path a"
               cli-b 10.0.0.2 ─veth── sw-b   (port 3)  "path b"

cli-a and cli-b carry the same MAC and address (the server has a static neighbour entry,
no ARP), so the game flow reaches the client's socket whichever uplink the switch picks;
the receiver names the arrival interface of every packet (IP_PKTINFO), which gives the
per-uplink counters with CLOCK_MONOTONIC time stamps (one clock for every namespace).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from qoelab_testkit.ovs import OvsSandbox

T = TypeVar("T")
TRAFFIC = Path(__file__).with_name("traffic.py")
CLIENT_MAC = "02:00:00:00:00:02"
PORTS = {"sw-srv": 1, "sw-a": 2, "sw-b": 3}
GAME_PORT = 5004
CLONE_NEWNET = 0x40000000


class Lab:
    """The three namespaces, the switch and the traffic; ``close()`` removes everything."""

    def __init__(self, controller: str | None = None) -> None:
        pid = os.getpid()
        self.server, self.client = f"qst-srv-{pid}", f"qst-cli-{pid}"
        self.switch = OvsSandbox(netns=f"qst-sw-{pid}")
        self.controller = controller
        self.processes: list[subprocess.Popen[str]] = []
        self.arrivals: list[tuple[str, int]] = []
        self._lock = threading.Lock()

    def ip(self, netns: str, *argv: str) -> None:
        self.switch.run("ip", "netns", "exec", netns, *argv)

    def start(self) -> None:
        box = self.switch
        box.start()
        for ns in (self.server, self.client):
            box.run("ip", "netns", "add", ns)
            self.ip(ns, "ip", "link", "set", "lo", "up")
            self.ip(ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        self.ip(self.client, "sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0")
        self.ip(self.client, "sysctl", "-qw", "net.ipv4.conf.default.rp_filter=0")
        pairs = [("srv0", self.server, "sw-srv"), ("cli-a", self.client, "sw-a"),
                 ("cli-b", self.client, "sw-b")]  # fmt: skip
        for host_if, ns, switch_if in pairs:
            box.run("ip", "link", "add", host_if, "netns", ns, "type", "veth",
                    "peer", "name", switch_if, "netns", box.netns)  # fmt: skip
            self.ip(box.netns, "ip", "link", "set", switch_if, "up")
        for name in ("cli-a", "cli-b"):
            self.ip(self.client, "ip", "link", "set", name, "address", CLIENT_MAC)
            self.ip(self.client, "ip", "addr", "add", "10.0.0.2/32", "dev", name)
            self.ip(self.client, "sysctl", "-qw", f"net.ipv4.conf.{name}.rp_filter=0")
            self.ip(self.client, "ip", "link", "set", name, "up")
        self.ip(self.server, "ip", "addr", "add", "10.0.0.1/24", "dev", "srv0")
        self.ip(self.server, "ip", "link", "set", "srv0", "up")
        self.ip(self.server, "ip", "neigh", "replace", "10.0.0.2", "lladdr", CLIENT_MAC,
                "nud", "permanent", "dev", "srv0")  # fmt: skip
        argv = ["ovs-vsctl", "add-br", "br0", "--", "set", "bridge", "br0",
                "datapath_type=netdev", "protocols=OpenFlow13", "fail-mode=secure",
                "other-config:datapath-id=0000000000000051"]  # fmt: skip
        box.run(*argv)
        for name, number in PORTS.items():
            box.run("ovs-vsctl", "add-port", "br0", name, "--", "set", "interface", name,
                    f"ofport_request={number}")  # fmt: skip
        if self.controller:
            box.run("ovs-vsctl", "set-controller", "br0", self.controller)

    def start_traffic(self) -> None:
        """The receiver in the client ns (its lines collected by a thread), then the sender."""
        receiver = self._spawn(self.client, "receive", str(GAME_PORT))
        assert receiver.stdout is not None
        assert receiver.stdout.readline().strip() == "ready"
        threading.Thread(target=self._collect, args=(receiver,), daemon=True).start()
        self._spawn(self.server, "send", "10.0.0.2", str(GAME_PORT))

    def _spawn(self, netns: str, *args: str) -> subprocess.Popen[str]:
        argv = ["ip", "netns", "exec", netns, sys.executable, str(TRAFFIC), *args]
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.processes.append(process)
        return process

    def _collect(self, receiver: subprocess.Popen[str]) -> None:
        assert receiver.stdout is not None
        for line in receiver.stdout:
            name, at = line.split()
            with self._lock:
                self.arrivals.append((name, int(at)))

    def arrived(self, iface: str, after_ns: int, before_ns: int | None = None) -> list[int]:
        """Arrival times on ``iface`` (``cli-a``/``cli-b``) in (after, before]."""
        with self._lock:
            snapshot = list(self.arrivals)
        end = before_ns if before_ns is not None else 1 << 62
        return [t for name, t in snapshot if name == iface and after_ns < t <= end]

    def wait_packet(self, iface: str, after_ns: int, timeout_s: float) -> int | None:
        """The first arrival on ``iface`` after ``after_ns``, polled every 2 ms."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            seen = self.arrived(iface, after_ns)
            if seen:
                return seen[0]
            time.sleep(0.002)
        return None

    def close(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
        try:
            self.switch.stop()
        finally:
            for ns in (self.server, self.client):
                subprocess.run(["ip", "netns", "del", ns], capture_output=True, check=False)


def in_netns(netns: str, call: Callable[[], T]) -> T:
    """Run ``call`` in a thread that joined ``netns`` (setns(2) moves only that thread):
    the actuators then reach what listens on the switch namespace's loopback."""
    libc = ctypes.CDLL(None, use_errno=True)

    def enter_and_call() -> T:
        fd = os.open(f"/run/netns/{netns}", os.O_RDONLY)
        try:
            if libc.setns(fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), f"setns {netns}")
        finally:
            os.close(fd)
        return call()

    with ThreadPoolExecutor(max_workers=1) as pool:  # the thread dies with its namespace
        return pool.submit(enter_and_call).result()
