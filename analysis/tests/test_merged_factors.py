"""Factors varied together are one factor (issue 31): a design that sets a factor to the same
level on both directions in every rating is analysed as one factor both_X in the weights,
the tree, the thresholds ("both" direction), mos_by_factor and the conditions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis import analyze, load_ratings
from qoe_analysis.report_sections import factor_frame

GRID = Path(__file__).resolve().parents[2] / "fixtures" / "data" / "grid_jitter_burst.csv"


def _symmetric_study() -> pd.DataFrame:
    """Delay 0/100/200 ms on both directions, loss 0/2 % downstream only; 12 raters (one
    session each) rate every scenario once: acceptable (4) iff delay <= 100 ms, else 2."""
    rows = []
    for rater in range(12):
        pace = "fast" if rater < 6 else "slow"
        for delay in (0.0, 100.0, 200.0):
            for loss in (0.0, 2.0):
                rows.append(
                    {
                        "rater_id": f"r{rater:02d}",
                        "session_id": f"s{rater:02d}",
                        "game": "racing" if pace == "fast" else "soccer",
                        "game_pace": pace,
                        "scenario": f"D{delay:g}L{loss:g}",
                        "ds_delay_ms": delay,
                        "us_delay_ms": delay,
                        "ds_loss_pct": loss,
                        "us_loss_pct": 0.0,
                        "rating": 4 if delay <= 100 else 2,
                    }
                )
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def symmetric_doc() -> dict[str, Any]:
    return dict(analyze(_symmetric_study()))


def _split_features(node: dict[str, Any]) -> set[str]:
    if "split" not in node:
        return set()
    return (
        {node["split"]["feature"]} | _split_features(node["left"]) | _split_features(node["right"])
    )


def test_equal_directions_are_one_factor_everywhere(symmetric_doc: dict[str, Any]) -> None:
    doc = symmetric_doc
    meta = doc["meta"]
    assert meta["merged_factors"] == {"both_delay_ms": ["ds_delay_ms", "us_delay_ms"]}
    assert meta["network_factors"] == ["both_delay_ms", "ds_loss_pct"]
    assert meta["factors"][:2] == ["both_delay_ms", "ds_loss_pct"]
    assert meta["factor_info"]["both_delay_ms"]["direction"] == "both"
    assert meta["factor_info"]["ds_delay_ms"]["direction"] == "downstream"  # the columns stay
    for convention in ("weka", "rapidminer"):
        assert set(doc["weights"][convention]) >= {"both_delay_ms", "ds_loss_pct"}
        assert not {"ds_delay_ms", "us_delay_ms"} & set(doc["weights"][convention])
    assert _split_features(doc["tree"]["root"]) == {"both_delay_ms"}
    assert doc["tree"]["cv_accuracy"] == 1.0  # the rating depends on the delay alone
    factors = {entry["factor"] for entry in doc["mos_by_factor"]["single"]}
    assert factors == {"both_delay_ms", "ds_loss_pct"}
    for row in doc["conditions"]:
        assert row["both_delay_ms"] == row["ds_delay_ms"] == row["us_delay_ms"]


def test_a_merged_factor_has_the_both_direction_only(symmetric_doc: dict[str, Any]) -> None:
    for pace, entry in symmetric_doc["thresholds"]["by_pace"].items():
        assert set(entry) - {"logistic_model"} == {"downstream", "both"}, pace
        assert set(entry["downstream"]) == {"max_loss_pct"}  # loss varies downstream only
        delay = entry["both"]["max_delay_ms"]
        # acceptable up to 100 ms, not at 200 ms: the tree splits at the midpoint 150
        assert (delay["tree"], delay["tree_tested_bracket"]) == (150.0, [100.0, 200.0])
        assert delay["tested_levels"] == [0.0, 100.0, 200.0]
        assert delay["varied_alone_in_design"]
        assert "both_delay_ms" in symmetric_doc["thresholds"]["baseline"]


def test_the_example_study_merges_nothing(study_doc: dict[str, Any]) -> None:
    # table 4.1: A1/A2 change one direction, so delay and loss stay two factors each
    meta = study_doc["meta"]
    assert meta["merged_factors"] == {}
    assert meta["network_factors"] == ["ds_delay_ms", "us_delay_ms", "ds_loss_pct", "us_loss_pct"]
    assert not any(k.startswith("both_") for k in study_doc["conditions"][0])


def test_the_jitter_grid_merges_delay_and_jitter() -> None:
    doc = analyze(load_ratings(GRID))
    meta = doc["meta"]
    assert meta["merged_factors"] == {
        "both_delay_ms": ["ds_delay_ms", "us_delay_ms"],
        "both_jitter_ms": ["ds_jitter_ms", "us_jitter_ms"],
    }
    assert meta["network_factors"] == [
        "both_delay_ms",
        "both_jitter_ms",
        "us_loss_pct",
        "ds_ge_p_pct",
        "ds_ge_r_pct",
    ]
    fast = doc["thresholds"]["by_pace"]["fast"]
    assert set(fast["both"]) == {"max_delay_ms", "max_jitter_ms", "max_loss_pct"}
    assert set(fast["upstream"]) == {"max_loss_pct"} and "downstream" not in fast
    assert fast["both"]["max_jitter_ms"]["tested_levels"] == [0.0, 30.0]
    # one weight for the factor, equal to what each direction had before (equal columns)
    weka = doc["weights"]["weka"]
    assert weka["both_jitter_ms"] > 0 and "ds_jitter_ms" not in weka


def test_factor_frame_takes_the_studys_pairs() -> None:
    table = _symmetric_study()
    frame = factor_frame(table)
    assert frame.columns.tolist()[:2] == ["both_delay_ms", "ds_loss_pct"]
    np.testing.assert_array_equal(frame["both_delay_ms"], table["ds_delay_ms"])
    # a subset where the pair does not vary keeps no column for it
    fixed = table[table["ds_delay_ms"] == 0.0]
    assert "both_delay_ms" not in factor_frame(
        fixed, {"both_delay_ms": ["ds_delay_ms", "us_delay_ms"]}
    )
    # pairs found on the whole study are used, not re-found on the subset
    assert factor_frame(table, {}).columns.tolist()[:3] == [
        "ds_delay_ms",
        "us_delay_ms",
        "ds_loss_pct",
    ]
