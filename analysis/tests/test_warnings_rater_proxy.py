"""The ``rater_proxy`` warning: a per-rater factor with nearly a level per rater is a rater
identity (its information gain measures rater bias); a factor with few levels is not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis import analyze
from qoe_analysis.evidence.rater_proxy import rater_proxy

REPO = Path(__file__).resolve().parents[2]
P809 = REPO / "fixtures" / "data" / "p809_dataset" / "descriptor.json"


def _table(raters: int, per_rater: int = 4, **columns: list[Any]) -> pd.DataFrame:
    """``per_rater`` ratings of each rater; each extra column gives one value per rater."""
    ids = [f"r{i:02d}" for i in range(raters)]
    frame = pd.DataFrame(
        {
            "rater_id": np.repeat(ids, per_rater),
            "session_id": np.repeat([f"s{i:02d}" for i in range(raters)], per_rater),
            "rating": np.tile([1, 2, 4, 5], raters * per_rater // 4 + 1)[: raters * per_rater],
        }
    )
    for name, values in columns.items():
        frame[name] = np.repeat(values, per_rater)
    return frame


def _doc(**weights: float) -> dict[str, Any]:
    return {"weights": {"weka": {"ds_delay_ms": 0.02, **weights}, "weka_mdl_cut_points": {}}}


def test_a_level_per_rater_without_effect_is_a_rater_proxy() -> None:
    table = _table(20, tag=[f"t{i}" for i in range(20)])
    [warning] = rater_proxy(_doc(tag=0.05), table)
    assert warning["code"] == "rater_proxy" and warning["where"] == "weights"
    text = warning["message"]
    assert text.startswith("tag has 20 levels over 20 raters that answered it:")
    assert "its weight (0.05, highest)" in text
    assert "random effect" in text


def test_a_two_level_factor_is_not_a_rater_proxy() -> None:
    table = _table(20, group=["a", "b"] * 10)
    assert rater_proxy(_doc(group=0.05), table) == []


@pytest.mark.parametrize(("levels", "fires"), [(9, False), (10, True)])
def test_the_rule_is_levels_at_least_half_the_answering_raters(levels: int, fires: bool) -> None:
    values = [f"v{i % levels}" for i in range(20)]
    assert bool(rater_proxy(_doc(tag=0.01), _table(20, tag=values))) is fires


def test_gaps_are_counted_apart_from_the_answering_raters() -> None:
    # 8 raters answered with 5 ages (>= 8 / 2); 12 left it: the level "(missing)"
    ages = ["30", "31", "32", "33", "34", "30", "31", "32", *["(missing)"] * 12]
    [warning] = rater_proxy(_doc(Age=0.001), _table(20, Age=ages))
    assert "Age has 5 levels over 8 raters that answered it (12 left it empty" in warning["message"]
    assert "(0.001, 2nd highest of 2)" in warning["message"]
    # counted over all 20 raters the same 6 levels would not fire: the gaps are not answers
    assert rater_proxy(_doc(Age=0.001), _table(20, Age=[*ages[:8], *["40", "41"] * 6])) == []


def test_a_numeric_factor_counts_its_mdl_intervals() -> None:
    table = _table(20, age=[float(20 + i) for i in range(20)])
    many = {"weights": {"weka": {"age": 0.03}, "weka_mdl_cut_points": {"age": []}}}
    assert rater_proxy(many, table) == []  # one interval: the weight sees no level at all
    assert rater_proxy({"weights": {"weka": {"age": 0.03}}}, table)  # no cut points: values


def test_a_factor_that_changes_within_a_rater_counts_sessions() -> None:
    table = _table(6, per_rater=4)
    table["session_id"] = [f"s{i // 2}" for i in range(24)]  # two sessions per rater
    table["room"] = [f"room{i // 2}" for i in range(24)]  # a level per session
    [warning] = rater_proxy(_doc(room=0.2), table)
    assert "room has 12 levels over 12 sessions that answered it" in warning["message"]


def test_unweighted_columns_and_a_missing_table_give_no_warning() -> None:
    table = _table(20, tag=[f"t{i}" for i in range(20)])
    assert rater_proxy(_doc(), table) == []  # not analysed: no weight
    assert rater_proxy(_doc(tag=0.05), None) == []


def _with_hand_made_attributes(study: pd.DataFrame) -> pd.DataFrame:
    """The example study with two attributes that have no effect: a code per rater and a
    two-level group."""
    raters = sorted(study["rater_id"].astype(str).unique())
    code = {r: f"c{i:02d}" for i, r in enumerate(raters)}
    group = {r: "ab"[i % 2] for i, r in enumerate(raters)}
    out = study.copy()
    out["code"] = out["rater_id"].astype(str).map(code)
    out["group"] = out["rater_id"].astype(str).map(group)
    return out


def test_an_analysis_warns_about_the_rater_code_and_not_the_group(study: pd.DataFrame) -> None:
    doc = analyze(_with_hand_made_attributes(study))
    found = [w for w in doc["warnings"] if w["code"] == "rater_proxy"]
    assert [w["message"].split(" ")[0] for w in found] == ["code"]
    assert "code has 58 levels over 58 raters" in found[0]["message"]


def test_the_example_study_factors_are_no_rater_proxy(study_doc: dict[str, Any]) -> None:
    # age is numeric (MDL intervals), skill and attitude have three levels over 58 raters
    assert not [w for w in study_doc["warnings"] if w["code"] == "rater_proxy"]


@pytest.mark.slow
def test_the_p809_fixture_warns_about_age_only() -> None:
    from qoe_analysis.dataset import load_dataset_file

    doc = analyze(load_dataset_file(P809).ratings)
    found = [w["message"] for w in doc["warnings"] if w["code"] == "rater_proxy"]
    assert len(found) == 1 and found[0].startswith("Age has ")
