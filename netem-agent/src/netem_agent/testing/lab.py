"""The test lab inside the user-mode kernel: client, router and server namespaces, the
agent as a real process, and probes that measure with real packets.

Topology (IPv4)::

    client ns              router ns (agent)                 server ns
    c0 10.0.1.2/24 ── rc 10.0.1.1/24 | rs 10.0.2.1/24 ── s0 10.0.2.2/24
                           m1 10.9.0.2/30 (management)
    root ns: m0 10.9.0.1/30 (the "backend" talks to the agent's REST API from here)

Probes are UDP datagrams carrying a sequence number and the CLOCK_REALTIME send time;
receivers take the kernel's receive timestamp (SO_TIMESTAMPNS). All namespaces share one
kernel clock, so the difference is the true one-way delay.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CLONE_NEWNET = 0x40000000
SO_TIMESTAMPNS = 35
SO_RCVBUFFORCE = 33
SO_RXQ_OVFL = 40
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


# --- probes ----------------------------------------------------------------------------

_PROBE = struct.Struct("!IQ")  # seq, send time (ns, CLOCK_REALTIME)


def _sock(ns: str | None, bind_port: int | None, timestamps: bool = True) -> socket.socket:
    with netns(ns):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # a receive buffer large enough for a whole stream: a starved reader must not drop
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
    if bind_port is not None:
        if timestamps:
            s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            s.setsockopt(socket.SOL_SOCKET, SO_RXQ_OVFL, 1)
        s.bind(("0.0.0.0", bind_port))
    return s


class Stream:
    """One probe stream: sender in ``src`` ns → receiver in ``dst`` ns."""

    def __init__(
        self, name: str, src: str, dst: str, dst_ip: str, port: int, src_port: int | None = None
    ) -> None:
        self.name = name
        self.rx = _sock(dst, port)
        self.tx = _sock(src, src_port, timestamps=False)
        self.dst = (dst_ip, port)
        self.sent: dict[int, int] = {}
        self.recv: dict[int, int] = {}
        self.dup = 0
        self.rx_overflow = 0  # datagrams the receiving socket dropped (SO_RXQ_OVFL)
        self.softnet_dropped = 0  # backlog drops in the kernel while this stream ran

    def send(self, count: int, interval: float, payload: int = 64) -> None:
        pad = b"\0" * max(0, payload - _PROBE.size)
        start = time.monotonic()
        for seq in range(count):
            target = start + seq * interval
            delay = target - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            elif delay < -5 * interval:
                # the sender was descheduled: do not catch up with a burst (which could
                # overflow a backlog and be mistaken for netem loss), shift the schedule
                start -= delay
            t = time.time_ns()
            self.tx.sendto(_PROBE.pack(seq, t) + pad, self.dst)
            self.sent[seq] = t

    def receive(self, stop: threading.Event, idle: float) -> None:
        self.rx.settimeout(0.05)
        last = time.monotonic()
        while True:
            try:
                data, anc, _flags, _addr = self.rx.recvmsg(2048, 64)
            except TimeoutError:
                if stop.is_set() and time.monotonic() - last > idle:
                    return
                continue
            last = time.monotonic()
            seq, _t = _PROBE.unpack_from(data)
            rx = None
            for level, kind, value in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("=qq", value[:16])
                    rx = sec * 1_000_000_000 + nsec
                elif level == socket.SOL_SOCKET and kind == SO_RXQ_OVFL:
                    self.rx_overflow = max(self.rx_overflow, struct.unpack("=I", value[:4])[0])
            if rx is None:
                rx = time.time_ns()
            if seq in self.recv:
                self.dup += 1
            else:
                self.recv[seq] = rx

    def close(self) -> None:
        self.rx.close()
        self.tx.close()

    def delays_ms(self) -> list[float]:
        return [(self.recv[s] - self.sent[s]) / 1e6 for s in sorted(self.recv) if s in self.sent]

    def summary(self) -> dict[str, Any]:
        d = self.delays_ms()
        q = statistics.quantiles(d, n=100) if len(d) >= 2 else [float("nan")] * 99
        return {
            "sent": len(self.sent),
            "received": len(self.recv),
            "lost": len(self.sent) - len([s for s in self.recv if s in self.sent]),
            "duplicates": self.dup,
            "rx_overflow": self.rx_overflow,
            "softnet_dropped": self.softnet_dropped,
            "lost_seqs": [s for s in sorted(self.sent) if s not in self.recv][:100],
            "median_ms": statistics.median(d) if d else None,
            "min_ms": min(d) if d else None,
            "max_ms": max(d) if d else None,
            "p1_ms": q[0],
            "p99_ms": q[98],
        }


def measure(
    streams: list[Stream], count: int, interval: float, max_delay_s: float, during: Any = None
) -> None:
    """Run all streams concurrently; ``during`` is called while they run."""
    stop = threading.Event()
    dropped_before = softnet_dropped()
    rx = [threading.Thread(target=s.receive, args=(stop, max_delay_s + 1.0)) for s in streams]
    tx = [threading.Thread(target=s.send, args=(count, interval)) for s in streams]
    for t in rx + tx:
        t.start()
    if during is not None:
        during()
    for t in tx:
        t.join()
    stop.set()
    for t in rx:
        t.join()
    dropped = softnet_dropped() - dropped_before
    for s in streams:
        s.softnet_dropped = dropped


def softnet_dropped() -> int:
    """Packets the kernel dropped from its per-CPU input backlogs (not netem's drops)."""
    total = 0
    with open("/proc/net/softnet_stat") as f:
        for line in f:
            total += int(line.split()[1], 16)
    return total


def ping(src: str, dst_ip: str, count: int, interval: float, timeout: float) -> dict[str, Any]:
    """ICMP echo from namespace ``src`` (raw socket), RTTs from kernel timestamps."""
    with netns(src):
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    ident = os.getpid() & 0xFFFF
    sent: dict[int, int] = {}
    rtts: dict[int, float] = {}

    def checksum(b: bytes) -> int:
        if len(b) % 2:
            b += b"\0"
        total: int = sum(struct.unpack(f"!{len(b) // 2}H", b))
        total = (total >> 16) + (total & 0xFFFF)
        total += total >> 16
        return ~total & 0xFFFF

    def receiver(stop: threading.Event) -> None:
        s.settimeout(0.05)
        while not (stop.is_set() and len(rtts) >= len(sent)):
            try:
                data, anc, _f, _a = s.recvmsg(2048, 64)
            except TimeoutError:
                if stop.is_set():
                    return
                continue
            ihl = (data[0] & 0x0F) * 4
            typ, _code, _ck, rid, seq = struct.unpack_from("!BBHHH", data, ihl)
            if typ != 0 or rid != ident or seq not in sent:
                continue
            for level, kind, value in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("=qq", value[:16])
                    rtts[seq] = (sec * 1_000_000_000 + nsec - sent[seq]) / 1e6

    stop = threading.Event()
    t = threading.Thread(target=receiver, args=(stop,))
    t.start()
    for seq in range(count):
        hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + b"qoelab-ping"
        pkt = hdr[:2] + struct.pack("!H", checksum(hdr)) + hdr[4:]
        sent[seq] = time.time_ns()
        s.sendto(pkt, (dst_ip, 0))
        time.sleep(interval)
    deadline = time.monotonic() + timeout
    while len(rtts) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    t.join()
    s.close()
    values = sorted(rtts.values())
    return {
        "sent": count,
        "received": len(values),
        "median_rtt_ms": statistics.median(values) if values else None,
        "min_rtt_ms": values[0] if values else None,
    }


# --- the agent as a process ----------------------------------------------------------


def write_config(
    path: Path,
    *,
    topology: dict[str, Any],
    port: int = 8787,
    listen: str = MGMT_IP,
    state_dir: str = "/run/agent-state",
    lease: float = 30,
) -> Path:
    lines = [
        "[server]",
        f'listen = "{listen}"',
        f"port = {port}",
        f'token = "{TOKEN}"',
        "",
        "[topology]",
    ]
    flow = topology.pop("flow", None)
    for k, v in topology.items():
        lines.append(f"{k} = {json.dumps(v)}")
    if flow:
        lines += ["", "[topology.flow]"] + [f"{k} = {json.dumps(v)}" for k, v in flow.items()]
    lines += [
        "",
        "[agent]",
        'backend = "netlink"',
        f"lease_seconds = {lease}",
        f'state_dir = "{state_dir}"',
        "",
    ]
    path.write_text("\n".join(lines))
    return path


class AgentProcess:
    """``netem-agent serve`` running in a namespace, driven over HTTP from the root ns."""

    def __init__(
        self,
        config: Path,
        ns: str = ROUTER,
        host: str = MGMT_IP,
        port: int = 8787,
        log: Path | None = None,
    ) -> None:
        self.config = config
        self.ns = ns
        self.base = f"http://{host}:{port}"
        self.log = log or config.with_suffix(".log")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30) -> None:
        logf = open(self.log, "ab")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                self.ns,
                sys.executable,
                "-m",
                "netem_agent.cli",
                "serve",
                "--config",
                str(self.config),
            ],
            stdout=logf,
            stderr=logf,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"agent exited with {self.proc.returncode}: {self.log.read_text()[-2000:]}"
                )
            try:
                if self.request("GET", "/healthz", auth=False)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("agent did not become healthy")

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        auth: bool = True,
        token: str | None = None,
        raw: bytes | None = None,
        timeout: float = 30,
    ) -> tuple[int, Any]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Content-Type", "application/json")
        if auth:
            req.add_header("Authorization", f"Bearer {token or TOKEN}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def put(self, profile: dict[str, Any], lease: float = 60) -> tuple[int, Any]:
        return self.request("PUT", "/v1/profile", {"profile": profile, "lease_seconds": lease})

    def kill(self, sig: int = signal.SIGKILL) -> int:
        assert self.proc is not None
        # `ip netns exec` execs the agent, so the pid is the agent's own
        self.proc.send_signal(sig)
        return int(self.proc.wait(timeout=30))

    def stop(self) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        return self.kill(signal.SIGTERM)
