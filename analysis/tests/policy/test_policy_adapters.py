"""Adapters on the hand-made policy: exact output, controller field names, limits."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest
import yaml
from qoe_analysis.policy import FORMATS, PolicyError, Topology, export_policy, load_schema
from qoe_analysis.policy.adapters.faucet import check_meters, faucet_config
from qoe_analysis.policy.adapters.ietf import ietf_slice_services
from qoe_analysis.policy.adapters.onos import onos_requests
from qoe_analysis.policy.adapters.ovs import ovs_commands
from qoe_analysis.policy.adapters.rest_qos import rest_qos_requests

T = Topology()

DOWN = "cloud-gaming.fast.downstream"
UP = "cloud-gaming.fast.upstream"


def test_faucet_exact(hand_policy: dict[str, Any]) -> None:
    band = {"type": "DROP", "rate": 3750, "burst_size": 375}
    meter = {"flags": ["KBPS", "BURST"], "bands": [band]}
    mark = {"allow": 1, "output": {"set_fields": [{"ip_dscp": 32}]}}
    assert faucet_config(hand_policy, T) == {
        "meters": {
            "cloud-gaming-fast-downstream": {"meter_id": 1, "entry": meter},
            "cloud-gaming-fast-upstream": {"meter_id": 2, "entry": meter},
        },
        "acls": {
            "qoe-policy": [
                {
                    "rule": {
                        "description": f"{DOWN}: one-way delay <= 100 ms (joint_logistic), "
                        "loss <= 0.75 % (joint_logistic), DSCP 32",
                        "eth_type": 0x0800,
                        "ip_proto": 17,
                        "ipv4_src": "198.51.100.7/32",
                        "udp_src": 5004,
                        "actions": {"meter": "cloud-gaming-fast-downstream", **mark},
                    }
                },
                {
                    "rule": {
                        "description": f"{UP}: one-way delay <= 140 ms (joint_logistic), "
                        "loss <= 0.9 % (joint_logistic), DSCP 32",
                        "eth_type": 0x0800,
                        "ip_proto": 17,
                        "ipv4_dst": "198.51.100.7/32",
                        "udp_dst": 5004,
                        "actions": {"meter": "cloud-gaming-fast-upstream", **mark},
                    }
                },
                {"rule": {"description": "all other traffic unchanged", "actions": {"allow": 1}}},
            ]
        },
        "vlans": {"qoe": {"vid": 100, "description": "QoE policy VLAN"}},
        "dps": {
            "qoe-edge": {
                "dp_id": 1,
                "hardware": "Open vSwitch",
                "interfaces": {
                    1: {
                        "description": "game server side",
                        "native_vlan": "qoe",
                        "acls_in": ["qoe-policy"],
                    },
                    2: {
                        "description": "players side",
                        "native_vlan": "qoe",
                        "acls_in": ["qoe-policy"],
                    },
                },
            }
        },
    }
    text = export_policy(hand_policy, "faucet")
    assert text.startswith("# QoE Lab policy export (faucet)")
    assert "&id" not in text  # no YAML anchors
    assert yaml.safe_load(text) == faucet_config(hand_policy, T)


def test_faucet_meter_band_check() -> None:
    good = {"meters": {"m": {"meter_id": 1, "entry": {"flags": ["KBPS"], "bands": [
        {"type": "DROP", "rate": 10}]}}}}  # fmt: skip
    assert check_meters(good) == []
    bad = copy.deepcopy(good)
    bad["meters"]["m"]["entry"] = {
        "flags": ["KBPS", "PKTPS", "FAST"],
        "bands": [
            {"type": "DROPP", "rate": 10},
            {"type": "DROP", "rate": 0, "burst_size": 5, "prec_level": 1},
            {"type": "DSCP_REMARK", "rate": 5},
        ],
    }
    bad["acls"] = {"a": [{"rule": {"actions": {"meter": "missing"}}}]}
    problems = check_meters(bad)
    assert any("unknown ['FAST']" in p for p in problems)
    assert any("exactly one of KBPS, PKTPS" in p for p in problems)
    assert any("'DROPP' not one of" in p for p in problems)
    assert any("rate must be a positive integer" in p for p in problems)
    assert any("ignored without the BURST flag" in p for p in problems)
    assert any("['prec_level'] are ignored" in p for p in problems)
    assert any("prec_level must be" in p for p in problems)
    assert any("undefined meter 'missing'" in p for p in problems)


def test_ovs_exact(hand_policy: dict[str, Any]) -> None:
    queue = [
        "create",
        "queue",
        "other-config:min-rate=3000000",
        "other-config:max-rate=3750000",
        "other-config:priority=0",
    ]
    of = ["ovs-ofctl", "-O", "OpenFlow13"]
    assert ovs_commands(hand_policy, T) == [
        ["ovs-vsctl", "--", "set", "port", "client0", "qos=@qos_client0", "--",
         "--id=@qos_client0", "create", "qos", "type=linux-htb", "queues:1=@q1", "--",
         "--id=@q1", *queue],
        ["ovs-vsctl", "--", "set", "port", "server0", "qos=@qos_server0", "--",
         "--id=@qos_server0", "create", "qos", "type=linux-htb", "queues:2=@q2", "--",
         "--id=@q2", *queue],
        [*of, "add-meter", "br0", "meter=1,kbps,burst,band=type=drop,rate=3750,burst_size=375"],
        [*of, "add-meter", "br0", "meter=2,kbps,burst,band=type=drop,rate=3750,burst_size=375"],
        [*of, "add-flow", "br0", "table=0,priority=40000,udp,nw_src=198.51.100.7/32,"
         "udp_src=5004,actions=meter:1,set_field:32->ip_dscp,set_queue:1,NORMAL"],
        [*of, "add-flow", "br0", "table=0,priority=40000,udp,nw_dst=198.51.100.7/32,"
         "udp_dst=5004,actions=meter:2,set_field:32->ip_dscp,set_queue:2,NORMAL"],
    ]  # fmt: skip
    script = export_policy(hand_policy, "ovs")
    assert script.startswith("#!/bin/sh\n") and "\nset -eu\n" in script
    assert script.endswith(
        "'table=0,priority=40000,udp,nw_dst=198.51.100.7/32,udp_dst=5004,"
        "actions=meter:2,set_field:32->ip_dscp,set_queue:2,NORMAL'\n"
    )


def test_onos_exact(hand_policy: dict[str, Any]) -> None:
    out = onos_requests(hand_policy, T)
    meter = {
        "method": "POST",
        "path": "/onos/v1/meters/of:0000000000000001",
        "body": {
            "deviceId": "of:0000000000000001",
            "unit": "KB_PER_SEC",
            "burst": True,
            "bands": [{"type": "DROP", "rate": 3750, "burstSize": 375}],
        },
    }
    server = {"device": "of:0000000000000001", "port": "1"}
    client = {"device": "of:0000000000000001", "port": "2"}

    def intent(side: str, latency: int, ingress: Any, egress: Any) -> dict[str, Any]:
        return {
            "method": "POST",
            "path": "/onos/v1/intents",
            "body": {
                "type": "PointToPointIntent",
                "appId": "org.onosproject.rest",
                "priority": 40000,
                "selector": {
                    "criteria": [
                        {"type": "ETH_TYPE", "ethType": "0x800"},
                        {"type": "IP_PROTO", "protocol": 17},
                        {"type": f"IPV4_{side}", "ip": "198.51.100.7/32"},
                        {"type": f"UDP_{side}", "udpPort": 5004},
                    ]
                },
                "constraints": [{"type": "LatencyConstraint", "latencyMillis": latency}],
                "ingressPoint": ingress,
                "egressPoint": egress,
            },
        }

    assert out["requests"] == [
        {**meter, "flow": DOWN},
        {**intent("SRC", 100, server, client), "flow": DOWN},
        {**meter, "flow": UP},
        {**intent("DST", 140, client, server), "flow": UP},
    ]
    missing = {(n["flow"], n["what"]) for n in out["not_expressed"]}
    assert (DOWN, "one-way-packet-loss") in missing and (UP, "ip_dscp") in missing
    assert (UP, "meter binding") in missing
    jsonschema.validate(out, load_schema("onos-requests"), cls=jsonschema.Draft202012Validator)


def test_rest_qos_exact(hand_policy: dict[str, Any]) -> None:
    out = rest_qos_requests(hand_policy, T)
    sw = "0000000000000001"
    queues = [{"max_rate": "1000000000"}, {"min_rate": "3000000", "max_rate": "3750000"}]
    meter_body = {"flags": ["KBPS", "BURST"], "bands": [{"type": "DROP", "rate": 3750,
                                                          "burst_size": 375}]}  # fmt: skip
    assert out["requests"] == [
        {"method": "PUT", "path": f"/v1.0/conf/switches/{sw}/ovsdb_addr",
         "body": "tcp:127.0.0.1:6632"},
        {"method": "POST", "path": f"/qos/queue/{sw}", "body": {
            "port_name": "client0", "type": "linux-htb", "max_rate": "1000000000",
            "queues": queues}},
        {"method": "POST", "path": f"/qos/queue/{sw}", "body": {
            "port_name": "server0", "type": "linux-htb", "max_rate": "1000000000",
            "queues": queues}},
        {"method": "POST", "path": f"/qos/meter/{sw}", "flow": DOWN,
         "body": {"meter_id": 1, **meter_body}},
        {"method": "POST", "path": f"/qos/meter/{sw}", "flow": UP,
         "body": {"meter_id": 2, **meter_body}},
        {"method": "POST", "path": f"/qos/rules/{sw}", "flow": DOWN, "body": {
            "match": {"priority": "40000", "dl_type": "IPv4", "nw_proto": "UDP",
                      "nw_src": "198.51.100.7/32", "tp_src": "5004"},
            "actions": {"mark": "32", "meter": "1", "queue": "1"}}},
        {"method": "POST", "path": f"/qos/rules/{sw}", "flow": UP, "body": {
            "match": {"priority": "40000", "dl_type": "IPv4", "nw_proto": "UDP",
                      "nw_dst": "198.51.100.7/32", "tp_dst": "5004"},
            "actions": {"mark": "32", "meter": "2", "queue": "1"}}},
    ]  # fmt: skip
    assert out["not_expressed"][0]["bound"] == {"one_way_delay_ms": 100.0, "loss_pct": 0.75}


def test_ietf_exact(hand_policy: dict[str, Any]) -> None:
    out = ietf_slice_services(hand_policy, T)
    jsonschema.validate(
        out, load_schema("ietf-network-slice-service"), cls=jsonschema.Draft202012Validator
    )
    body = out["ietf-network-slice-service:network-slice-services"]
    templates = {t["id"]: t for t in body["slo-sle-templates"]["slo-sle-template"]}
    assert set(templates) == {
        "qoe-cloud-gaming.fast",
        "qoe-cloud-gaming.slow",
        "qoe-cloud-gaming",
    }
    nss = "ietf-network-slice-service:"
    fast = [
        (b["metric-type"].removeprefix(nss), b["metric-unit"], b["bound"])
        for b in templates["qoe-cloud-gaming.fast"]["slo-policy"]["metric-bound"]
    ]
    assert fast == [
        ("one-way-delay-maximum", "milliseconds", "100"),
        ("one-way-packet-loss", "ppm", "7500"),
        ("one-way-bandwidth", "Kbps", "3000"),
    ]
    slow = templates["qoe-cloud-gaming.slow"]["slo-policy"]["metric-bound"]
    assert [b["metric-type"] for b in slow] == [f"{nss}one-way-bandwidth"]  # no bound at all
    (service,) = body["slice-service"]
    assert service["id"] == "qoe-cloud-gaming.fast"
    assert [s["id"] for s in service["sdps"]["sdp"]] == ["game-server", "players"]
    group = service["connection-groups"]["connection-group"][0]
    assert group["connectivity-type"] == f"{nss}point-to-point"
    up = group["connectivity-construct"][1]
    assert (up["id"], up["p2p-sender-sdp"], up["p2p-receiver-sdp"]) == (
        "upstream",
        "players",
        "game-server",
    )
    up_bounds = up["service-slo-sle-policy"]["slo-policy"]["metric-bound"]
    assert [(b["metric-unit"], b["bound"]) for b in up_bounds] == [
        ("milliseconds", "140"),
        ("ppm", "9000"),
        ("Kbps", "3000"),
    ]
    assert up_bounds[0]["value-description"] == (
        "study bound 140 milliseconds; basis joint_logistic (factor us_delay_ms, the class's "
        "joint corner); marginal estimate 140 (symmetric_logistic, every other factor at its "
        "baseline: not a bound)"
    )
    assert "raters: 12; ratings analysed: 120 of 120" in service["description"]
    assert "[dominant_raters] meta: 2 of 12 raters" in templates["qoe-cloud-gaming"]["description"]


def test_sub_millisecond_delay_uses_microseconds() -> None:
    from qoe_analysis.policy.adapters.ietf import metric_bounds

    out = metric_bounds(0.4, 0.00001, 100, {"delay": "d", "loss": "l"})
    assert [(b["metric-unit"], b["bound"]) for b in out] == [
        ("microseconds", "400"),
        ("Kbps", "100"),  # 0.00001 % = 0.1 ppm floors to 0 = "unbounded": omitted
    ]


def test_every_format_exports_and_json_round_trips(hand_policy: dict[str, Any]) -> None:
    for fmt in FORMATS:
        text = export_policy(hand_policy, fmt)
        assert text.endswith("\n")
    assert json.loads(export_policy(hand_policy, "json")) == hand_policy


def test_export_errors(hand_policy: dict[str, Any]) -> None:
    with pytest.raises(PolicyError, match="unknown format 'yang'"):
        export_policy(hand_policy, "yang")
    no_flow = copy.deepcopy(hand_policy)
    for cls in no_flow["classes"]:
        cls["flow_match"] = None
    with pytest.raises(PolicyError, match="no class of the policy has a flow_match"):
        export_policy(no_flow, "faucet")
    with pytest.raises(PolicyError, match="invalid policy"):
        export_policy({"classes": []}, "ovs")


def test_ipv6_tcp_selector(hand_doc: dict[str, Any]) -> None:
    from qoe_analysis.policy import build_policy

    policy = build_policy(
        hand_doc,
        provenance={},
        flows={"cloud-gaming": {"server_ip": "2001:db8::7", "protocol": "tcp", "server_port": 443}},
    )
    rule = faucet_config(policy, T)["acls"]["qoe-policy"][0]["rule"]
    assert (rule["eth_type"], rule["ip_proto"], rule["ipv6_src"], rule["tcp_src"]) == (
        0x86DD,
        6,
        "2001:db8::7/128",
        443,
    )
    assert "tcp6,ipv6_src=2001:db8::7/128,tcp_src=443" in ovs_commands(policy, T)[-2][-1]
    criteria = onos_requests(policy, T)["requests"][1]["body"]["selector"]["criteria"]
    assert criteria[0] == {"type": "ETH_TYPE", "ethType": "0x86dd"}
    assert criteria[3] == {"type": "TCP_SRC", "tcpPort": 443}


def test_every_format_states_raters_dry_run_share_and_warnings(
    hand_policy: dict[str, Any],
) -> None:
    """Issue 31: an operator sees the evidence in every controller format."""
    expected = [
        "raters: 12; ratings analysed: 120 of 120; dry-run share unknown",
        "cloud-gaming.fast: joint corner ds_delay_ms 100, us_delay_ms 140, ds_loss_pct 0.75, "
        "us_loss_pct 0.9: predicted P(acceptable) 0.62 (95 % CI 0.50-0.72); 70% acceptable "
        "of 20 ratings near it",
        "cloud-gaming.slow: no joint bound: even unimpaired",
        "[dominant_raters] meta: 2 of 12 raters gave 60 % of the ratings",
    ]
    for fmt in ("faucet", "ovs"):
        comments = [line for line in export_policy(hand_policy, fmt).splitlines() if "#" in line]
        for text in expected:
            assert any(text in line for line in comments), (fmt, text)
    for fmt in ("onos", "rest_qos"):
        description = json.loads(export_policy(hand_policy, fmt))["description"]
        for text in expected:
            assert text in description, (fmt, text)
