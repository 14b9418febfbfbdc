"""The document's warnings about intervals and models (evidence/warning_models.py):
hand-made documents for each rule, one where it fires and one where it does not."""

from __future__ import annotations

from typing import Any

import pytest
from qoe_analysis.evidence.warning_models import (
    collinear_factors,
    extrapolated,
    interval_warnings,
    marginal_thresholds,
    merged_factors,
    model_weak,
    no_joint_bound,
)

ACR5 = {"min": 1, "max": 5}


def _row(n: int, status: str | None = None, low: float = 2.0, high: float = 4.0) -> Any:
    row: dict[str, Any] = {"n": n, "ci95_low": low, "ci95_high": high}
    if status is not None:
        row["ci95_status"] = status
    return row


def _interval_doc(rows: list[Any]) -> dict[str, Any]:
    return {"meta": {"primary_item": "overall"}, "items": [{"key": "overall", "scale": ACR5}]} | {
        "conditions": rows
    }


def test_clipped_and_missing_intervals_are_counted_per_section() -> None:
    rows = [_row(2, "clipped"), _row(3, "clipped"), _row(30, "ok"), _row(1, "n_too_small")]
    rows.append(_row(0, "n_too_small"))  # an untested cell: no interval by design
    fired = interval_warnings(_interval_doc(rows))
    assert [(w["code"], w["where"]) for w in fired] == [
        ("interval_clipped", "conditions"),
        ("no_interval", "conditions"),
    ]
    assert fired[0]["message"].startswith("2 of 4 MOS intervals reach beyond the scale [1, 5]")
    assert "(n = 2–3)" in fired[0]["message"]
    assert fired[1]["message"].startswith("1 of 4 MOS values rest on one rating")
    assert interval_warnings(_interval_doc([_row(30, "ok"), _row(0, "n_too_small")])) == []


def test_every_section_with_intervals_is_read() -> None:
    clipped = [_row(2, "clipped")]
    doc = {
        "meta": {"primary_item": "q"},
        "conditions": [],
        "mos_by_factor": {
            "single": [{"points": clipped}],
            "pairs": [{"cells": [_row(1, "n_too_small")]}],
        },
        "per_item": {"q": {"scale": {"min": 0, "max": 6}, "mos": clipped}},
        "subject_model": {"conditions": clipped},
    }
    fired = interval_warnings(doc)
    assert [(w["code"], w["where"]) for w in fired] == [
        ("interval_clipped", "mos_by_factor"),
        ("no_interval", "mos_by_factor"),
        ("interval_clipped", "per_item.q.mos"),
        ("interval_clipped", "subject_model"),
    ]
    assert "scale [0, 6]" in fired[2]["message"]
    assert "condition-quality intervals" in fired[3]["message"]


def test_without_a_status_the_bounds_tell_a_clipped_interval() -> None:
    rows = [_row(2, low=-10.7, high=14.7), _row(5, low=1.5, high=4.5), _row(1, low=3, high=3)]
    codes = [w["code"] for w in interval_warnings(_interval_doc(rows))]
    assert codes == ["interval_clipped", "no_interval"]


def _kpi(value: float, extrapolated: bool, tree: float | None = None) -> dict[str, Any]:
    return {
        "tree": tree,
        "logistic": value,
        "logistic_extrapolated": extrapolated,
        "tested_levels": [0.0, 100.0, 300.0],
    }


def test_extrapolated_thresholds_and_joint_corners() -> None:
    by_pace = {
        "slow": {"both": {"max_delay_ms": _kpi(301.67, True)}, "logistic_model": {}},
        "fast": {"both": {"max_delay_ms": _kpi(181.7, False)}},
    }
    joint = {"by_pace": {"slow": {"extrapolated": True}, "fast": {"extrapolated": False}}}
    fired = extrapolated({"thresholds": {"by_pace": by_pace}, "joint_model": joint})
    assert [w["where"] for w in fired] == ["thresholds", "joint_model"]
    assert fired[0]["message"].startswith("1 logistic threshold lies beyond the tested levels")
    assert "slow both max_delay_ms = 301.7 (tested 0–300)" in fired[0]["message"]
    assert fired[1]["message"].startswith("for 1 of 2 paces no tested condition reaches")
    assert fired[1]["message"].endswith("(slow)")
    # inside the tested levels, but an end of the CI beyond them
    loss = _kpi(2.272, True) | {"ci95_raw": [0.4, 7.1], "tested_levels": [0, 1, 3]}
    (fired,) = extrapolated({"thresholds": {"by_pace": {"fast": {"both": {"max_loss_pct": loss}}}}})
    assert fired["message"].endswith("fast both max_loss_pct = 2.272 (95 % CI 0.4–7.1; tested 0–3)")
    by_pace["slow"]["both"]["max_delay_ms"]["logistic_extrapolated"] = False
    assert extrapolated({"thresholds": {"by_pace": by_pace}}) == []


def _factors_doc(columns: dict[str, list[Any]], merged: Any = None) -> dict[str, Any]:
    names = list(columns)
    n_rows = len(columns[names[0]])
    rows = [{"n": 3, **{c: columns[c][i] for c in names}} for i in range(n_rows)]
    rows.append({"n": 0, **{c: 999 for c in names}})  # not rated: breaks no pattern
    meta: dict[str, Any] = {"network_factors": names}
    if merged is not None:
        meta["merged_factors"] = merged
    return {"meta": meta, "conditions": rows}


def test_factors_that_always_change_together_are_collinear() -> None:
    # delay and loss moved together by one scenario family; jitter varies on its own
    doc = _factors_doc(
        {
            "ds_delay_ms": [0, 50, 100, 0, 50],
            "ds_loss_pct": [0, 1, 2, 0, 1],
            "ds_jitter_ms": [0, 0, 0, 10, 10],
        }
    )
    (fired,) = collinear_factors(doc)
    assert fired["code"] == "collinear_factors"
    assert fired["message"].startswith("1 pair of factors always changes together over the 5")
    assert fired["message"].endswith(": ds_delay_ms and ds_loss_pct (r = 1.000)")
    # confounded without a straight line: still one level of one with one level of the other
    doc = _factors_doc({"ds_delay_ms": [0, 50, 100], "ds_loss_pct": [0, 1, 4]})
    (fired,) = collinear_factors(doc)
    assert "ds_delay_ms and ds_loss_pct" in fired["message"] and "r =" not in fired["message"]


def test_factors_that_vary_apart_or_were_merged_are_not_collinear() -> None:
    apart = _factors_doc({"ds_delay_ms": [0, 50, 0, 50], "ds_loss_pct": [0, 0, 1, 1]})
    assert collinear_factors(apart) == []
    equal = {"ds_jitter_ms": [0, 10, 20], "us_jitter_ms": [0, 10, 20]}
    assert collinear_factors(_factors_doc(equal))  # before merging: collinear
    merged = {"both_jitter_ms": ["ds_jitter_ms", "us_jitter_ms"]}
    assert collinear_factors(_factors_doc(equal, merged)) == []


def test_merged_factors_are_named() -> None:
    merged = {"both_jitter_ms": ["ds_jitter_ms", "us_jitter_ms"]}
    (fired,) = merged_factors({"meta": {"merged_factors": merged}})
    assert "both_jitter_ms = ds_jitter_ms = us_jitter_ms" in fired["message"]
    assert merged_factors({"meta": {"merged_factors": {}}}) == []
    assert merged_factors({"meta": {}}) == []


@pytest.mark.parametrize(
    ("cv", "sd", "fires"),
    [
        (0.70, 0.03, True),  # 0.70 <= 0.68 + 0.03
        (0.68, 0.0, True),  # equal to always saying the majority class
        (0.78, 0.02, False),  # 0.78 > 0.70
    ],
)
def test_a_tree_no_better_than_the_majority_class(cv: float, sd: float, fires: bool) -> None:
    tree = {
        "cv_accuracy": cv,
        "cv_accuracy_sd": sd,
        "cv_folds": 5,
        "majority_accuracy": 0.68,
        "majority_class": "acceptable",
    }
    fired = model_weak({"tree": tree})
    assert bool(fired) is fires
    if fires:
        assert f"accuracy {cv:.3f} (SD {sd:.3f} over 5 folds)" in fired[0]["message"]
        assert "acceptable (0.680)" in fired[0]["message"]


def test_a_tree_without_cross_validation() -> None:
    (fired,) = model_weak({"tree": {"cv_accuracy": None, "cv_note": "k < 2"}})
    assert fired["where"] == "tree" and "(k < 2)" in fired["message"]
    assert model_weak({"tree": {"training_accuracy": 0.9}}) == []  # no cv key: not judged


def _thresholds(value: float | None) -> dict[str, Any]:
    kpi = {"tree": None, "logistic": value}
    return {"criterion": "P(acceptable) >= 0.5", "by_pace": {"all": {"both": {"x": kpi}}}}


def test_marginal_thresholds_with_several_factors() -> None:
    doc = {"meta": {"network_factors": ["a", "b"]}, "thresholds": _thresholds(100.0)}
    (fired,) = marginal_thresholds(doc)
    assert "marginal (P(acceptable) >= 0.5) while 2 network factors vary" in fired["message"]
    assert "joint model" in fired["message"]
    doc["meta"]["network_factors"] = ["a"]
    assert marginal_thresholds(doc) == []  # one factor: marginal is joint
    two = {"meta": {"network_factors": ["a", "b"]}, "thresholds": _thresholds(None)}
    assert marginal_thresholds(two) == []  # nothing located


def test_no_joint_bound() -> None:
    (fired,) = no_joint_bound({"joint_model": {"status": "not_estimable", "reason": "one rater"}})
    assert fired["message"].startswith("the joint model is not estimable: one rater")
    by_pace = {
        "fast": {"status": "ok"},
        "slow": {"status": "no_bound", "reason": "even t -> 0 fails"},
    }
    (fired,) = no_joint_bound({"joint_model": {"status": "ok", "by_pace": by_pace}})
    assert fired["message"] == "1 of 2 paces get no joint bound: slow (even t -> 0 fails)"
    by_pace["slow"] = {"status": "ok"}
    assert no_joint_bound({"joint_model": {"status": "ok", "by_pace": by_pace}}) == []
    assert no_joint_bound({}) == []
