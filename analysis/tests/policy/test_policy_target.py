"""The policy's target names the item and scale that define "acceptable" (rating items)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from qoe_analysis import analyze, load_ratings
from qoe_analysis.policy import build_policy
from qoe_analysis.scales import parse_sidecar
from qoe_analysis.synthetic_items import gaming_sidecar, generate_item_study

from .conftest import REPO

PROVENANCE = {"study_id": 1, "study_title": "t", "study_version": 1, "source": "test"}


def _policy(doc: dict[str, Any]) -> dict[str, Any]:
    return build_policy(doc, provenance=PROVENANCE, generated_at="2026-01-01T00:00:00Z")


@pytest.fixture(scope="module")
def gaming_policy() -> dict[str, Any]:
    study = generate_item_study(12, 12, seed=3)
    return _policy(analyze(study, sidecar=parse_sidecar(gaming_sidecar())))


def test_binary_acceptance_item_is_the_target(gaming_policy: dict[str, Any]) -> None:
    target = gaming_policy["target"]
    assert target["item"] == "acceptance"
    assert target["scale"] == {"kind": "binary", "min": 0, "max": 1}
    assert target["acceptable_from"] == 1
    assert target["label"] == "share of 'acceptance = yes' is >= 50 %"
    # The tested conditions report the overall item's MOS; "MOS >= 1" would be meaningless.
    assert target["mos_item"] == "overall"
    assert target["mos_scale"] == {"kind": "acr5", "min": 1, "max": 5}
    assert target["mos_rule_disagreements"] == []
    assert "MOS >=" not in target["note"]


def test_cut_on_a_0_to_6_scale() -> None:
    data = REPO / "fixtures" / "data"
    sidecar = parse_sidecar(json.loads((data / "scale_0_6.items.json").read_text()))
    policy = _policy(analyze(load_ratings(data / "scale_0_6.csv", sidecar=sidecar)))
    target = policy["target"]
    assert (target["item"], target["acceptable_from"]) == ("quality", 4)
    assert target["scale"] == {"kind": "discrete", "min": 0, "max": 6}
    assert target["label"] == "share of quality ratings >= 4 is >= 50 %"
    mos = [c["mos"] for cls in policy["classes"] for c in cls["tested_conditions"]]
    assert mos and max(mos) > 5 and all(0 <= m <= 6 for m in mos)  # MOS on 0..6, not 1..5
