"""Probes that measure netem with real packets inside the user-mode kernel.

Probes are UDP datagrams carrying a sequence number and the CLOCK_REALTIME send time;
receivers take the kernel's receive timestamp (SO_TIMESTAMPNS). All namespaces share one
kernel clock, so the difference is the true one-way delay. ``ping`` measures ICMP echo
round trips.
"""

from __future__ import annotations

import os
import socket
import statistics
import struct
import threading
import time
from typing import Any

from netem_agent.testing.lab import netns

SO_TIMESTAMPNS = 35
SO_RCVBUFFORCE = 33
SO_RXQ_OVFL = 40


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
