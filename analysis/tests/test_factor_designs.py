"""Factors are data: any subset of the registry's columns, constant factors reported, every
varying factor analysed; the example study's numbers do not depend on the export's width."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from netem_profile.factors import FACTORS, tidy_column
from qoe_analysis import analyze, load_ratings
from qoe_analysis.cli import main
from qoe_analysis.stats.reliability import scenario_groups
from qoe_analysis.tidy.columns import FACTOR_COLUMNS, NETWORK_FACTORS, TIDY_COLUMNS
from qoe_analysis.tidy.validation import RatingsValidationError, validate_ratings

GRID = Path(__file__).resolve().parents[2] / "fixtures" / "data" / "grid_jitter_burst.csv"
NEUTRAL = {tidy_column(d, f.key): f.neutral for f in FACTORS for d in ("downstream", "upstream")}


def _wide(study_dir: Path) -> pd.DataFrame:
    """The example study as the export writes it now: all 30 factor columns, the
    long-format item columns (one item "overall", no training, no response times) and the
    provenance columns (a netlink agent)."""
    raw = pd.read_csv(study_dir / "ratings.csv", dtype=str)
    for column in FACTOR_COLUMNS:
        if column not in raw.columns:
            raw[column] = str(NEUTRAL[column])
    raw = raw.assign(
        item="overall",
        training="0",
        response_ms="",
        since_end_ms="",
        agent_backend="netlink",
        agent_version="0.1.0",
    )
    extra = [c for c in raw.columns if c not in TIDY_COLUMNS]  # per-rater columns (age…)
    return raw[[*TIDY_COLUMNS, *extra]]


def _split_features(node: dict[str, Any], found: set[str]) -> set[str]:
    if "split" in node:
        found.add(node["split"]["feature"])
        _split_features(node["left"], found)
        _split_features(node["right"], found)
    return found


def test_all_thirty_columns_give_the_example_studys_numbers(
    study_dir: Path, study_doc: dict[str, Any]
) -> None:
    buffer = io.StringIO()
    _wide(study_dir).to_csv(buffer, index=False)
    buffer.seek(0)
    wide = analyze(load_ratings(buffer))
    for section in ("weights", "tree", "thresholds", "sos_hypothesis", "subject_model"):
        assert wide[section] == study_doc[section], section
    assert wide["reliability"] == study_doc["reliability"]
    assert wide["meta"]["factors"] == study_doc["meta"]["factors"]
    assert wide["meta"]["network_factors"] == list(NETWORK_FACTORS)
    constant = wide["meta"]["constant_factors"]
    assert len(constant) == 26 and constant["ds_ge_r_pct"] == 100.0
    assert constant["us_jitter_distribution"] == "normal"
    assert set(wide["meta"]["factor_info"]) == set(FACTOR_COLUMNS)
    for narrow, full in zip(study_doc["conditions"], wide["conditions"], strict=True):
        assert {k: full[k] for k in narrow} == narrow
        assert full["ds_jitter_ms"] == 0.0 and full["us_ge_r_pct"] == 100.0


def test_the_four_column_table_reports_its_factors(study_doc: dict[str, Any]) -> None:
    meta = study_doc["meta"]
    assert meta["network_factors"] == list(NETWORK_FACTORS)
    assert meta["constant_factors"] == {}
    assert meta["factor_info"]["us_loss_pct"] == {
        "direction": "upstream",
        "key": "loss_pct",
        "label": "Loss",
        "unit": "%",
        "kind": "numeric",
    }
    assert study_doc["notes"] == {}
    assert all(set(NETWORK_FACTORS) <= set(c) for c in study_doc["conditions"])


def _table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows)


def _row(scenario: str, rating: int, **factors: Any) -> dict[str, Any]:
    return {
        "rater_id": "r1",
        "session_id": "s1",
        "game": "racing",
        "game_pace": "fast",
        "scenario": scenario,
        **factors,
        "rating": rating,
    }


def test_validation_accepts_any_subset_of_factor_columns() -> None:
    table = validate_ratings(_table([_row("B", 5, ds_jitter_ms=0), _row("J", 3, ds_jitter_ms=40)]))
    assert table["ds_jitter_ms"].dtype == "float64"


def test_validation_names_the_registry_when_no_factor_column() -> None:
    with pytest.raises(RatingsValidationError, match="factor registry"):
        validate_ratings(_table([_row("B", 5, delay=0)]))


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("us_jitter_ms", -1, r"-1 ms is outside the registry.s range \[0, "),
        ("ds_ge_p_pct", 150, r"\[0, 100\] %"),
        ("ds_rate_kbit", float("inf"), "inf is not a finite number"),
        ("ds_jitter_distribution", "gaussian", "normal, pareto, paretonormal"),
    ],
)
def test_validation_checks_the_registry_limits(column: str, value: Any, message: str) -> None:
    good = {"ds_jitter_distribution": "normal"} if column != "ds_jitter_distribution" else {}
    rows = [_row("B", 5, **good, **{column: value})]
    with pytest.raises(RatingsValidationError, match=message) as info:
        validate_ratings(_table(rows))
    assert info.value.column == column


def test_each_scenario_has_one_value_of_every_factor() -> None:
    rows = [_row("J", 4, ds_jitter_ms=10), {**_row("J", 3, ds_jitter_ms=20), "session_id": "s2"}]
    with pytest.raises(RatingsValidationError, match="one ds_jitter_ms"):
        validate_ratings(_table(rows))


def test_a_jitter_only_group_comes_from_the_data() -> None:
    levels = {"B": 0.0, "J1": 10.0, "J2": 30.0, "D1": 0.0}
    rows = [
        _row(s, 5, ds_jitter_ms=j, us_jitter_ms=j, ds_delay_ms=100.0 if s == "D1" else 0.0)
        for s, j in levels.items()
    ]
    groups = scenario_groups(validate_ratings(_table(rows)))
    assert set(groups) == {"jitter_only"}
    assert groups["jitter_only"].levels == {"B": 0.0, "J1": 10.0, "J2": 30.0}


def test_cli_on_a_grid_with_jitter_and_burst_loss(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyze", str(GRID)]) == 0
    doc = json.loads(capsys.readouterr().out)
    meta = doc["meta"]
    varying = meta["network_factors"]
    # delay and jitter are set the same both ways in every rating: one factor each (issue 31)
    assert varying == [
        "both_delay_ms",
        "both_jitter_ms",
        "us_loss_pct",
        "ds_ge_p_pct",
        "ds_ge_r_pct",
    ]
    assert meta["merged_factors"]["both_jitter_ms"] == ["ds_jitter_ms", "us_jitter_ms"]
    assert meta["factor_info"]["both_jitter_ms"]["direction"] == "both"
    # constant factors are reported with their value, not analysed
    assert meta["constant_factors"]["ds_ge_loss_bad_pct"] == 100.0
    assert "ds_ge_loss_bad_pct" not in doc["weights"]["weka"]
    for method in ("weka", "rapidminer"):
        assert set(varying) <= set(doc["weights"][method])
    weka = doc["weights"]["weka"]
    assert "ds_jitter_ms" not in weka and "us_jitter_ms" not in weka
    assert weka["both_jitter_ms"] > 0 and weka["ds_ge_p_pct"] > 0
    features = _split_features(doc["tree"]["root"], set())
    assert features <= {*varying, "game_pace", "game"}
    assert features & {"both_jitter_ms", "ds_ge_p_pct", "ds_ge_r_pct"}
    # thresholds for every KPI factor that varies: a merged one under "both" only
    fast = doc["thresholds"]["by_pace"]["fast"]
    assert set(fast.get("downstream", {})) == set()
    assert set(fast["upstream"]) == {"max_loss_pct"}
    assert set(fast["both"]) >= {"max_delay_ms", "max_jitter_ms"}
    assert fast["both"]["max_jitter_ms"]["tested_levels"] == [0.0, 30.0]
    assert {"jitter_distribution", "ge_p_pct"} & {
        info["key"] for c, info in meta["factor_info"].items() if c in varying
    } == {"ge_p_pct"}
    assert all("ds_jitter_ms" in c and "ds_ge_p_pct" in c for c in doc["conditions"])


def test_a_varying_nominal_factor_is_analysed_but_not_a_threshold() -> None:
    table = pd.read_csv(GRID)
    table.loc[table["scenario"].str.contains("J1"), "ds_jitter_distribution"] = "pareto"
    doc = analyze(table)
    assert "ds_jitter_distribution" in doc["meta"]["network_factors"]
    assert doc["meta"]["factor_info"]["ds_jitter_distribution"]["kind"] == "nominal"
    assert doc["weights"]["weka"]["ds_jitter_distribution"] >= 0
    # other factors are held at their baseline: the neutral choice, r = 100 % (no burst)
    assert doc["thresholds"]["baseline"]["ds_jitter_distribution"] == "normal"
    assert doc["thresholds"]["baseline"]["ds_ge_r_pct"] == 100.0
    assert "baseline level" in doc["thresholds"]["criterion"]
    assert {c["ds_jitter_distribution"] for c in doc["conditions"]} == {"normal", "pareto"}
