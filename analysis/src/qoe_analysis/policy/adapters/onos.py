"""ONOS REST: a meter and a PointToPointIntent with a LatencyConstraint per direction.

Field names follow ONOS' JSON codecs (``core/common/.../codec/impl``):
``PointToPointIntentCodec`` (``ingressPoint``/``egressPoint`` = ``{device, port}``),
``IntentCodec`` (``type``, ``appId``, ``priority``), ``ConnectivityIntentCodec``
(``selector.criteria``, ``constraints``), ``DecodeConstraintCodecHelper``
(``{"type": "LatencyConstraint", "latencyMillis": <long>}``), ``MeterRequestCodec``
(``deviceId``, ``unit`` ``KB_PER_SEC``, ``burst``, ``bands``) and ``MeterBandCodec``
(``type``, ``rate``, ``burstSize``). The output is the ordered list of REST requests.

ONOS cannot express, and the export handles it so:

* packet loss: intents have no loss constraint — the loss bound is listed under
  ``not_expressed`` (path choice with loss is ``qoe-analysis policy check``);
* jitter (one-way delay variation): no intent constraint either — a jitter bound, when
  the study varied jitter, is listed under ``not_expressed``;
* DSCP marking: the REST instruction decoder has no ``L3MODIFICATION``/``IP_DSCP``
  subtype, so the intent carries no marking (mark at the edge, e.g. with the Faucet or
  OVS export) — listed under ``not_expressed``;
* binding the meter to the intent: ONOS assigns meter ids when the meter is created
  (returned by ``POST /meters``), so the intent cannot reference it offline; the meter
  request is emitted and the binding listed under ``not_expressed``;
* sub-millisecond latency: ``latencyMillis`` is an integer, the bound is floored
  (conservative). The constraint is checked against link ``latency`` annotations, which
  must be configured (network config) for ONOS to honour it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from qoe_analysis.policy.adapters.common import Topology, exported_flows, provenance_text

__all__ = ["onos_requests", "to_onos_json"]

APP_ID = "org.onosproject.rest"  # registered by ONOS' MeterRequestCodec
INTENT_PRIORITY = 40000


def onos_requests(policy: Mapping[str, Any], topology: Topology) -> dict[str, Any]:
    traffic = policy["traffic"]
    requests: list[dict[str, Any]] = []
    not_expressed: list[dict[str, Any]] = []
    server = {"device": topology.onos_device, "port": str(topology.server_port)}
    client = {"device": topology.onos_device, "port": str(topology.client_port)}
    for f in exported_flows(policy):
        requests.append(
            {
                "method": "POST",
                "path": f"/onos/v1/meters/{topology.onos_device}",
                "flow": f.name,
                "body": {
                    "deviceId": topology.onos_device,
                    "unit": "KB_PER_SEC",
                    "burst": True,
                    "bands": [
                        {
                            "type": "DROP",
                            "rate": int(traffic["meter_rate_kbps"]),
                            "burstSize": int(traffic["meter_burst_kbits"]),
                        }
                    ],
                },
            }
        )
        side = "SRC" if f.from_server else "DST"
        v6 = f.ip_version == 6
        criteria: list[dict[str, Any]] = [
            {"type": "ETH_TYPE", "ethType": "0x86dd" if v6 else "0x800"},
            {"type": "IP_PROTO", "protocol": 17 if f.protocol == "udp" else 6},
            {"type": f"IPV6_{side}" if v6 else f"IPV4_{side}", "ip": f.server_ip},
        ]
        if f.server_port is not None:
            key = "udpPort" if f.protocol == "udp" else "tcpPort"
            criteria.append({"type": f"{f.protocol.upper()}_{side}", key: f.server_port})
        if f.delay_ms_floor is None:
            not_expressed.append(
                {
                    "flow": f.name,
                    "what": "intent",
                    "reason": "no delay bound (the class has no joint bound)",
                }
            )
            continue
        requests.append(
            {
                "method": "POST",
                "path": "/onos/v1/intents",
                "flow": f.name,
                "body": {
                    "type": "PointToPointIntent",
                    "appId": APP_ID,
                    "priority": INTENT_PRIORITY,
                    "selector": {"criteria": criteria},
                    # no delay bound (delay not varied in the study): no latency constraint
                    "constraints": [
                        {"type": "LatencyConstraint", "latencyMillis": f.delay_ms_floor}
                    ]
                    if f.delay_ms_floor is not None
                    else [],
                    "ingressPoint": server if f.from_server else client,
                    "egressPoint": client if f.from_server else server,
                },
            }
        )
        if f.jitter_ms is not None:
            not_expressed.append(
                {
                    "flow": f.name,
                    "what": "one-way-delay-variation-maximum",
                    "bound": f.jitter_ms,
                    "reason": "ONOS intents have no delay-variation (jitter) constraint",
                }
            )
        not_expressed += [
            {
                "flow": f.name,
                "what": "one-way-packet-loss",
                "bound": f.loss_pct,
                "reason": "ONOS intents have no loss constraint",
            },
            {
                "flow": f.name,
                "what": "ip_dscp",
                "bound": f.dscp,
                "reason": "the ONOS REST instruction decoder has no IP_DSCP modification; "
                "mark at the edge (Faucet/OVS export)",
            },
            {
                "flow": f.name,
                "what": "meter binding",
                "reason": "ONOS assigns the meter id on POST /meters; add a METER instruction "
                "with that id to the flow afterwards",
            },
        ]
    return {
        "controller": "onos",
        "api": "ONOS northbound REST API (/onos/v1)",
        "description": provenance_text(policy),
        "generated_at": policy["provenance"]["generated_at"],
        "requests": requests,
        "not_expressed": not_expressed,
        "notes": [
            "latencyMillis is the floored one-way delay bound of the direction; ONOS checks "
            "it against the 'latency' annotation of links, which must be configured",
            "requests run in order: each meter before the intent of the same flow",
        ],
    }


def to_onos_json(policy: Mapping[str, Any], topology: Topology) -> str:
    return json.dumps(onos_requests(policy, topology), indent=2) + "\n"
