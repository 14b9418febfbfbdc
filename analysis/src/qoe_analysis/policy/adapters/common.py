"""What every adapter needs: the switch topology and the exported (class, direction) flows."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from qoe_analysis.policy.schema import PolicyError

__all__ = [
    "JITTER_METRIC",
    "ExportedFlow",
    "Topology",
    "exported_flows",
    "has_jitter_bounds",
    "header_lines",
    "provenance_lines",
    "provenance_text",
]

#: The policy's jitter metric (RFC 9543 / IETF slice model: one-way delay variation).
JITTER_METRIC = "one-way-delay-variation-maximum"


def has_jitter_bounds(policy: Mapping[str, Any]) -> bool:
    """Whether any class of the policy bounds the one-way delay variation (jitter)."""
    return any(
        b["metric_type"] == JITTER_METRIC
        for cls in policy["classes"]
        for d in cls["directions"].values()
        for b in d["metric_bounds"]
    )


@dataclass(frozen=True)
class Topology:
    """Where the game flow crosses the network, in each controller's terms.

    One switch (OpenFlow datapath ``dpid``) with the game server behind ``server_port``
    and the players behind ``client_port``. ``*_port_name`` are the OVS interface names
    (queues are attached to ports by name). ``vlan`` is the Faucet native VLAN of both
    ports. ``link_bps`` is the link rate (rest_qos default queue). ONOS device ids
    and rest_qos switch ids are derived from ``dpid``.
    """

    switch_name: str = "qoe-edge"
    dpid: int = 1
    server_port: int = 1
    client_port: int = 2
    server_port_name: str = "server0"
    client_port_name: str = "client0"
    vlan: int = 100
    bridge: str = "br0"
    link_bps: int = 1_000_000_000

    def __post_init__(self) -> None:
        if not 1 <= self.dpid < 2**64:
            raise PolicyError("dpid must lie in 1..2^64-1")
        if self.server_port == self.client_port:
            raise PolicyError("server_port and client_port must differ")
        for port in (self.server_port, self.client_port):
            if not 1 <= port <= 0xFFFFFF00:
                raise PolicyError("OpenFlow port numbers lie in 1..0xffffff00")
        if self.link_bps <= 0:
            raise PolicyError("link_bps must be > 0")
        if not 1 <= self.vlan <= 4094:
            raise PolicyError("vlan must lie in 1..4094")

    @property
    def onos_device(self) -> str:
        return f"of:{self.dpid:016x}"

    @property
    def dpid_hex(self) -> str:
        return f"{self.dpid:016x}"


@dataclass(frozen=True)
class ExportedFlow:
    """One class in one direction, as configured on a controller."""

    class_id: str
    direction: str  # downstream (server->client) | upstream (client->server)
    index: int  # 1-based, stable order: classes in policy order, downstream first
    delay_ms: float | None
    loss_pct: float | None
    delay_basis: str
    loss_basis: str
    dscp: int
    ip_version: int
    server_ip: str
    protocol: str
    server_port: int | None
    # one-way delay variation bound; None when the study did not vary jitter
    jitter_ms: float | None = None
    jitter_basis: str | None = None

    @property
    def name(self) -> str:
        return f"{self.class_id}.{self.direction}"

    @property
    def slug(self) -> str:
        return self.name.replace(".", "-")

    @property
    def from_server(self) -> bool:
        return self.direction == "downstream"

    @property
    def delay_ms_floor(self) -> int | None:
        return None if self.delay_ms is None else math.floor(self.delay_ms)

    def summary(self) -> str:
        delay = "none" if self.delay_ms is None else f"{self.delay_ms:g} ms"
        loss = "none" if self.loss_pct is None else f"{self.loss_pct:g} %"
        jitter = (
            ""
            if self.jitter_ms is None
            else f"delay variation <= {self.jitter_ms:g} ms ({self.jitter_basis}), "
        )
        return (
            f"{self.name}: one-way delay <= {delay} ({self.delay_basis}), "
            f"loss <= {loss} ({self.loss_basis}), {jitter}DSCP {self.dscp}"
        )


def exported_flows(policy: Mapping[str, Any]) -> list[ExportedFlow]:
    """The (class, direction) pairs of the classes that have a ``flow_match``."""
    flows: list[ExportedFlow] = []
    for cls in policy["classes"]:
        match = cls.get("flow_match")
        if not match:
            continue
        for direction in ("downstream", "upstream"):
            bounds = {b["metric_type"]: b for b in cls["directions"][direction]["metric_bounds"]}
            # a metric the study did not vary has no bound (and no basis)
            absent = {"bound": None, "basis": "not varied in the study"}
            delay = bounds.get("one-way-delay-maximum", absent)
            loss = bounds.get("one-way-packet-loss", absent)
            jitter = bounds.get(JITTER_METRIC)
            flows.append(
                ExportedFlow(
                    class_id=cls["id"],
                    direction=direction,
                    index=len(flows) + 1,
                    delay_ms=delay["bound"],
                    loss_pct=loss["bound"],
                    delay_basis=delay["basis"],
                    loss_basis=loss["basis"],
                    dscp=int(cls["mapping"]["dscp"]["value"]),
                    ip_version=int(match["ip_version"]),
                    server_ip=str(match["server_ip"]),
                    protocol=str(match["protocol"]),
                    server_port=match.get("server_port"),
                    jitter_ms=None if jitter is None else jitter["bound"],
                    jitter_basis=None if jitter is None else jitter["basis"],
                )
            )
    if not flows:
        raise PolicyError(
            "no class of the policy has a flow_match (the game traffic selector); "
            "set one, e.g. --server-ip"
        )
    return flows


def _corner_text(corner: Mapping[str, float]) -> str:
    return ", ".join(f"{k} {v:.4g}" for k, v in corner.items())


def provenance_lines(policy: Mapping[str, Any]) -> list[str]:
    """What an operator must know about the evidence: raters, dry-run share, each class's
    joint corner (or why it has none) and the analysis document's warnings."""
    prov = policy["provenance"]
    share = prov.get("dry_run_share")
    if share is None:
        dry = "dry-run share unknown (the ratings carry no agent provenance)"
    else:
        dry = (
            f"dry-run ratings: {prov.get('n_ratings_dry_run')} of {prov['n_ratings']} ({share:.0%})"
        )
        if share > 0.5:
            dry += " - learnt mostly from play without any impairment applied"
    lines = [
        f"raters: {prov['n_raters']}; ratings analysed: {prov['n_ratings_analysed']} of "
        f"{prov['n_ratings']}; {dry}"
    ]
    for cls in policy["classes"]:
        joint = cls.get("joint") or {}
        if joint.get("status") != "ok":
            lines.append(f"{cls['id']}: no joint bound: {joint.get('reason', 'unknown')}")
            continue
        ci = joint.get("predicted_ci95") or [float("nan")] * 2
        seen = joint.get("observed_share")
        observed = "no rating" if seen is None else f"{seen:.0%} acceptable"
        lines.append(
            f"{cls['id']}: joint corner {_corner_text(joint['corner'])}: predicted "
            f"P(acceptable) {joint['predicted']:.2f} (95 % CI {ci[0]:.2f}-{ci[1]:.2f}); "
            f"{observed} of {joint.get('observed_n', 0)} ratings near it"
            + (
                "; extrapolated (no tested condition reaches it)"
                if joint.get("extrapolated")
                else ""
            )
        )
    warnings = prov.get("warnings") or []
    lines.append(f"warnings of the analysis: {len(warnings) or 'none'}")
    lines += [f"  [{w['code']}] {w['where']}: {w['message']}" for w in warnings]
    return lines


def provenance_text(policy: Mapping[str, Any]) -> str:
    """:func:`provenance_lines` as one text (description fields of the JSON formats)."""
    return "QoE Lab policy provenance: " + "; ".join(
        line.strip() for line in provenance_lines(policy)
    )


def header_lines(policy: Mapping[str, Any], fmt: str, limits: list[str]) -> list[str]:
    """Comment lines (without the comment marker) for text formats."""
    prov = policy["provenance"]
    study = prov["study"]
    lines = [
        f"QoE Lab policy export ({fmt}) - generated by qoe-analysis {prov['tool']['version']}",
        f"study: {study.get('title') or study.get('id') or 'unnamed'} "
        f"(id {study.get('id')}, version {study.get('version')}); "
        f"{prov['n_raters']} raters, {prov['n_ratings_analysed']} ratings analysed, "
        f"reliable_only={str(prov['reliable_only']).lower()}; generated {prov['generated_at']}",
        *provenance_lines(policy),
        f"target: {policy['target']['label']}",
        "Not expressible here (see docs/policy.md):",
    ]
    lines += [f"  - {limit}" for limit in limits]
    if has_jitter_bounds(policy):
        lines.append(
            f"  - jitter (one-way delay variation) bounds: {fmt} has no delay-variation "
            "objective; they are in each flow's summary, the policy JSON and the IETF export"
        )
    return lines
