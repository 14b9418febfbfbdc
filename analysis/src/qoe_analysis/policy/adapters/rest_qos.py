"""os-ken/Ryu ``rest_qos``: queues, meters and QoS rules as REST requests.

Bodies follow ``ryu/app/rest_qos.py`` (the version with per-port queues): queue
``{"port_name", "type": "linux-htb", "max_rate", "queues": [{"max_rate"|"min_rate"}]}``
(bit/s, strings as in the Ryu book), rule ``{"match": {..., "priority"}, "actions":
{"mark", "meter", "queue"}}`` and meter ``{"meter_id", "flags", "bands": [{"type",
"rate", "burst_size"}]}``. The meter body is parsed by ``ofctl_v1_3.mod_meter_entry``,
which reads ``flags`` and band ``type`` — the older comment block in rest_qos.py that
says ``action``/``flag`` per band does not match that parser. Meter rates are kbit/s.

rest_qos queue ids are positions in the port's ``queues`` list; position 0 is the
default queue (``max_rate`` = the link rate of :class:`Topology`), each exported flow gets
the next position on its egress port (downstream: client side, upstream: server side).

rest_qos cannot express: delay or loss objectives or path selection (bounds are in
``notes``; path choice is ``qoe-analysis policy check``). Queues need rest_qos to know the
switch's OVSDB address — the first request sets it (``/v1.0/conf/switches``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from qoe_analysis.policy.adapters.common import Topology, exported_flows, provenance_text

__all__ = ["OVSDB_ADDR", "rest_qos_requests", "to_rest_qos_json"]

OVSDB_ADDR = "tcp:127.0.0.1:6632"
RULE_PRIORITY = 40000


def rest_qos_requests(policy: Mapping[str, Any], topology: Topology) -> dict[str, Any]:
    traffic = policy["traffic"]
    flows = exported_flows(policy)
    switch = topology.dpid_hex
    requests: list[dict[str, Any]] = [
        {
            "method": "PUT",
            "path": f"/v1.0/conf/switches/{switch}/ovsdb_addr",
            "body": OVSDB_ADDR,
        }
    ]
    queue_of: dict[str, int] = {}
    for port_name, downstream in (
        (topology.client_port_name, True),
        (topology.server_port_name, False),
    ):
        on_port = [f for f in flows if f.from_server == downstream]
        if not on_port:
            continue
        queues: list[dict[str, str]] = [{"max_rate": str(topology.link_bps)}]
        for f in on_port:
            queue_of[f.name] = len(queues)
            queues.append(
                {
                    "min_rate": str(int(traffic["queue_min_rate_bps"])),
                    "max_rate": str(int(traffic["queue_max_rate_bps"])),
                }
            )
        requests.append(
            {
                "method": "POST",
                "path": f"/qos/queue/{switch}",
                "body": {
                    "port_name": port_name,
                    "type": "linux-htb",
                    "max_rate": str(topology.link_bps),
                    "queues": queues,
                },
            }
        )
    for f in flows:
        requests.append(
            {
                "method": "POST",
                "path": f"/qos/meter/{switch}",
                "flow": f.name,
                "body": {
                    "meter_id": f.index,
                    "flags": ["KBPS", "BURST"],
                    "bands": [
                        {
                            "type": "DROP",
                            "rate": int(traffic["meter_rate_kbps"]),
                            "burst_size": int(traffic["meter_burst_kbits"]),
                        }
                    ],
                },
            }
        )
    for f in flows:
        side = "src" if f.from_server else "dst"
        v6 = f.ip_version == 6
        match: dict[str, str] = {
            "priority": str(RULE_PRIORITY),
            "dl_type": "IPv6" if v6 else "IPv4",
            "nw_proto": f.protocol.upper(),
            (f"ipv6_{side}" if v6 else f"nw_{side}"): f.server_ip,
        }
        if f.server_port is not None:
            match[f"tp_{side}"] = str(f.server_port)
        requests.append(
            {
                "method": "POST",
                "path": f"/qos/rules/{switch}",
                "flow": f.name,
                "body": {
                    "match": match,
                    "actions": {
                        "mark": str(f.dscp),
                        "meter": str(f.index),
                        "queue": str(queue_of[f.name]),
                    },
                },
            }
        )
    return {
        "controller": "rest_qos",
        "api": "os-ken/Ryu rest_qos (ryu.app.rest_qos)",
        "description": provenance_text(policy),
        "generated_at": policy["provenance"]["generated_at"],
        "requests": requests,
        "not_expressed": [
            {
                "flow": f.name,
                "what": "delay and loss bounds",
                "bound": {"one_way_delay_ms": f.delay_ms, "loss_pct": f.loss_pct},
                "reason": "rest_qos has no latency/loss objective or path selection",
            }
            for f in flows
        ]
        + [
            {
                "flow": f.name,
                "what": "one-way-delay-variation-maximum",
                "bound": f.jitter_ms,
                "reason": "rest_qos has no delay-variation (jitter) objective",
            }
            for f in flows
            if f.jitter_ms is not None
        ],
        "notes": [
            f"default queue 0 of each port is capped at the link rate {topology.link_bps} "
            "bit/s (Topology.link_bps); set it to the real link rate",
            f"the OVSDB address {OVSDB_ADDR} is the Ryu book's example; use the switch's",
        ],
    }


def to_rest_qos_json(policy: Mapping[str, Any], topology: Topology) -> str:
    return json.dumps(rest_qos_requests(policy, topology), indent=2) + "\n"
