"""The test lab inside the user-mode kernel: the client, router and server namespaces
and what reads their state (the probes are in ``probes``, the agent process in
``lab_agent``).

Topology (IPv4)::

    client ns              router ns (agent)                 server ns
    c0 10.0.1.2/24 ── rc 10.0.1.1/24 | rs 10.0.2.1/24 ── s0 10.0.2.2/24
                           m1 10.9.0.2/30 (management)
    root ns: m0 10.9.0.1/30 (the "backend" talks to the agent's REST API from here)
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

CLONE_NEWNET = 0x40000000
CLIENT, ROUTER, SERVER = "client", "router", "server"
CLIENT_IP, SERVER_IP = "10.0.1.2", "10.0.2.2"
MGMT_IP = "10.9.0.2"
TOKEN = "uml-test-token-0123456789abcdef"
_libc = ctypes.CDLL(None, use_errno=True)


def sh(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), check=check, capture_output=True, text=True)


@contextlib.contextmanager
def netns(name: str | None) -> Iterator[None]:
    """Run the block in network namespace ``name`` (this thread only)."""
    if name is None:
        yield
        return
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if _libc.setns(target, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {name}")
        try:
            yield
        finally:
            if _libc.setns(own, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back")
    finally:
        os.close(own)
        os.close(target)


def setup_lab() -> None:
    for ns in (CLIENT, ROUTER, SERVER):
        sh("ip", "netns", "add", ns)
        sh("ip", "-n", ns, "link", "set", "lo", "up")
    sh(
        "ip",
        "link",
        "add",
        "c0",
        "netns",
        CLIENT,
        "type",
        "veth",
        "peer",
        "name",
        "rc",
        "netns",
        ROUTER,
    )
    sh(
        "ip",
        "link",
        "add",
        "s0",
        "netns",
        SERVER,
        "type",
        "veth",
        "peer",
        "name",
        "rs",
        "netns",
        ROUTER,
    )
    sh("ip", "link", "add", "m0", "type", "veth", "peer", "name", "m1", "netns", ROUTER)
    addresses: list[tuple[str | None, str, str]] = [
        (CLIENT, "c0", "10.0.1.2/24"),
        (ROUTER, "rc", "10.0.1.1/24"),
        (ROUTER, "rs", "10.0.2.1/24"),
        (SERVER, "s0", "10.0.2.2/24"),
        (ROUTER, "m1", "10.9.0.2/30"),
        (None, "m0", "10.9.0.1/30"),
    ]
    for where, dev, addr in addresses:
        pre = ["ip", "-n", where] if where else ["ip"]
        sh(*pre, "addr", "add", addr, "dev", dev)
        sh(*pre, "link", "set", dev, "up")
    sh("ip", "-n", CLIENT, "route", "add", "default", "via", "10.0.1.1")
    sh("ip", "-n", SERVER, "route", "add", "default", "via", "10.0.2.1")
    sh("ip", "netns", "exec", ROUTER, "sysctl", "-qw", "net.ipv4.ip_forward=1")
    # warm up ARP so the first probes are not delayed by neighbour resolution
    for src, dst in ((CLIENT, SERVER_IP), (SERVER, CLIENT_IP)):
        with netns(src):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(b"warmup", (dst, 9))
            s.close()
    time.sleep(0.3)


def tc_qdiscs(ns: str | None, dev: str) -> list[dict[str, Any]]:
    """Independent observer: iproute2's JSON view of a device's qdiscs."""
    pre = ["ip", "netns", "exec", ns] if ns else []
    out = sh(*pre, "tc", "-j", "qdisc", "show", "dev", dev).stdout
    return [{k: q.get(k) for k in ("kind", "handle", "parent", "root")} for q in json.loads(out)]


def links(ns: str | None) -> list[str]:
    pre = ["-n", ns] if ns else []
    return [x["ifname"] for x in json.loads(sh("ip", *pre, "-j", "link", "show").stdout)]
