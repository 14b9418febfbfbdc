"""Game-like UDP traffic between the game server and client, noting each packet's path.

Both ends send a 200-byte datagram every ``interval_s`` (default 10 ms, 100 packets/s
each way: a cloud-gaming input/frame cadence) between 10.9.0.1:5000 and 10.9.0.2:5001.
The receivers read the ingress interface of every packet (IP_PKTINFO) and keep the times
at which the arriving packets changed path: that is where the flow's packets actually went,
independent of what the steering service or the routes say.
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from typing import Any

from qoe_steer.testing import lab

IP_PKTINFO = 8
PORTS = {"server": 5000, "client": 5001}
_PAYLOAD = struct.Struct("!Iq")  # seq, send time (ns)


class _End:
    """One end of the flow: a socket in its namespace and the map ifindex → path."""

    def __init__(self, ns: str, local: str, remote: str, port: int, peer_port: int) -> None:
        with lab.netns(ns):
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.IPPROTO_IP, IP_PKTINFO, 1)
        self.sock.bind((local, port))
        self.sock.settimeout(0.1)
        self.peer = (remote, peer_port)
        devs = {p.id: (p.server_dev if ns == lab.SERVER else p.client_dev) for p in lab.PATHS}
        self.paths = {lab.ifindex(ns, dev): pid for pid, dev in devs.items()}
        self.switches: list[list[Any]] = []  # [t_unix, path] when the ingress path changed
        self.counts: dict[str, int] = {}
        self.last: str | None = None

    def receive(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                _data, anc, _flags, _addr = self.sock.recvmsg(2048, 64)
            except TimeoutError:
                continue
            t = time.time()
            index = None
            for level, kind, value in anc:
                if level == socket.IPPROTO_IP and kind == IP_PKTINFO:
                    index = struct.unpack_from("=i", value)[0]
            path = self.paths.get(index or -1, f"if{index}")
            self.counts[path] = self.counts.get(path, 0) + 1
            if path != self.last:
                self.switches.append([t, path])
                self.last = path

    def send(self, stop: threading.Event, interval_s: float) -> None:
        pad = b"\0" * (200 - _PAYLOAD.size)
        seq, next_t = 0, time.monotonic()
        while not stop.is_set():
            self.sock.sendto(_PAYLOAD.pack(seq, time.time_ns()) + pad, self.peer)
            seq += 1
            next_t = max(next_t + interval_s, time.monotonic())
            stop.wait(max(0.0, next_t - time.monotonic()))


class GameTraffic:
    """Runs both directions in threads until :meth:`stop`; :meth:`result` gives the paths."""

    def __init__(self, interval_s: float = 0.01) -> None:
        self.interval_s = interval_s
        self.server = _End(
            lab.SERVER, lab.GAME_SERVER_IP, lab.GAME_CLIENT_IP, PORTS["server"], PORTS["client"]
        )
        self.client = _End(
            lab.CLIENT, lab.GAME_CLIENT_IP, lab.GAME_SERVER_IP, PORTS["client"], PORTS["server"]
        )
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=end.receive, args=(self._stop,), daemon=True)
            for end in (self.server, self.client)
        ] + [
            threading.Thread(target=end.send, args=(self._stop, interval_s), daemon=True)
            for end in (self.server, self.client)
        ]

    def start(self) -> None:
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=2)
        self.server.sock.close()
        self.client.sock.close()

    def result(self) -> dict[str, Any]:
        """Downstream = server → client (received by the client), upstream the reverse."""
        return {
            "interval_s": self.interval_s,
            "downstream": self.client.switches,
            "upstream": self.server.switches,
            "counts": {"downstream": self.client.counts, "upstream": self.server.counts},
        }
