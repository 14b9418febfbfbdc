"""Every marginal estimate of a policy lies inside its own interval, every interval inside
the physical range, and every joint bound between 0 and the tested maximum."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from qoe_analysis.models.thresholds import PHYSICAL_RANGE, clip_logistic
from qoe_analysis.policy import build_policy

from .conftest import REPO

PHYSICAL = {"one-way-delay-maximum": (0.0, None), "one-way-packet-loss": (0.0, 100.0)}


def check_policy(policy: dict[str, Any]) -> int:
    """Assert coherence of every bound; return how many bounds had an interval."""
    checked = 0
    for cls in policy["classes"]:
        for direction in cls["directions"].values():
            for joint in direction["metric_bounds"]:
                # the joint bound is the corner: t * tested maximum, t in (0, 1]
                if joint["bound"] is not None:
                    assert 0.0 <= joint["bound"] <= joint["tested_max"] * (1 + 1e-12), joint
                b = joint["estimates"]["marginal"]  # policy 1.0's bound, with its interval
                if b is None:
                    continue
                lo_phys, hi_phys = PHYSICAL[b["metric_type"]]
                bound, interval, ci = b["bound"], b["interval"], b["ci95"]
                if bound is None:
                    assert interval is None and ci is None
                    continue
                assert interval is not None, b
                low, high = interval["low"], interval["high"]
                assert low is not None and lo_phys <= low <= bound, b
                assert high is None or bound <= high, b
                if hi_phys is not None:
                    assert bound <= hi_phys and (high is None or high <= hi_phys), b
                assert (interval["estimator"] == "logistic") == b["basis"].endswith("logistic")
                if ci is not None:  # only a logistic bound has a CI, and it is the interval
                    assert b["basis"].endswith("logistic")
                    assert (ci["low"], ci["high"]) == (low, high)
                checked += 1
    return checked


def test_fixture_policy_bounds_lie_in_their_intervals() -> None:
    policy = json.loads((REPO / "fixtures/policies/dissertation_shape.policy.json").read_text())
    assert check_policy(policy) == 16
    assert policy["target"]["label"] == "share of ratings >= 3 is >= 50 %"


def test_built_policies_bounds_lie_in_their_intervals(
    study_doc: dict[str, Any], hand_policy: dict[str, Any]
) -> None:
    assert check_policy(build_policy(study_doc, provenance={})) == 16
    assert check_policy(hand_policy) > 0


def test_mos_rule_disagreements_are_listed(study_doc: dict[str, Any]) -> None:
    target = build_policy(study_doc, provenance={})["target"]
    for row in target["mos_rule_disagreements"]:
        assert (row["mos"] >= 3) != (row["share"] >= 0.5)
    conditions = [c for c in study_doc["conditions"] if c["game"] != "all"]
    expected = 0
    for c in conditions:
        dist = c["distribution"]
        share = sum(v for k, v in dist.items() if int(k) >= 3) / sum(dist.values())
        expected += (c["mos"] >= 3) != (share >= 0.5)
    assert len(target["mos_rule_disagreements"]) == expected


def test_threshold_intervals_within_physical_range(study_doc: dict[str, Any]) -> None:
    for per_direction in study_doc["thresholds"]["by_pace"].values():
        for direction in ("downstream", "upstream", "both"):
            for key, entry in per_direction[direction].items():
                lo_phys, hi_phys = PHYSICAL_RANGE[key]
                for v in (entry["logistic"], entry["ci95_low"], entry["ci95_high"]):
                    assert v is None or lo_phys <= v <= hi_phys
                if entry["logistic_status"] == "ok":
                    assert entry["ci95_low"] <= entry["logistic"] <= entry["ci95_high"]
                bracket = entry["tree_tested_bracket"]
                if entry["tree_status"] == "split":
                    assert bracket[0] <= entry["tree"] <= bracket[1]


def test_clip_logistic_loss_interval() -> None:
    # the example: loss 15.5 % with CI [8, 670] on levels tested up to 1 %
    raw = {"value": 15.5, "ci95_low": 8.0, "ci95_high": 670.0, "status": "ok"}
    out = clip_logistic("max_loss_pct", raw, np.array([0.0, 0.3, 1.0]))
    assert (out["logistic"], out["ci95_low"], out["ci95_high"]) == (15.5, 8.0, 100.0)
    assert out["ci95_raw"] == [8.0, 670.0] and out["logistic_clipped_to_physical_range"]
    assert out["logistic_extrapolated"] and out["physical_range"] == [0.0, 100.0]
    delay = clip_logistic(
        "max_delay_ms",
        {"value": 40.0, "ci95_low": -12.0, "ci95_high": 90.0},
        np.array([0.0, 80.0, 200.0]),
    )
    assert (delay["ci95_low"], delay["physical_range"]) == (0.0, [0.0, None])
    # the raw CI end −12 ms lies below the lowest tested level: clipped and extrapolated
    assert delay["logistic_clipped_to_physical_range"] and delay["logistic_extrapolated"]
    inside = clip_logistic("max_loss_pct", {"value": 0.5, "ci95_low": 0.4, "ci95_high": 0.7},
                           np.array([0.0, 1.0]))  # fmt: skip
    assert not inside["logistic_clipped_to_physical_range"] and not inside["logistic_extrapolated"]


@pytest.mark.parametrize("value", [150.0, -3.0])
def test_clipped_estimate_stays_inside_its_clipped_interval(value: float) -> None:
    out = clip_logistic(
        "max_loss_pct",
        {"value": value, "ci95_low": value - 10, "ci95_high": value + 10},
        np.array([0.0, 1.0]),
    )
    assert out["ci95_low"] <= out["logistic"] <= out["ci95_high"]
