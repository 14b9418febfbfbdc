"""A small rtnetlink client (stdlib sockets only) for qdiscs, filters and links.

Only what the agent needs: create/change/delete qdiscs (netem, prio, ingress), add
u32/matchall filters (with a mirred redirect action), create/delete IFB links, and dump
qdiscs/filters/links back *as structured data* — the agent never parses text.

Message building is split from I/O so it can be unit-tested without a kernel.
"""

from __future__ import annotations

import errno
import os
import socket
import struct
import threading
from dataclasses import dataclass, field
from typing import Any

from netem_agent.netem import iter_attrs

NETLINK_ROUTE = 0

RTM_NEWLINK, RTM_DELLINK, RTM_GETLINK = 16, 17, 18
RTM_NEWQDISC, RTM_DELQDISC, RTM_GETQDISC = 36, 37, 38
RTM_NEWTFILTER, RTM_DELTFILTER, RTM_GETTFILTER = 44, 45, 46

NLM_F_REQUEST = 0x1
NLM_F_MULTI = 0x2
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLM_F_REPLACE = 0x100
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLA_F_NESTED = 0x8000

TCA_KIND = 1
TCA_OPTIONS = 2

IFLA_IFNAME = 3
IFLA_MTU = 4
IFLA_OPERSTATE = 16
IFLA_LINKINFO = 18
IFLA_EXT_MASK = 29
RTEXT_FILTER_SKIP_STATS = 1 << 3
IFLA_INFO_KIND = 1
IFF_UP = 0x1

TC_H_ROOT = 0xFFFFFFFF
TC_H_INGRESS = 0xFFFFFFF1
INGRESS_HANDLE = 0xFFFF0000
ETH_P_ALL = 0x0003
ETH_P_IP = 0x0800

# filters
TCA_U32_CLASSID = 1
TCA_U32_SEL = 5
TC_U32_TERMINAL = 1
TCA_MATCHALL_ACT = 2
TCA_ACT_KIND = 1
TCA_ACT_OPTIONS = 2
TCA_MIRRED_PARMS = 2
TC_ACT_STOLEN = 4
TCA_EGRESS_REDIR = 1

_NLMSGHDR = struct.Struct("=IHHII")
_TCMSG = struct.Struct("=BxxxiIII")
_IFINFOMSG = struct.Struct("=BxHiII")
_U32_SEL = struct.Struct("=BBBxHHhhI")
_U32_KEY = struct.Struct("=IIii")
_MIRRED = struct.Struct("=IIiiiiI")


class NetlinkError(OSError):
    """The kernel refused a request (errno + message)."""


def fmt_handle(h: int) -> str:
    """1:2 style text of a tc handle (for messages only; never parsed back)."""
    if h == TC_H_ROOT:
        return "root"
    if h == TC_H_INGRESS:
        return "ingress"
    return f"{h >> 16:x}:{h & 0xFFFF:x}" if h & 0xFFFF else f"{h >> 16:x}:"


def attr(kind: int, payload: bytes) -> bytes:
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * ((4 - length % 4) % 4)


def nest(kind: int, *parts: bytes) -> bytes:
    return attr(kind | NLA_F_NESTED, b"".join(parts))


def cstr(text: str) -> bytes:
    return text.encode() + b"\0"


def tcmsg(ifindex: int, handle: int, parent: int, info: int = 0) -> bytes:
    return _TCMSG.pack(socket.AF_UNSPEC, ifindex, handle, parent, info)


def qdisc_request(
    ifindex: int, parent: int, handle: int, kind: str, options: bytes | None
) -> bytes:
    body = tcmsg(ifindex, handle, parent) + attr(TCA_KIND, cstr(kind))
    if options is not None:
        body += attr(TCA_OPTIONS, options)
    return body


def prio_options(bands: int, priomap: list[int]) -> bytes:
    return struct.pack("=i16B", bands, *priomap)


def decode_prio_options(data: bytes) -> dict[str, Any]:
    bands, *priomap = struct.unpack_from("=i16B", data)
    return {"bands": bands, "priomap": list(priomap)}


def u32_options(classid: int, keys: list[tuple[int, int, int]]) -> bytes:
    """u32 selector: keys are (value, mask, offset) with value/mask in host order."""
    sel = _U32_SEL.pack(TC_U32_TERMINAL, 0, len(keys), 0, 0, 0, 0, 0)
    for value, mask, off in keys:
        sel += _U32_KEY.pack(socket.htonl(mask), socket.htonl(value & mask), off, 0)
    return attr(TCA_U32_CLASSID, struct.pack("=I", classid)) + attr(TCA_U32_SEL, sel)


def decode_u32_options(data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {"classid": None, "keys": []}
    for kind, payload in iter_attrs(data):
        if kind == TCA_U32_CLASSID:
            (out["classid"],) = struct.unpack_from("=I", payload)
        elif kind == TCA_U32_SEL:
            flags, _, nkeys, *_rest = _U32_SEL.unpack_from(payload)
            keys = []
            for i in range(nkeys):
                mask, value, off, _ = _U32_KEY.unpack_from(payload, _U32_SEL.size + 16 * i)
                keys.append((socket.ntohl(value), socket.ntohl(mask), off))
            out["keys"] = sorted(keys)
            out["terminal"] = bool(flags & TC_U32_TERMINAL)
    return out


def matchall_redirect_options(target_ifindex: int) -> bytes:
    mirred = _MIRRED.pack(0, 0, TC_ACT_STOLEN, 0, 0, TCA_EGRESS_REDIR, target_ifindex)
    action = nest(
        1,
        attr(TCA_ACT_KIND, cstr("mirred")),
        nest(TCA_ACT_OPTIONS, attr(TCA_MIRRED_PARMS, mirred)),
    )
    return nest(TCA_MATCHALL_ACT, action)


def decode_matchall_options(data: bytes) -> dict[str, Any]:
    out: dict[str, Any] = {"actions": []}
    for kind, payload in iter_attrs(data):
        if kind != TCA_MATCHALL_ACT:
            continue
        for _prio, act in iter_attrs(payload):
            info: dict[str, Any] = {}
            for akind, apayload in iter_attrs(act):
                if akind == TCA_ACT_KIND:
                    info["kind"] = apayload.rstrip(b"\0").decode()
                elif akind == TCA_ACT_OPTIONS:
                    for okind, opayload in iter_attrs(apayload):
                        if okind == TCA_MIRRED_PARMS:
                            fields = _MIRRED.unpack_from(opayload)
                            info["action"] = fields[2]
                            info["eaction"] = fields[5]
                            info["ifindex"] = fields[6]
            out["actions"].append(info)
    return out


@dataclass
class Qdisc:
    ifindex: int
    kind: str
    handle: int
    parent: int
    options: bytes = b""

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "handle": fmt_handle(self.handle),
            "parent": fmt_handle(self.parent),
        }


@dataclass
class Filter:
    ifindex: int
    parent: int
    handle: int
    prio: int
    protocol: int
    kind: str
    options: bytes = b""


@dataclass
class Link:
    index: int
    name: str
    flags: int
    kind: str | None = None
    operstate: int = 0
    mtu: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def up(self) -> bool:
        return bool(self.flags & IFF_UP)


def _parse_tc(body: bytes) -> tuple[int, int, int, int, dict[int, bytes]]:
    _family, ifindex, handle, parent, info = _TCMSG.unpack_from(body)
    attrs = dict(iter_attrs(body[_TCMSG.size :]))
    return ifindex, handle, parent, info, attrs


class Rtnl:
    """One NETLINK_ROUTE socket in the caller's network namespace. Thread-safe."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self._sock.bind((0, 0))
        self._seq = 0
        self._lock = threading.Lock()
        # One receive buffer for the socket's life: recv(1 MiB) would allocate (mmap) and
        # free (munmap) a fresh megabyte per reply, which under user-mode Linux costs more
        # than the netlink round trip itself.
        self._buf = bytearray(1 << 20)
        self._view = memoryview(self._buf)

    def close(self) -> None:
        self._sock.close()

    def _request(self, msg_type: int, flags: int, body: bytes) -> list[tuple[int, bytes]]:
        with self._lock:
            self._seq += 1
            seq = self._seq
            msg = _NLMSGHDR.pack(_NLMSGHDR.size + len(body), msg_type, flags, seq, 0) + body
            self._sock.send(msg)
            replies: list[tuple[int, bytes]] = []
            while True:
                n = self._sock.recv_into(self._buf)
                data = bytes(self._view[:n])
                pos = 0
                while pos + _NLMSGHDR.size <= len(data):
                    length, rtype, rflags, rseq, _pid = _NLMSGHDR.unpack_from(data, pos)
                    payload = data[pos + _NLMSGHDR.size : pos + length]
                    pos += (length + 3) & ~3
                    if rseq != seq:
                        continue
                    if rtype == NLMSG_ERROR:
                        (code,) = struct.unpack_from("=i", payload)
                        if code:
                            raise NetlinkError(-code, os.strerror(-code))
                        return replies
                    if rtype == NLMSG_DONE:
                        return replies
                    replies.append((rtype, payload))
                    if not rflags & NLM_F_MULTI and not flags & NLM_F_ACK:
                        return replies

    # --- qdiscs ---------------------------------------------------------------------
    def qdisc(
        self,
        verb: str,
        ifindex: int,
        parent: int,
        handle: int,
        kind: str,
        options: bytes | None = None,
    ) -> None:
        """verb: add (must not exist), change (must exist), replace, del."""
        flags = NLM_F_REQUEST | NLM_F_ACK
        msg_type = RTM_NEWQDISC
        if verb == "add":
            flags |= NLM_F_CREATE | NLM_F_EXCL
        elif verb == "replace":
            flags |= NLM_F_CREATE | NLM_F_REPLACE
        elif verb == "del":
            msg_type = RTM_DELQDISC
            options = None
        elif verb != "change":
            raise ValueError(verb)
        self._request(msg_type, flags, qdisc_request(ifindex, parent, handle, kind, options))

    def qdiscs(self, ifindex: int | None) -> list[Qdisc]:
        """Qdiscs of one device (or of all devices when ifindex is None)."""
        out = []
        for _t, body in self._request(RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, tcmsg(0, 0, 0)):
            idx, handle, parent, _info, attrs = _parse_tc(body)
            if ifindex is not None and idx != ifindex:
                continue
            kind = attrs.get(TCA_KIND, b"").rstrip(b"\0").decode()
            out.append(Qdisc(idx, kind, handle, parent, attrs.get(TCA_OPTIONS, b"")))
        return out

    # --- filters --------------------------------------------------------------------
    def add_filter(
        self, ifindex: int, parent: int, prio: int, protocol: int, kind: str, options: bytes
    ) -> None:
        info = (prio << 16) | socket.htons(protocol)
        body = tcmsg(ifindex, 0, parent, info) + attr(TCA_KIND, cstr(kind))
        body += attr(TCA_OPTIONS, options)
        self._request(RTM_NEWTFILTER, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, body)

    def filters(self, ifindex: int, parent: int) -> list[Filter]:
        out = []
        flags = NLM_F_REQUEST | NLM_F_DUMP
        for _t, body in self._request(RTM_GETTFILTER, flags, tcmsg(ifindex, 0, parent)):
            idx, handle, fparent, info, attrs = _parse_tc(body)
            kind = attrs.get(TCA_KIND, b"").rstrip(b"\0").decode()
            if kind == "u32" and handle & 0xFFF == 0:
                continue  # u32 hash tables (800:) and chain headers carry no selector
            out.append(
                Filter(
                    idx,
                    fparent,
                    handle,
                    info >> 16,
                    socket.ntohs(info & 0xFFFF),
                    kind,
                    attrs.get(TCA_OPTIONS, b""),
                )
            )
        return out

    # --- links ----------------------------------------------------------------------
    def links(self) -> list[Link]:
        out = []
        body = _IFINFOMSG.pack(socket.AF_UNSPEC, 0, 0, 0, 0)
        body += attr(IFLA_EXT_MASK, struct.pack("=I", RTEXT_FILTER_SKIP_STATS))
        for _t, reply in self._request(RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, body):
            out.append(_parse_link(reply))
        return out

    def link(self, name: str) -> Link | None:
        body = _IFINFOMSG.pack(socket.AF_UNSPEC, 0, 0, 0, 0) + attr(IFLA_IFNAME, cstr(name))
        body += attr(IFLA_EXT_MASK, struct.pack("=I", RTEXT_FILTER_SKIP_STATS))
        try:
            replies = self._request(RTM_GETLINK, NLM_F_REQUEST, body)
        except NetlinkError as e:
            if e.errno in (errno.ENODEV, errno.ENOENT):
                return None
            raise
        return _parse_link(replies[0][1]) if replies else None

    def add_ifb(self, name: str) -> None:
        body = _IFINFOMSG.pack(socket.AF_UNSPEC, 0, 0, 0, 0) + attr(IFLA_IFNAME, cstr(name))
        body += nest(IFLA_LINKINFO, attr(IFLA_INFO_KIND, cstr("ifb")))
        self._request(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, body)

    def set_up(self, ifindex: int) -> None:
        body = _IFINFOMSG.pack(socket.AF_UNSPEC, 0, ifindex, IFF_UP, IFF_UP)
        self._request(RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, body)

    def del_link(self, ifindex: int) -> None:
        body = _IFINFOMSG.pack(socket.AF_UNSPEC, 0, ifindex, 0, 0)
        self._request(RTM_DELLINK, NLM_F_REQUEST | NLM_F_ACK, body)


def _parse_link(body: bytes) -> Link:
    _family, _type, index, flags, _change = _IFINFOMSG.unpack_from(body)
    link = Link(index=index, name="", flags=flags)
    for kind, payload in iter_attrs(body[_IFINFOMSG.size :]):
        if kind == IFLA_IFNAME:
            link.name = payload.rstrip(b"\0").decode()
        elif kind == IFLA_MTU:
            (link.mtu,) = struct.unpack_from("=I", payload)
        elif kind == IFLA_OPERSTATE:
            link.operstate = payload[0]
        elif kind == IFLA_LINKINFO:
            for ikind, ipayload in iter_attrs(payload):
                if ikind == IFLA_INFO_KIND:
                    link.kind = ipayload.rstrip(b"\0").decode()
    return link
