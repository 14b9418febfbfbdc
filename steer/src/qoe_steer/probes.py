"""Timestamped UDP probes: a reflector on the client side, a prober per path.

Packet (network byte order, 44 bytes)::

    magic "QSP1" | path hash u32 (CRC-32 of the path id) | seq u32 |
    reflector receive bitmap u64 | t_send_ns i64 | t_reflect_rx_ns i64 | t_reflect_tx_ns i64

The prober sends seq and its send time; the reflector stamps its receive and send times
and sets bit i of the bitmap when it received seq−1−i of the same stream (the 64 probes
before), so a lost reply still tells whether the probe got through upstream.

Clock: CLOCK_REALTIME on both sides (``time.clock_gettime_ns``; the kernel's
SO_TIMESTAMPNS receive stamp when the socket gives one, which is the same clock). One-way
delay = difference of two hosts' clocks: exact when both ends share one kernel (same host
or network namespaces), otherwise as good as their PTP/NTP synchronisation (a monotonic
clock would not be comparable across machines at all).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import socket
import struct
import time
import zlib
from dataclasses import dataclass

MAGIC = b"QSP1"
PACKET = struct.Struct("!4sIIQqqq")
SO_TIMESTAMPNS = 35
BITMAP_BITS = 64
MAX_STREAMS = 1024


def now_ns() -> int:
    """The probes' clock: CLOCK_REALTIME in nanoseconds."""
    return time.clock_gettime_ns(time.CLOCK_REALTIME)


def path_hash(path_id: str) -> int:
    """CRC-32 of the path id: tells the streams of different paths apart."""
    return zlib.crc32(path_id.encode()) & 0xFFFFFFFF


@dataclass(frozen=True)
class Probe:
    path_hash: int
    seq: int
    bitmap: int
    t_send_ns: int
    t_reflect_rx_ns: int
    t_reflect_tx_ns: int

    def pack(self) -> bytes:
        return PACKET.pack(
            MAGIC,
            self.path_hash,
            self.seq,
            self.bitmap,
            self.t_send_ns,
            self.t_reflect_rx_ns,
            self.t_reflect_tx_ns,
        )


def unpack(data: bytes) -> Probe | None:
    """The probe in a datagram, or None when it is not one."""
    if len(data) < PACKET.size:
        return None
    magic, h, seq, bitmap, t_send, t_rx, t_tx = PACKET.unpack_from(data)
    if magic != MAGIC:
        return None
    return Probe(h, seq, bitmap, t_send, t_rx, t_tx)


def _receive(sock: socket.socket) -> tuple[bytes, tuple[str, int], int]:
    """One datagram with its kernel receive stamp (SO_TIMESTAMPNS) or the clock's."""
    data, anc, _flags, addr = sock.recvmsg(256, 64)
    stamp = None
    for level, kind, value in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(value) >= 16:
            sec, nsec = struct.unpack("=qq", value[:16])
            stamp = sec * 1_000_000_000 + nsec
    return data, addr, stamp if stamp is not None else now_ns()


def _socket(bind: tuple[str, int]) -> socket.socket:
    family = socket.AF_INET6 if ":" in bind[0] else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_DGRAM)
    with contextlib.suppress(OSError):  # not Linux: the clock stamps after recvmsg
        sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.bind(bind)
    return sock


class _Stream:
    """The reflector's memory of one sender's stream: the seqs received recently."""

    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.top = -1

    def receive(self, seq: int) -> int:
        if seq + 4 * BITMAP_BITS < self.top:  # the sender restarted its sequence
            self.seen.clear()
            self.top = -1
        self.seen.add(seq)
        self.top = max(self.top, seq)
        if len(self.seen) > 4 * BITMAP_BITS:
            self.seen = {s for s in self.seen if s > self.top - 2 * BITMAP_BITS}
        return sum(1 << i for i in range(BITMAP_BITS) if seq - 1 - i in self.seen)


class Reflector:
    """Stamps every probe it receives and sends it back (``qoe-steer reflect``)."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = _socket((host, port))
        self.address: tuple[str, int] = self.sock.getsockname()[:2]
        self.streams: collections.OrderedDict[tuple[object, int], _Stream] = (
            collections.OrderedDict()
        )
        self.reflected = 0
        self._stop = False

    def handle(self, data: bytes, addr: tuple[str, int], rx_ns: int) -> None:
        probe = unpack(data)
        if probe is None:
            return
        key = (addr, probe.path_hash)
        stream = self.streams.pop(key, None) or _Stream()
        self.streams[key] = stream
        if len(self.streams) > MAX_STREAMS:
            self.streams.popitem(last=False)
        bitmap = stream.receive(probe.seq)
        reply = Probe(probe.path_hash, probe.seq, bitmap, probe.t_send_ns, rx_ns, now_ns())
        try:
            self.sock.sendto(reply.pack(), addr)
            self.reflected += 1
        except OSError:
            pass  # the way back is down: the prober counts it as lost downstream

    def serve_forever(self, poll_s: float = 0.2) -> None:
        """Reflect until :meth:`stop` (checked every ``poll_s``)."""
        self.sock.settimeout(poll_s)
        while not self._stop:
            try:
                data, addr, rx = _receive(self.sock)
            except TimeoutError:
                continue
            except OSError:
                if self._stop:
                    return
                raise
            self.handle(data, addr, rx)

    def stop(self) -> None:
        self._stop = True

    def close(self) -> None:
        self._stop = True
        self.sock.close()


@dataclass
class ProbeRecord:
    """What is known about one probe; ``reflected`` None until a reply tells."""

    seq: int
    t_send_ns: int
    t_reflect_rx_ns: int | None = None
    t_reflect_tx_ns: int | None = None
    t_rx_ns: int | None = None
    reflected: bool | None = None


class Prober:
    """Probes one path: sends every ``interval_s`` (non-blocking), records the replies."""

    def __init__(
        self, path_id: str, host: str, port: int, interval_s: float, keep_s: float
    ) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = _socket(("::" if family == socket.AF_INET6 else "0.0.0.0", 0))
        self.sock.setblocking(False)
        self.path_id = path_id
        self.hash = path_hash(path_id)
        self.target = (host, port)
        self.interval_ns = int(interval_s * 1e9)
        self.keep_ns = int(keep_s * 1e9)
        self.records: collections.OrderedDict[int, ProbeRecord] = collections.OrderedDict()
        self.next_seq = 0
        self.next_send_ns = 0
        self.send_errors = 0
        self.last_reply_ns: int | None = None

    def fileno(self) -> int:
        return self.sock.fileno()

    def due_in_s(self, t_ns: int) -> float:
        return max(0.0, (self.next_send_ns - t_ns) / 1e9)

    def send_due(self, t_ns: int) -> None:
        """Send one probe when it is due; a late sender skips ahead instead of bursting."""
        if t_ns < self.next_send_ns:
            return
        seq = self.next_seq & 0xFFFFFFFF
        self.next_seq += 1
        self.next_send_ns = max(self.next_send_ns + self.interval_ns, t_ns)
        stamp = now_ns()
        self.records[seq] = ProbeRecord(seq, stamp)
        try:
            self.sock.sendto(Probe(self.hash, seq, 0, stamp, 0, 0).pack(), self.target)
        except OSError:
            self.send_errors += 1  # no route: it counts as lost upstream
        while self.records:
            first = next(iter(self.records.values()))
            if stamp - first.t_send_ns <= self.keep_ns:
                break
            self.records.popitem(last=False)

    def receive_all(self) -> int:
        """Read every reply waiting on the socket; returns how many were probes of ours."""
        count = 0
        while True:
            try:
                data, _addr, rx = _receive(self.sock)
            except (BlockingIOError, InterruptedError):
                return count
            except OSError:
                return count  # e.g. ICMP port unreachable surfaced as ECONNREFUSED
            probe = unpack(data)
            if probe is None or probe.path_hash != self.hash:
                continue
            record = self.records.get(probe.seq)
            if record is None or record.t_send_ns != probe.t_send_ns:
                continue
            count += 1
            record.t_reflect_rx_ns = probe.t_reflect_rx_ns
            record.t_reflect_tx_ns = probe.t_reflect_tx_ns
            record.t_rx_ns = rx
            self.last_reply_ns = max(rx, self.last_reply_ns or rx)
            record.reflected = True
            for i in range(BITMAP_BITS):
                earlier = self.records.get((probe.seq - 1 - i) & 0xFFFFFFFF)
                if earlier is None or earlier.t_rx_ns is not None:
                    continue
                if probe.bitmap >> i & 1:
                    earlier.reflected = True
                elif earlier.reflected is None:
                    earlier.reflected = False

    def snapshot(self) -> list[ProbeRecord]:
        """Copies of the records (call with the lock held when another thread probes)."""
        return [dataclasses.replace(r) for r in self.records.values()]

    def close(self) -> None:
        self.sock.close()
