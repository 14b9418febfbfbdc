"""A flow's match in the one form the three controllers share: OpenFlow 1.3 OXM fields.

A ``[[flow]]`` ``match`` table may use OXM names (``eth_type``, ``ip_proto``, ``ipv4_src``,
``ipv4_dst``, ``udp_src``, ``udp_dst``, ``tcp_src``, ``tcp_dst``) or the short form
``proto = "udp"|"tcp"``, ``src_ip``, ``dst_ip``, ``src_port``, ``dst_port``. Prerequisites
follow OpenFlow 1.3 §7.2.3.8: an IP field needs ``eth_type=0x0800``, a port needs ``ip_proto``.
Faucet's ACL rules and os-ken's ``OFPMatch`` take the OXM names as they are; ``ovs-ofctl``
spells the IPv4 addresses ``nw_src``/``nw_dst`` (ovs-fields(7)).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from qoe_steer.actuators.base import ActuatorError

PROTOCOLS = {"udp": 17, "tcp": 6}
SHORT = {"src_ip": "ipv4_src", "dst_ip": "ipv4_dst"}
PORT_FIELDS = ("udp_src", "udp_dst", "tcp_src", "tcp_dst")
OXM_FIELDS = ("eth_type", "ip_proto", "ipv4_src", "ipv4_dst", *PORT_FIELDS)
OVS_NAMES = {"ipv4_src": "nw_src", "ipv4_dst": "nw_dst"}


def _port(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 65536:
        raise ActuatorError(f"match.{name}: {value!r} is not a port number 1..65535")
    return value


def oxm_match(match: Mapping[str, Any]) -> dict[str, int | str]:
    """``match`` as OXM fields with their prerequisites; ActuatorError names a bad key."""
    out: dict[str, int | str] = {}
    proto_name = match.get("proto")
    if proto_name is not None:
        if proto_name not in PROTOCOLS:
            raise ActuatorError(f"match.proto: {proto_name!r} is not one of udp, tcp")
        out["ip_proto"] = PROTOCOLS[str(proto_name)]
    for key, value in match.items():
        if key == "proto":
            continue
        if key in ("src_port", "dst_port"):
            if proto_name is None:
                raise ActuatorError(f"match.{key}: needs match.proto (udp or tcp)")
            out[f"{proto_name}_{key.split('_')[0]}"] = _port(key, value)
            continue
        field = SHORT.get(key, key)
        if field not in OXM_FIELDS:
            raise ActuatorError(f"match.{key}: unknown field (use {', '.join(OXM_FIELDS)})")
        if field in ("ipv4_src", "ipv4_dst"):
            try:
                net = ipaddress.IPv4Network(str(value))
            except ValueError:
                raise ActuatorError(f"match.{key}: {value!r} is not an IPv4 address") from None
            out[field] = str(net.network_address) if net.prefixlen == 32 else str(net)
        elif field in PORT_FIELDS:
            out[field] = _port(key, value)
        elif isinstance(value, bool) or not isinstance(value, int):
            raise ActuatorError(f"match.{key}: {value!r} is not an integer")
        else:
            out[field] = value
    ported = [f for f in PORT_FIELDS if f in out]
    if ported:
        proto = PROTOCOLS[ported[0].split("_")[0]]
        if out.setdefault("ip_proto", proto) != proto:
            raise ActuatorError(f"match.{ported[0]}: contradicts ip_proto={out['ip_proto']}")
    if not out:
        raise ActuatorError("match: empty (a steered flow needs at least one field)")
    out.setdefault("eth_type", 0x0800)
    return dict(sorted(out.items(), key=lambda kv: OXM_FIELDS.index(kv[0])))


def ovs_match(match: Mapping[str, Any]) -> str:
    """The match in ``ovs-ofctl`` syntax, e.g. ``eth_type=0x800,ip_proto=17,udp_dst=5004``."""
    parts = []
    for key, value in oxm_match(match).items():
        text = f"{value:#x}" if key == "eth_type" else str(value)
        parts.append(f"{OVS_NAMES.get(key, key)}={text}")
    return ",".join(parts)
