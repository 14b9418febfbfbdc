"""IETF Network Slice Service (RFC 9543) JSON: SLO templates and per-direction bounds.

Encoding: RFC 7951 JSON of the YANG module ``ietf-network-slice-service`` (revision
2024-08-28, draft-ietf-teas-ietf-network-slice-nbi-yang-16): container
``network-slice-services`` with ``slo-sle-templates/slo-sle-template`` (one per class,
direction-free, so the tighter of the two directions' bounds) and, for classes with a
traffic selector, a ``slice-service`` with two SDPs (game server, players), one
point-to-point connection group and one connectivity construct per direction carrying
that direction's bounds. ``metric-bound`` entries are ``{metric-type, metric-unit,
value-description, bound}``; ``bound`` is a ``uint64``, encoded as a JSON string.

What the model cannot express as the study states it, and the handling:

* fractional bounds — ``bound`` is an integer: delays are floored to whole milliseconds
  (microseconds if that would give 0); loss is written in parts per million
  (``metric-unit`` ``ppm``; 1 % = 10000 ppm, floored), since the draft names only
  "percentage" as an example unit and a whole-percent loss bound would be 0, which the
  model defines as *unbounded*;
* confidence intervals and the basis of a bound — in ``value-description`` (text);
* jitter: a study that varied jitter has a ``one-way-delay-variation-maximum`` bound
  (the model's identity for the maximum one-way delay variation, RFC 9543 §5.1), written
  like a delay (whole milliseconds); the study's jitter is netem's (the spread of the
  added delay), which is the delay variation the bound refers to;
* a metric the study did not vary has no bound and is left out;
* the bandwidth ``one-way-bandwidth`` is the policy's stream rate in Kbps (the study has
  no bandwidth factor: see the policy's ``traffic.basis``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from qoe_analysis.policy.adapters.common import (
    JITTER_METRIC,
    Topology,
    exported_flows,
    provenance_text,
)

__all__ = ["ietf_slice_services", "metric_bounds", "to_ietf_json"]

NSS = "ietf-network-slice-service"


def _delay_bound(ms: float) -> tuple[str, str]:
    whole = math.floor(ms)
    if whole >= 1:
        return "milliseconds", str(whole)
    return "microseconds", str(math.floor(ms * 1000))


def metric_bounds(
    delay_ms: float | None,
    loss_pct: float | None,
    stream_kbps: float,
    description: Mapping[str, str],
    jitter_ms: float | None = None,
) -> list[dict[str, Any]]:
    """The ``metric-bound`` list for one direction (or the tighter of both)."""
    bounds: list[dict[str, Any]] = []
    for metric, ms, key in (
        ("one-way-delay-maximum", delay_ms, "delay"),
        (JITTER_METRIC, jitter_ms, "jitter"),
    ):
        if ms is None:
            continue
        unit, value = _delay_bound(ms)
        if value != "0":
            bounds.append(
                {
                    "metric-type": f"{NSS}:{metric}",
                    "metric-unit": unit,
                    "value-description": description[key],
                    "bound": value,
                }
            )
    if loss_pct is not None:
        ppm = math.floor(loss_pct * 10_000)
        if ppm >= 1:
            bounds.append(
                {
                    "metric-type": f"{NSS}:one-way-packet-loss",
                    "metric-unit": "ppm",
                    "value-description": description["loss"],
                    "bound": str(ppm),
                }
            )
    bounds.append(
        {
            "metric-type": f"{NSS}:one-way-bandwidth",
            "metric-unit": "Kbps",
            "value-description": "cloud-gaming stream rate (no bandwidth factor in the study)",
            "bound": str(math.ceil(stream_kbps)),
        }
    )
    return bounds


def _describe(bound: Mapping[str, Any]) -> str:
    """The bound, its basis and the marginal estimate beside it (policy 2.0)."""
    value = bound["bound"]
    text = f"{value:g} {bound['metric_unit']}" if value is not None else "none"
    text = f"study bound {text}; basis {bound['basis']}"
    if bound.get("factor"):
        text += f" (factor {bound['factor']}, the class's joint corner)"
    marginal = (bound.get("estimates") or {}).get("marginal") or {}
    if marginal.get("bound") is not None:
        text += (
            f"; marginal estimate {marginal['bound']:g} ({marginal['basis']}, every other "
            "factor at its baseline: not a bound)"
        )
    return text


_ABSENT: Mapping[str, Any] = {"bound": None, "metric_unit": "", "basis": "not varied"}


def _direction_bounds(cls: Mapping[str, Any], direction: str) -> dict[str, Any]:
    """metric type → bound; a metric the study did not vary maps to an absent bound."""
    found = {b["metric_type"]: b for b in cls["directions"][direction]["metric_bounds"]}
    for metric in ("one-way-delay-maximum", "one-way-packet-loss", JITTER_METRIC):
        found.setdefault(metric, _ABSENT)
    return found


def _tightest(values: list[float | None]) -> float | None:
    return None if None in values else min(v for v in values if v is not None)


def ietf_slice_services(policy: Mapping[str, Any], topology: Topology) -> dict[str, Any]:
    del topology  # the slice service is topology-independent (SDPs name the endpoints)
    stream = float(policy["traffic"]["stream_kbps"])
    templates = []
    for cls in policy["classes"]:
        delays, losses, jitters = [], [], []
        for direction in ("downstream", "upstream"):
            b = _direction_bounds(cls, direction)
            delays.append(b["one-way-delay-maximum"]["bound"])
            losses.append(b["one-way-packet-loss"]["bound"])
            if b[JITTER_METRIC] is not _ABSENT:
                jitters.append(b[JITTER_METRIC]["bound"])
        delay, loss = _tightest(delays), _tightest(losses)
        jitter = _tightest(jitters) if jitters else None
        templates.append(
            {
                "id": f"qoe-{cls['id']}",
                "description": f"QoE Lab: {cls['id']} ({policy['target']['label']}); "
                "tighter of the downstream and upstream bounds; " + provenance_text(policy),
                "slo-policy": {
                    "metric-bound": metric_bounds(
                        delay,
                        loss,
                        stream,
                        {
                            "delay": "min over directions of the one-way delay bounds",
                            "loss": "min over directions of the loss bounds, in ppm",
                            "jitter": "min over directions of the one-way delay variation bounds",
                        },
                        jitter,
                    )
                },
            }
        )
    services = []
    selected = {f.class_id for f in exported_flows(policy)} if _has_flows(policy) else set()
    for cls in policy["classes"]:
        if cls["id"] not in selected:
            continue
        match = cls["flow_match"]
        constructs = []
        for direction, sender, receiver in (
            ("downstream", "game-server", "players"),
            ("upstream", "players", "game-server"),
        ):
            b = _direction_bounds(cls, direction)
            constructs.append(
                {
                    "id": direction,
                    "p2p-sender-sdp": sender,
                    "p2p-receiver-sdp": receiver,
                    "service-slo-sle-policy": {
                        "description": f"{direction} ({sender} to {receiver})",
                        "slo-policy": {
                            "metric-bound": metric_bounds(
                                b["one-way-delay-maximum"]["bound"],
                                b["one-way-packet-loss"]["bound"],
                                stream,
                                {
                                    "delay": _describe(b["one-way-delay-maximum"]),
                                    "loss": _describe(b["one-way-packet-loss"]) + " (in ppm)",
                                    "jitter": _describe(b[JITTER_METRIC]),
                                },
                                b[JITTER_METRIC]["bound"],
                            )
                        },
                    },
                }
            )
        services.append(
            {
                "id": f"qoe-{cls['id']}",
                "description": f"QoE Lab policy for {cls['id']} (generated "
                f"{policy['provenance']['generated_at']}); " + provenance_text(policy),
                "slo-sle-template": f"qoe-{cls['id']}",
                "sdps": {
                    "sdp": [
                        _sdp(
                            "game-server",
                            "game server side",
                            "source-ip-prefix",
                            match["server_ip"],
                            "downstream",
                        ),
                        _sdp(
                            "players",
                            "players side",
                            "destination-ip-prefix",
                            match["server_ip"],
                            "upstream",
                        ),
                    ]
                },
                "connection-groups": {
                    "connection-group": [
                        {
                            "id": GROUP,
                            "connectivity-type": f"{NSS}:point-to-point",
                            "connectivity-construct": constructs,
                        }
                    ]
                },
            }
        )
    body: dict[str, Any] = {"slo-sle-templates": {"slo-sle-template": templates}}
    if services:
        body["slice-service"] = services
    return {f"{NSS}:network-slice-services": body}


GROUP = "game-flow"


def _sdp(
    sdp_id: str, description: str, match_type: str, prefix: str, construct: str
) -> dict[str, Any]:
    """An SDP whose traffic (matched by the server prefix) goes to ``construct``."""
    return {
        "id": sdp_id,
        "description": description,
        "service-match-criteria": {
            "match-criterion": [
                {
                    "index": 1,
                    "match-type": [{"type": f"{NSS}:{match_type}", "value": [prefix]}],
                    "target-connection-group-id": GROUP,
                    "target-connectivity-construct-id": construct,
                }
            ]
        },
    }


def _has_flows(policy: Mapping[str, Any]) -> bool:
    return any(cls.get("flow_match") for cls in policy["classes"])


def to_ietf_json(policy: Mapping[str, Any], topology: Topology) -> str:
    return json.dumps(ietf_slice_services(policy, topology), indent=2) + "\n"
