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


def marginal(policy: dict[str, Any], class_id: str, direction: str) -> dict[str, Any]:
    """Policy 1.0's bounds, kept under each 2.0 bound's estimates.marginal."""
    return {k: b["estimates"]["marginal"] for k, b in bounds(policy, class_id, direction).items()}


def test_schema_is_valid_and_versioned() -> None:
    schema = load_schema("qoe-policy")
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "urn:qoe-lab:schema:qoe-policy:2.0"
    for name in ("measurements", "onos-requests", "ietf-network-slice-service"):
        jsonschema.Draft202012Validator.check_schema(load_schema(name))


def test_bounds_are_the_joint_corner(hand_policy: dict[str, Any]) -> None:
    assert hand_policy["policy_version"] == "2.0"
    fast = next(c for c in hand_policy["classes"] if c["id"] == "cloud-gaming.fast")
    assert fast["status"] == "ok"
    joint = fast["joint"]
    assert joint["corner"] == {
        "ds_delay_ms": 100.0,
        "us_delay_ms": 140.0,
        "ds_loss_pct": 0.75,
        "us_loss_pct": 0.9,
    }
    assert (joint["predicted"], joint["predicted_ci95"]) == (0.62, [0.5, pytest.approx(0.72)])
    assert (joint["observed_share"], joint["observed_n"], joint["target"]) == (0.7, 20, 0.5)
    down, up = (bounds(hand_policy, "cloud-gaming.fast", d) for d in ("downstream", "upstream"))
    delay = down["one-way-delay-maximum"]
    assert (delay["bound"], delay["basis"], delay["factor"], delay["tested_max"]) == (
        100.0,
        "joint_logistic",
        "ds_delay_ms",
        200.0,
    )
    assert "reached together with every other bound" in delay["note"]
    assert (up["one-way-delay-maximum"]["bound"], up["one-way-packet-loss"]["bound"]) == (
        140.0,
        0.9,
    )


def test_marginal_estimates_are_kept(hand_policy: dict[str, Any]) -> None:
    """The 1.0 rules (tree split, symmetric logistic, tested maximum) stay as estimates."""
    down = marginal(hand_policy, "cloud-gaming.fast", "downstream")
    delay = down["one-way-delay-maximum"]
    assert (delay["bound"], delay["basis"], delay["tested_bracket"]) == (
        100.0,
        "tree_split",
        [50.0, 150.0],
    )
    assert delay["ci95"] is None
    assert delay["estimates"]["symmetric_logistic_ci95"] == [120.0, 170.0]
    up = marginal(hand_policy, "cloud-gaming.fast", "upstream")
    assert up["one-way-delay-maximum"]["basis"] == "symmetric_logistic"
    assert "applied to this direction alone" in up["one-way-packet-loss"]["note"]
    every = marginal(hand_policy, "cloud-gaming", "upstream")
    assert every["one-way-delay-maximum"]["basis"] == "tree_tested_maximum"
    assert every["one-way-packet-loss"]["basis"] == "symmetric_tree"


def test_class_without_a_joint_bound(hand_policy: dict[str, Any]) -> None:
    slow = next(c for c in hand_policy["classes"] if c["id"] == "cloud-gaming.slow")
    assert slow["status"] == "no_joint_bound"
    assert "even unimpaired" in slow["joint"]["reason"]
    assert slow["mapping"]["5qi"]["value"] is None
    assert slow["mapping"]["y1541"]["value"] is None
    for direction in slow["directions"].values():
        for b in direction["metric_bounds"]:
            assert (b["bound"], b["basis"]) == (None, "no_joint_bound")
            assert "no joint bound: even unimpaired" in b["note"]


def test_document_without_joint_model(hand_doc: dict[str, Any]) -> None:
    del hand_doc["joint_model"]
    policy = build_policy(hand_doc, provenance={}, generated_at=GENERATED_AT)
    assert {c["status"] for c in policy["classes"]} == {"no_joint_bound"}
    assert "no joint model" in policy["classes"][0]["joint"]["reason"]


def test_both_directions_factor_bounds_each_direction(hand_doc: dict[str, Any]) -> None:
    """A merged factor (both_jitter_ms) is one factor whose corner bounds both directions."""
    fast = hand_doc["joint_model"]["by_pace"]["fast"]
    fast["corner"]["both_jitter_ms"] = 12.0
    fast["tested_max"]["both_jitter_ms"] = 24.0
    hand_doc["meta"]["network_factors"] = [*fast["corner"]]
    policy = build_policy(hand_doc, provenance={}, generated_at=GENERATED_AT)
    for direction in ("downstream", "upstream"):
        jitter = bounds(policy, "cloud-gaming.fast", direction)["one-way-delay-variation-maximum"]
        assert (jitter["bound"], jitter["factor"]) == (12.0, "both_jitter_ms")
        assert "one level on both directions" in jitter["note"]


def test_dry_run_share_and_warnings(hand_doc: dict[str, Any]) -> None:
    hand_doc["meta"] |= {"n_ratings_dry_run": 61, "agent_backends": {"dry-run": 61}}
    with pytest.raises(PolicyError, match=r"61 of 120 ratings \(51%\).*allow_dry_run"):
        build_policy(hand_doc, provenance={})
    policy = build_policy(hand_doc, provenance={}, allow_dry_run=True)
    assert policy["provenance"]["dry_run_share"] == pytest.approx(61 / 120)
    assert policy["provenance"]["warnings"] == hand_doc["warnings"]
    hand_doc["meta"]["n_ratings_dry_run"] = 60  # half is not "more than half"
    assert build_policy(hand_doc, provenance={})["provenance"]["dry_run_share"] == 0.5


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
    """Table-4.1 design: per-direction effects are not identified, but P(acceptable) along
    the tested maxima (both directions raised together) is: every class gets a corner,
    the same value on both directions, inside the tested range."""
    policy = build_policy(study_doc, provenance={"source": "ratings.csv"}, flows=FAST_FLOW)
    validate_policy(policy)
    for cls in policy["classes"]:
        joint = study_doc["joint_model"]["by_pace"][cls["pace"]]
        assert cls["status"] == "ok" and cls["joint"]["corner"] == joint["corner"]
        assert cls["joint"]["predicted_ci95"][0] == pytest.approx(0.5, abs=1e-9)
        down = bounds(policy, cls["id"], "downstream")
        up = bounds(policy, cls["id"], "upstream")
        for metric, b in down.items():
            assert b["bound"] == up[metric]["bound"] == joint["corner"][b["factor"]]
            assert 0 < b["bound"] < b["tested_max"]
            marginal_basis = b["estimates"]["marginal"]["basis"]
            assert marginal_basis in {"tree_split", "symmetric_logistic", "symmetric_tree"}
    assert policy["provenance"]["n_ratings"] == 790
    assert policy["provenance"]["n_raters"] == 58
