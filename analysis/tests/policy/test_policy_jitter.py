"""A study that varies jitter gets a jitter bound (one-way delay variation); every controller
format either carries it (IETF) or says it cannot."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from qoe_analysis import analyze, load_ratings
from qoe_analysis.policy import build_policy
from qoe_analysis.policy.evaluate import evaluate_policy
from qoe_analysis.policy.export import export_policy

GRID = Path(__file__).resolve().parents[3] / "fixtures" / "data" / "grid_jitter_burst.csv"
JITTER = "one-way-delay-variation-maximum"


@cache
def _policy() -> dict[str, Any]:
    doc = analyze(load_ratings(GRID))
    return build_policy(doc, provenance={"study_id": "grid"}, generated_at="2026-01-02T03:04:05Z")


def _bounds(cls: dict[str, Any], direction: str) -> dict[str, Any]:
    return {b["metric_type"]: b for b in cls["directions"][direction]["metric_bounds"]}


def test_jitter_bounds_where_jitter_varies_and_no_loss_bound_where_loss_does_not() -> None:
    for cls in _policy()["classes"]:
        down, up = _bounds(cls, "downstream"), _bounds(cls, "upstream")
        assert set(down) == {"one-way-delay-maximum", JITTER}  # ds loss constant: no bound
        assert set(up) == {"one-way-delay-maximum", "one-way-packet-loss", JITTER}
        assert down[JITTER]["metric_unit"] == "milliseconds"
        assert down[JITTER]["bound"] is None or down[JITTER]["bound"] > 0
        tested = cls["tested_conditions"][0]
        assert {"ds_jitter_ms", "us_ge_r_pct", "ds_jitter_distribution"} <= set(tested)


def test_ietf_carries_the_jitter_bound() -> None:
    body = json.loads(export_policy(_policy(), "ietf"))[
        "ietf-network-slice-service:network-slice-services"
    ]
    service = body["slice-service"][0]
    construct = service["connection-groups"]["connection-group"][0]["connectivity-construct"][0]
    types = [
        m["metric-type"] for m in construct["service-slo-sle-policy"]["slo-policy"]["metric-bound"]
    ]
    assert f"ietf-network-slice-service:{JITTER}" in types
    assert "ietf-network-slice-service:one-way-packet-loss" not in types  # downstream


def test_controller_formats_say_they_cannot_express_jitter() -> None:
    policy = _policy()
    for fmt in ("faucet", "ovs"):
        text = export_policy(policy, fmt)
        assert "jitter (one-way delay variation) bounds:" in text, fmt
    yaml.safe_load(export_policy(policy, "faucet"))
    for fmt in ("onos", "rest_qos"):
        requests = json.loads(export_policy(policy, fmt))
        assert any(n["what"] == JITTER for n in requests["not_expressed"]), fmt


def test_the_evaluator_checks_jitter_only_when_measured() -> None:
    policy = _policy()
    fast = next(c for c in policy["classes"] if c["pace"] == "fast")
    bound = _bounds(fast, "downstream")[JITTER]["bound"]
    quiet = {"delay_ms": 0, "loss_pct": 0}
    paths = {
        "paths": [
            {"id": "unmeasured", "downstream": quiet, "upstream": quiet},
            {
                "id": "jittery",
                "downstream": {**quiet, "jitter_ms": bound + 10},
                "upstream": {**quiet, "jitter_ms": 0},
            },
        ]
    }
    result = evaluate_policy(policy, paths)
    rows = {
        r["path"]: r for r in next(c for c in result["classes"] if c["pace"] == "fast")["paths"]
    }
    assert {u["metric_type"] for u in rows["unmeasured"]["unchecked_bounds"]} == {JITTER}
    assert [v["metric_type"] for v in rows["jittery"]["violations"]] == [JITTER]
    assert "unchecked_bounds" not in rows["jittery"]


def test_no_policy_without_thresholds_says_why() -> None:
    from qoe_analysis.policy.schema import PolicyError

    one = pd.read_csv(GRID).iloc[:1]
    doc = analyze(one)
    with pytest.raises(PolicyError, match=r"no policy yet: .*no KPI factor"):
        build_policy(doc, provenance={})
