"""Where each direction is shaped and which kernel objects the agent owns there.

Ownership is recognised by handle and kind, never by text: root qdisc ``4e45:`` (netem,
or prio when a flow filter is configured), netem child ``4e46:`` under ``4e45:1``, the
``ingress`` qdisc it created (recorded in the state file) and its IFB device (recorded,
and of link kind ``ifb``).
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass
from typing import Any

from netem_profile import DIRECTION_LABELS, DirectionProfile

from netem_agent.backends import QdiscState
from netem_agent.config import FlowFilter, Topology
from netem_agent.rtnl import TC_H_ROOT

ROOT_MAJOR = 0x4E45
ROOT_HANDLE = ROOT_MAJOR << 16  # 4e45:
CHILD_HANDLE = 0x4E46 << 16  # 4e46: (netem under the prio root when a flow filter is used)
GAME_CLASS = ROOT_HANDLE | 1  # 4e45:1 — band for the game flow
OTHER_BAND_PRIOMAP = [1] * 16  # everything else → band 2 (4e45:2, plain fifo)
REDIRECT_PRIO = 0x4E45  # preference of the ingress→IFB redirect filter
IPPROTO = {"udp": 17, "tcp": 6}


@dataclass(frozen=True)
class ShapingPoint:
    direction: str  # upstream | downstream
    dev: str  # device whose egress carries the netem qdisc
    iface: str  # the real interface the direction crosses
    attach: str  # "egress" or "ingress" (then dev is the IFB device)

    def describe(self) -> dict[str, Any]:
        return {
            "direction": DIRECTION_LABELS[self.direction],
            "interface": self.iface,
            "attach": self.attach if self.attach == "egress" else f"ingress via {self.dev}",
            "device": self.dev,
        }


def shaping_points(t: Topology) -> dict[str, ShapingPoint]:
    if t.mode == "bridge":
        assert t.client_iface and t.server_iface
        return {
            # server→client leaves the box towards the client
            "downstream": ShapingPoint("downstream", t.client_iface, t.client_iface, "egress"),
            # client→server leaves the box towards the server
            "upstream": ShapingPoint("upstream", t.server_iface, t.server_iface, "egress"),
        }
    assert t.iface
    outgoing = "upstream" if t.role == "client" else "downstream"
    incoming = "downstream" if t.role == "client" else "upstream"
    return {
        outgoing: ShapingPoint(outgoing, t.iface, t.iface, "egress"),
        incoming: ShapingPoint(incoming, t.ifb_name, t.iface, "ingress"),
    }


def netem_location(topology: Topology) -> tuple[int, int]:
    """(parent, handle) of the netem qdisc on each shaping device."""
    if topology.flow is None:
        return TC_H_ROOT, ROOT_HANDLE
    return GAME_CLASS, CHILD_HANDLE


def is_ours(q: QdiscState | None) -> bool:
    """Whether ``q`` is a root qdisc the agent installed."""
    return q is not None and q.handle == ROOT_HANDLE and q.kind in ("netem", "prio")


def jitter_table(d: DirectionProfile) -> str | None:
    """The delay distribution table to send: only when there is jitter to distribute."""
    return d.jitter_distribution if d.jitter_ms > 0 else None


def flow_filter_keys(flow: FlowFilter, direction: str) -> list[list[tuple[int, int, int]]]:
    """u32 key sets (value, mask, offset) — one filter per protocol/port — for IPv4.

    client→server packets go *to* the server address/ports, server→client packets come
    *from* them. Port matches require a 20-byte IP header and a first fragment.
    """
    addr = struct.unpack("!I", socket.inet_aton(flow.server_addr))[0]
    addr_key = (addr, 0xFFFFFFFF, 16 if direction == "upstream" else 12)
    protos = (
        [IPPROTO[flow.protocol]] if flow.protocol != "any" else ([17, 6] if flow.ports else [None])
    )
    out = []
    for proto in protos:
        base = [addr_key]
        if proto is not None:
            base.append((proto << 16, 0x00FF0000, 8))
        if not flow.ports:
            out.append(sorted(base))
            continue
        for port in flow.ports:
            keys = [*base, (0x05000000, 0x0F000000, 0), (0, 0x00001FFF, 4)]
            if direction == "upstream":
                keys.append((port, 0x0000FFFF, 20))
            else:
                keys.append((port << 16, 0xFFFF0000, 20))
            out.append(sorted(keys))
    return out
