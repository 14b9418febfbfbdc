"""Game-like UDP traffic for the Level A tests, run inside a namespace by ``ip netns exec``.

``send HOST PORT``: 60-byte packets at 500 pps (input) interleaved with 1200-byte packets at
250 pps (video) on one 5-tuple, until killed; checksums off (SO_NO_CHECK) because the
userspace datapath forwards veth frames whose checksum the kernel left to offload.
``receive PORT``: prints ``<ifname> <CLOCK_MONOTONIC ns>`` for every packet, naming the
interface it arrived on (IP_PKTINFO), so the test counts packets per uplink.
"""

from __future__ import annotations

import socket
import struct
import sys
import time

SO_NO_CHECK = 11
IP_PKTINFO = getattr(socket, "IP_PKTINFO", 8)  # <linux/in.h>; Python 3.11 lacks the name
SMALL, LARGE = 60, 1200
PERIOD_NS = 2_000_000  # 500 pps small; every second tick also a large one: 250 pps


def send(host: str, port: int) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, SO_NO_CHECK, 1)
    sock.bind(("0.0.0.0", 40000))
    seq = 0
    next_at = time.monotonic_ns()
    while True:
        head = struct.pack("!Q", seq)
        sock.sendto(head + bytes(SMALL - 28 - len(head)), (host, port))
        if seq % 2 == 0:
            sock.sendto(head + bytes(LARGE - 28 - len(head)), (host, port))
        seq += 1
        next_at += PERIOD_NS
        delay = next_at - time.monotonic_ns()
        if delay > 0:
            time.sleep(delay / 1e9)


def receive(port: int) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.IPPROTO_IP, IP_PKTINFO, 1)
    sock.bind(("0.0.0.0", port))
    names: dict[int, str] = {}
    out = sys.stdout
    print("ready", flush=True)
    while True:
        _, ancdata, _, _ = sock.recvmsg(2048, 256)
        now = time.monotonic_ns()
        for level, kind, data in ancdata:
            if level == socket.IPPROTO_IP and kind == IP_PKTINFO:
                index = struct.unpack("i", data[:4])[0]
                if index not in names:
                    names[index] = socket.if_indextoname(index)
                out.write(f"{names[index]} {now}\n")
        out.flush()


if __name__ == "__main__":
    if sys.argv[1] == "send":
        send(sys.argv[2], int(sys.argv[3]))
    else:
        receive(int(sys.argv[2]))
