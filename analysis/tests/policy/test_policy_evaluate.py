"""Evaluator: hand-computed cases on the hand-made policy."""

from __future__ import annotations

from typing import Any

import pytest
from qoe_analysis.policy import PolicyError, evaluate_policy
from qoe_analysis.policy.evaluate import mos_band, tree_p_acceptable


def path(pid: str, down: tuple[float, float], up: tuple[float, float]) -> dict[str, Any]:
    return {
        "id": pid,
        "downstream": {"delay_ms": down[0], "loss_pct": down[1]},
        "upstream": {"delay_ms": up[0], "loss_pct": up[1]},
    }


MEASUREMENTS = {
    "paths": [
        path("good", (50, 0.0), (50, 0.0)),
        path("slowdown", (120, 0.1), (20, 0.1)),
        path("lossy", (10, 0.8), (10, 0.8)),
    ]
}


@pytest.fixture
def report(hand_policy: dict[str, Any]) -> dict[str, Any]:
    return evaluate_policy(hand_policy, MEASUREMENTS)


def rows(report: dict[str, Any], class_id: str) -> dict[str, Any]:
    cls = next(c for c in report["classes"] if c["class"] == class_id)
    return {r["path"]: r for r in cls["paths"]} | {"_class": cls}


def test_fast_class(report: dict[str, Any]) -> None:
    fast = rows(report, "cloud-gaming.fast")
    assert fast["_class"]["acceptable_paths"] == ["good"]
    assert fast["_class"]["preferred_path"] == "good"
    good = fast["good"]
    assert good["acceptable"] and good["within_bounds"] and good["violations"] == []
    assert good["p_acceptable"] == pytest.approx(0.9)
    assert good["margin"] == pytest.approx(0.5)  # (100 - 50) / 100 is the tightest
    assert good["mos_band"] == {
        "low": 3.8,
        "high": 3.8,
        "low_from": "D1/racing",
        "high_from": "D1/racing",
        "monotone_consistent": True,
        "meets_target": "yes",
    }
    slow = fast["slowdown"]
    assert not slow["acceptable"]
    assert slow["violations"] == [
        {
            "direction": "downstream",
            "metric_type": "one-way-delay-maximum",
            "measured": 120.0,
            "bound": 100.0,
            "basis": "joint_logistic",
        }
    ]
    assert slow["p_acceptable"] == pytest.approx(0.2)
    assert slow["margin"] == pytest.approx(-0.2)
    band = slow["mos_band"]
    assert (band["low"], band["high"], band["low_from"], band["high_from"]) == (
        1.0,
        4.5,
        None,
        "B/racing",
    )
    assert band["meets_target"] == "uncertain"
    lossy = fast["lossy"]
    assert [(v["direction"], v["metric_type"]) for v in lossy["violations"]] == [
        ("downstream", "one-way-packet-loss")
    ]  # upstream 0.8 % is within its 0.9 % bound
    assert lossy["p_acceptable"] == pytest.approx(0.1)


def test_all_paces_class_averages_the_pace_rules(report: dict[str, Any]) -> None:
    every = rows(report, "cloud-gaming")
    # pace unknown: rules 2 (n 20, p 0.2) and 3 (n 20, p 0.6) both apply
    assert every["slowdown"]["p_acceptable"] == pytest.approx(0.4)
    assert every["_class"]["acceptable_paths"] == ["good"]


def test_class_without_bounds_rejects_every_path(report: dict[str, Any]) -> None:
    slow = rows(report, "cloud-gaming.slow")
    assert slow["_class"]["acceptable_paths"] == []
    assert slow["_class"]["preferred_path"] is None
    good = slow["good"]
    assert len(good["violations"]) == 4
    assert all(v["reason"] == "class has no acceptable bound" for v in good["violations"])
    assert good["margin"] is None


def test_ranking_by_margin(hand_policy: dict[str, Any]) -> None:
    m = {"paths": [path("b", (90, 0.0), (0, 0.0)), path("a", (40, 0.3), (0, 0.0))]}
    fast = rows(evaluate_policy(hand_policy, m), "cloud-gaming.fast")
    # b: min slack (100-90)/100 = 0.1; a: min((100-40)/100, (0.75-0.3)/0.75) = 0.6
    assert fast["_class"]["acceptable_paths"] == ["a", "b"]


def test_tree_probability_and_band_helpers() -> None:
    rules = [
        {"conditions": [{"feature": "x", "op": "<=", "value": 1.0}], "n": 3, "p_acceptable": 1.0},
        {"conditions": [{"feature": "x", "op": ">", "value": 1.0}], "n": 1, "p_acceptable": 0.0},
        {"conditions": [], "n": 0, "p_acceptable": None},
    ]
    assert tree_p_acceptable(rules, {"x": 0.5}) == 1.0
    assert tree_p_acceptable(rules, {}) == pytest.approx(0.75)
    assert tree_p_acceptable(rules[2:], {}) is None
    keys = ("ds_delay_ms", "us_delay_ms", "ds_loss_pct", "us_loss_pct")
    conds = [
        {"scenario": "A", "game": "g", "mos": 2.0, **dict.fromkeys(keys, 0.0)},
        {"scenario": "Z", "game": "g", "mos": 4.0, **dict.fromkeys(keys, 9.0)},
    ]
    band = mos_band(conds, dict.fromkeys(keys, 1.0), 3.0)
    assert band["monotone_consistent"] is False  # worse condition rated better
    assert (band["low"], band["high"]) == (2.0, 4.0)


@pytest.mark.parametrize(
    ("measurements", "message"),
    [
        ({}, "invalid measurements: (root): 'paths' is a required property"),
        ({"paths": [{"id": "p", "downstream": {"delay_ms": 1, "loss_pct": 0}}]}, "'upstream'"),
        ({"paths": [path("p", (-1, 0), (0, 0))]}, "paths/0/downstream/delay_ms"),
        ({"paths": [path("p", (1, 0), (0, 0)), path("p", (1, 0), (0, 0))]}, "duplicate path"),
    ],
)
def test_bad_measurements(hand_policy: dict[str, Any], measurements: Any, message: str) -> None:
    with pytest.raises(PolicyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        evaluate_policy(hand_policy, measurements)
