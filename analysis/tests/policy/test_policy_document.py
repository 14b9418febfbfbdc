"""The policy document: bound selection, CI, mapping, provenance, schema."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from qoe_analysis.policy import PolicyError, build_policy, load_schema, validate_policy
from qoe_analysis.policy.standards import select_5qi, select_y1541

from .conftest import FAST_FLOW, GENERATED_AT


def bounds(policy: dict[str, Any], class_id: str, direction: str) -> dict[str, Any]:
    cls = next(c for c in policy["classes"] if c["id"] == class_id)
    return {b["metric_type"]: b for b in cls["directions"][direction]["metric_bounds"]}


def test_schema_is_valid_and_versioned() -> None:
    schema = load_schema("qoe-policy")
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "urn:qoe-lab:schema:qoe-policy:1.0"
    for name in ("measurements", "onos-requests", "ietf-network-slice-service"):
        jsonschema.Draft202012Validator.check_schema(load_schema(name))


def test_tree_split_where_the_direction_has_one(hand_policy: dict[str, Any]) -> None:
    down = bounds(hand_policy, "cloud-gaming.fast", "downstream")
    delay = down["one-way-delay-maximum"]
    assert (delay["bound"], delay["basis"], delay["tested_bracket"]) == (
        100.0,
        "tree_split",
        [50.0, 150.0],
    )
    # a tree bound's own interval is its tested bracket; the logistic CI (120-170, which
    # does not contain 100) is listed as the other estimator's, never as the bound's CI
    assert delay["ci95"] is None
    assert delay["interval"] == {
        "low": 50.0,
        "high": 150.0,
        "kind": "tested_bracket",
        "estimator": "tree",
        "extrapolated": True,
    }
    assert delay["estimates"]["symmetric_logistic_ci95"] == [120.0, 170.0]
    assert "not an interval around this tree bound" in delay["note"]
    assert "extrapolates" in delay["note"]
    assert down["one-way-packet-loss"]["bound"] == 0.75


def test_symmetric_estimate_when_direction_not_estimable(hand_policy: dict[str, Any]) -> None:
    up = bounds(hand_policy, "cloud-gaming.fast", "upstream")
    assert up["one-way-delay-maximum"]["bound"] == 140.0
    assert up["one-way-delay-maximum"]["basis"] == "symmetric_logistic"
    assert up["one-way-packet-loss"]["bound"] == 0.9
    assert "applied to this direction alone" in up["one-way-packet-loss"]["note"]
    assert up["one-way-packet-loss"]["estimates"]["logistic_status"] == "not_identifiable"


def test_tested_maximum_and_symmetric_tree(hand_policy: dict[str, Any]) -> None:
    up = bounds(hand_policy, "cloud-gaming", "upstream")
    assert (up["one-way-delay-maximum"]["bound"], up["one-way-delay-maximum"]["basis"]) == (
        150.0,
        "tree_tested_maximum",
    )
    loss = up["one-way-packet-loss"]
    assert (loss["bound"], loss["basis"], loss["ci95"]) == (0.75, "symmetric_tree", None)
    assert "no bounded logistic" in loss["note"]


def test_not_acceptable_class(hand_policy: dict[str, Any]) -> None:
    slow = next(c for c in hand_policy["classes"] if c["id"] == "cloud-gaming.slow")
    assert slow["status"] == "not_acceptable_at_zero"
    assert slow["mapping"]["5qi"]["value"] is None
    assert slow["mapping"]["y1541"]["value"] is None
    assert all(b["bound"] is None for d in slow["directions"].values() for b in d["metric_bounds"])


def test_provenance_target_traffic(hand_policy: dict[str, Any]) -> None:
    prov = hand_policy["provenance"]
    assert prov["study"] == {"id": "hand", "title": "Hand study", "version": 1}
    assert (prov["n_raters"], prov["n_ratings"], prov["reliable_only"]) == (12, 120, False)
    assert prov["generated_at"] == GENERATED_AT
    assert prov["tool"]["name"] == "qoe-analysis"
    assert hand_policy["target"]["acceptable_from"] == 3
    traffic = hand_policy["traffic"]
    assert (traffic["meter_rate_kbps"], traffic["meter_burst_kbits"]) == (3750, 375)
    assert (traffic["queue_min_rate_bps"], traffic["queue_max_rate_bps"]) == (3_000_000, 3_750_000)
    assert "3 Mbit/s" in traffic["basis"]
    assert [c["id"] for c in hand_policy["classes"]] == [
        "cloud-gaming.fast",
        "cloud-gaming.slow",
        "cloud-gaming",
    ]
    fast = hand_policy["classes"][0]
    assert fast["games"] == ["racing"]
    assert {c["game"] for c in fast["tested_conditions"]} == {"racing"}
    assert fast["flow_match"]["server_ip"] == "198.51.100.7/32"
    assert hand_policy["tree"]["rules"][0]["p_acceptable"] == 0.9


def test_mapping_hand_cases() -> None:
    chosen = select_5qi(100.0, 0.75)
    assert chosen["value"] == 3  # 50 ms, 1e-3; 5QI 1/2 fail (PER 1 %, PDB 150 ms)
    assert 1 not in chosen["candidates"] and 2 not in chosen["candidates"]
    assert select_5qi(160.0, 2.0)["value"] == 1
    assert select_5qi(4.0, 10.0)["value"] is None
    assert select_y1541(100.0, 0.75)["value"] == 0
    assert select_y1541(400.0, 0.2)["value"] == 0
    assert select_y1541(399.0, 0.1)["value"] == 0  # IPLR 1e-3 = 0.1 % <= 0.1 %
    assert select_y1541(399.0, 0.05)["value"] is None  # no class promises < 0.1 % loss
    assert select_y1541(99.0, 5.0)["value"] is None
    assert select_y1541(1000.0, 0.5)["candidates"] == [0, 1, 2, 3, 4]


def test_default_flow_is_a_marked_placeholder(hand_doc: dict[str, Any]) -> None:
    policy = build_policy(hand_doc, provenance={}, generated_at=GENERATED_AT)
    match = policy["classes"][-1]["flow_match"]
    assert match["placeholder"] is True and match["server_ip"] == "192.0.2.10/32"
    none = build_policy(hand_doc, provenance={}, flows={}, generated_at=GENERATED_AT)
    assert all(c["flow_match"] is None for c in none["classes"])


def test_bad_inputs(hand_doc: dict[str, Any]) -> None:
    with pytest.raises(PolicyError, match="not an analysis document"):
        build_policy({"meta": {}}, provenance={})
    with pytest.raises(PolicyError, match="unknown classes"):
        build_policy(hand_doc, provenance={}, flows={"cloud-gaming.x": {"server_ip": "10.0.0.1"}})
    with pytest.raises(PolicyError, match="server_ip"):
        build_policy(hand_doc, provenance={}, flows={"cloud-gaming": {"server_ip": "nope"}})
    with pytest.raises(PolicyError, match="stream_kbps"):
        build_policy(hand_doc, provenance={}, stream_kbps=0)


def test_schema_rejects_a_broken_policy(hand_policy: dict[str, Any]) -> None:
    broken = copy.deepcopy(hand_policy)
    broken["classes"][0]["directions"]["downstream"]["metric_bounds"][0]["basis"] = "guess"
    with pytest.raises(PolicyError, match="classes/0/directions/downstream/metric_bounds/0/basis"):
        validate_policy(broken)


def test_dissertation_design_is_handled_honestly(study_doc: dict[str, Any]) -> None:
    """Table-4.1 design: per-direction logistic not identifiable, symmetric used + noted."""
    policy = build_policy(study_doc, provenance={"source": "ratings.csv"}, flows=FAST_FLOW)
    validate_policy(policy)
    for cls in policy["classes"]:
        for direction in ("downstream", "upstream"):
            for b in cls["directions"][direction]["metric_bounds"]:
                assert b["estimates"]["logistic_status"] == "not_identifiable"
                assert b["basis"] in {"tree_split", "symmetric_logistic", "symmetric_tree"}
                if b["basis"] == "symmetric_logistic":
                    th = study_doc["thresholds"]["by_pace"][cls["pace"]]["both"]
                    key = "max_delay_ms" if "delay" in b["metric_type"] else "max_loss_pct"
                    assert b["bound"] == th[key]["logistic"]
                    assert b["ci95"]["low"] == th[key]["ci95_low"]
                    assert b["ci95"]["low"] <= b["bound"] <= b["ci95"]["high"]
    assert policy["provenance"]["n_ratings"] == 790
    assert policy["provenance"]["n_raters"] == 58
