"""Host routes over rtnetlink, without a process per change (a process start in the
user-mode kernel costs hundreds of milliseconds and stalls the forking daemon).

``RTM_NEWROUTE`` with ``NLM_F_CREATE | NLM_F_REPLACE`` is ``ip route replace DST/32 via
GW``; ``RTM_GETROUTE`` for one address is ``ip route get DST`` (the kernel's lookup, read
back). Message layouts: rtnetlink(7), ``struct rtmsg`` and ``struct rtattr``.
"""

from __future__ import annotations

import errno
import socket
import struct
import threading

from qoe_steer.testing import lab

NLMSGHDR = struct.Struct("=IHHII")
RTMSG = struct.Struct(
    "=BBBBBBBBI"
)  # family, dst_len, src_len, tos, table, proto, scope, type, flags
RTATTR = struct.Struct("=HH")
RTM_NEWROUTE, RTM_GETROUTE = 24, 26
NLMSG_ERROR = 2
NLM_F_REQUEST, NLM_F_ACK, NLM_F_REPLACE, NLM_F_CREATE = 0x1, 0x4, 0x100, 0x400
RTA_DST, RTA_GATEWAY = 1, 5
RT_TABLE_MAIN, RTPROT_BOOT, RT_SCOPE_UNIVERSE, RTN_UNICAST = 254, 3, 0, 1


def _attr(kind: int, value: bytes) -> bytes:
    body = RTATTR.pack(RTATTR.size + len(value), kind) + value
    return body + b"\0" * (-len(body) % 4)


class RouteSocket:
    """An rtnetlink socket bound in one network namespace (kept for the process's life)."""

    def __init__(self, ns: str) -> None:
        with lab.netns(ns):
            self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        self.sock.bind((0, 0))
        self.sock.settimeout(2.0)
        self.seq = 0
        self.lock = threading.Lock()

    def _request(self, msg_type: int, flags: int, body: bytes) -> list[tuple[int, bytes]]:
        with self.lock:
            self.seq += 1
            seq = self.seq
            header = NLMSGHDR.pack(NLMSGHDR.size + len(body), msg_type, flags, seq, 0)
            self.sock.send(header + body)
            replies: list[tuple[int, bytes]] = []
            while True:
                data = self.sock.recv(65536)
                pos = 0
                while pos + NLMSGHDR.size <= len(data):
                    length, rtype, _f, rseq, _pid = NLMSGHDR.unpack_from(data, pos)
                    payload = data[pos + NLMSGHDR.size : pos + length]
                    pos += (length + 3) & ~3
                    if rseq != seq:
                        continue
                    if rtype == NLMSG_ERROR:
                        error = -struct.unpack_from("=i", payload)[0]
                        if error:
                            raise OSError(error, f"rtnetlink: {errno.errorcode.get(error, error)}")
                        return replies
                    replies.append((rtype, payload))
                    if not flags & NLM_F_ACK:
                        return replies

    def replace(self, dst: str, gateway: str) -> None:
        """``ip route replace DST/32 via GATEWAY`` in the main table."""
        rtm = RTMSG.pack(
            socket.AF_INET, 32, 0, 0, RT_TABLE_MAIN, RTPROT_BOOT, RT_SCOPE_UNIVERSE, RTN_UNICAST, 0
        )
        attrs = _attr(RTA_DST, socket.inet_aton(dst)) + _attr(
            RTA_GATEWAY, socket.inet_aton(gateway)
        )
        flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE
        self._request(RTM_NEWROUTE, flags, rtm + attrs)

    def gateway(self, dst: str) -> str | None:
        """The next hop of the kernel's route lookup for ``dst`` (``ip route get``)."""
        rtm = RTMSG.pack(socket.AF_INET, 32, 0, 0, 0, 0, 0, 0, 0)
        replies = self._request(
            RTM_GETROUTE, NLM_F_REQUEST, rtm + _attr(RTA_DST, socket.inet_aton(dst))
        )
        for _type, payload in replies:
            pos = RTMSG.size
            while pos + RTATTR.size <= len(payload):
                length, kind = RTATTR.unpack_from(payload, pos)
                if length < RTATTR.size:
                    break
                if kind == RTA_GATEWAY:
                    return socket.inet_ntoa(payload[pos + RTATTR.size : pos + length])
                pos += (length + 3) & ~3
        return None
