"""Faucet YAML: an ACL that matches the game flow, meters it and marks it with the DSCP.

Field names follow Faucet's own config classes (``faucet/acl.py``: rule ``actions`` with
``meter``, ``allow`` and ``output: {set_fields: [{ip_dscp: …}]}``; ``faucet/meter.py``:
``meters: {name: {meter_id, entry: {flags, bands}}}``, the entry being an os-ken
``ofctl_v1_3.mod_meter_entry`` dict). Meter rates are kbit/s (flag ``KBPS``), burst sizes
kbit (flag ``BURST``).

Faucet cannot express: delay or loss objectives and path selection (it is a static L2/L3
controller; the export writes the bounds into each rule's ``description`` and the file
header, and path choice is left to ``qoe-analysis policy check``); egress queues (Faucet
has no queue configuration; only the DSCP mark lets the downstream network prioritise).

Faucet's checker (``check_faucet_config``) parses meters through os-ken, which only logs
unknown band types or flags instead of rejecting them, so :func:`check_meters` validates
the band fields itself and the export refuses a config that fails it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from qoe_analysis.policy.adapters.common import Topology, exported_flows, header_lines
from qoe_analysis.policy.schema import PolicyError

__all__ = ["FAUCET_LIMITS", "check_meters", "faucet_config", "to_faucet_yaml"]

ACL_NAME = "qoe-policy"
OFPM_MAX = 0xFFFF0000  # largest OpenFlow 1.3 meter id
METER_FLAGS = frozenset({"KBPS", "PKTPS", "BURST", "STATS"})
BAND_FIELDS = {
    "DROP": frozenset({"type", "rate", "burst_size"}),
    "DSCP_REMARK": frozenset({"type", "rate", "burst_size", "prec_level"}),
}
FAUCET_LIMITS = [
    "delay and loss bounds: Faucet has no latency/loss objectives or path selection; "
    "the bounds are in each ACL rule's description, path choice is `qoe-analysis policy check`",
    "queues: Faucet configures no egress queues; the DSCP mark (CS4) carries the class",
]


def check_meters(config: Mapping[str, Any]) -> list[str]:
    """Problems in the ``meters`` section that Faucet's checker lets through (empty = ok)."""
    problems: list[str] = []
    meters = config.get("meters") or {}
    seen_ids: set[int] = set()
    for name, meter in meters.items():
        where = f"meters.{name}"
        meter_id = meter.get("meter_id")
        if not isinstance(meter_id, int) or isinstance(meter_id, bool):
            problems.append(f"{where}.meter_id must be an integer")
        elif not 1 <= meter_id <= OFPM_MAX:
            problems.append(f"{where}.meter_id {meter_id} outside 1..{OFPM_MAX:#x}")
        elif meter_id in seen_ids:
            problems.append(f"{where}.meter_id {meter_id} used twice")
        else:
            seen_ids.add(meter_id)
        entry = meter.get("entry") or {}
        flags = entry.get("flags")
        flags = [flags] if isinstance(flags, str) else list(flags or [])
        unknown = [f for f in flags if f not in METER_FLAGS]
        if unknown:
            problems.append(f"{where}.entry.flags: unknown {unknown} (os-ken only logs these)")
        if ("KBPS" in flags) == ("PKTPS" in flags):
            problems.append(f"{where}.entry.flags needs exactly one of KBPS, PKTPS")
        bands = entry.get("bands") or []
        if not bands:
            problems.append(f"{where}.entry.bands is empty")
        for i, band in enumerate(bands):
            bwhere = f"{where}.entry.bands[{i}]"
            band_type = band.get("type")
            if band_type not in BAND_FIELDS:
                problems.append(f"{bwhere}.type {band_type!r} not one of DROP, DSCP_REMARK")
                continue
            extra = set(band) - BAND_FIELDS[band_type]
            if extra:
                problems.append(f"{bwhere}: fields {sorted(extra)} are ignored by os-ken")
            rate = band.get("rate")
            if not isinstance(rate, int) or isinstance(rate, bool) or rate <= 0:
                problems.append(f"{bwhere}.rate must be a positive integer")
            burst = band.get("burst_size", 0)
            if not isinstance(burst, int) or isinstance(burst, bool) or burst < 0:
                problems.append(f"{bwhere}.burst_size must be an integer >= 0")
            elif burst > 0 and "BURST" not in flags:
                problems.append(f"{bwhere}.burst_size is ignored without the BURST flag")
            if band_type == "DSCP_REMARK":
                prec = band.get("prec_level")
                if not isinstance(prec, int) or not 1 <= prec <= 63:
                    problems.append(f"{bwhere}.prec_level must be an integer in 1..63")
    for acl_name, rules in (config.get("acls") or {}).items():
        for i, rule in enumerate(rules):
            meter_name = (rule.get("rule", {}).get("actions") or {}).get("meter")
            if meter_name is not None and meter_name not in meters:
                problems.append(f"acls.{acl_name}[{i}] uses undefined meter {meter_name!r}")
    return problems


def faucet_config(policy: Mapping[str, Any], topology: Topology) -> dict[str, Any]:
    """The Faucet configuration as a dict (see module docstring)."""
    traffic = policy["traffic"]
    meters: dict[str, Any] = {}
    rules: list[dict[str, Any]] = []
    for flow in exported_flows(policy):
        meter_name = flow.slug
        meters[meter_name] = {
            "meter_id": flow.index,
            "entry": {
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
        v6 = flow.ip_version == 6
        rule: dict[str, Any] = {
            "description": flow.summary(),
            "eth_type": 0x86DD if v6 else 0x0800,
            "ip_proto": 17 if flow.protocol == "udp" else 6,
        }
        side = "src" if flow.from_server else "dst"
        rule[f"ipv6_{side}" if v6 else f"ipv4_{side}"] = flow.server_ip
        if flow.server_port is not None:
            rule[f"{flow.protocol}_{side}"] = flow.server_port
        rule["actions"] = {
            "meter": meter_name,
            "allow": 1,
            "output": {"set_fields": [{"ip_dscp": flow.dscp}]},
        }
        rules.append({"rule": rule})
    rules.append({"rule": {"description": "all other traffic unchanged", "actions": {"allow": 1}}})

    def interface(description: str) -> dict[str, Any]:
        return {"description": description, "native_vlan": "qoe", "acls_in": [ACL_NAME]}

    config: dict[str, Any] = {
        "meters": meters,
        "acls": {ACL_NAME: rules},
        "vlans": {"qoe": {"vid": topology.vlan, "description": "QoE policy VLAN"}},
        "dps": {
            topology.switch_name: {
                "dp_id": topology.dpid,
                "hardware": "Open vSwitch",
                "interfaces": {
                    topology.server_port: interface("game server side"),
                    topology.client_port: interface("players side"),
                },
            }
        },
    }
    problems = check_meters(config)
    if problems:
        raise PolicyError("faucet meters: " + "; ".join(problems))
    return config


def to_faucet_yaml(policy: Mapping[str, Any], topology: Topology) -> str:
    """Faucet YAML text with a comment header (provenance, what Faucet cannot express)."""
    header = header_lines(policy, "faucet", FAUCET_LIMITS)
    body = yaml.safe_dump(faucet_config(policy, topology), sort_keys=False, width=4096)
    return "".join(f"# {line}\n" for line in header) + body
