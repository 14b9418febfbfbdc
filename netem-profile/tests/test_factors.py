"""The factor registry: tidy columns, and flatten/unflatten as inverses over the agent's profile."""

from __future__ import annotations

import pytest
from netem_profile import (
    FACTORS,
    catalog,
    factor_columns,
    flatten_direction,
    parse_column,
    parse_profile,
    tidy_column,
    unflatten_direction,
)


def test_columns_carry_direction_and_unit() -> None:
    columns = factor_columns()
    assert columns[:4] == ("ds_delay_ms", "us_delay_ms", "ds_jitter_ms", "us_jitter_ms")
    assert "ds_ge_p_pct" in columns and "us_rate_kbit" in columns
    assert len(columns) == 2 * len(FACTORS) == len(set(columns))
    assert "ds_queue_limit_packets" not in columns


def test_parse_column_round_trips() -> None:
    for column in factor_columns():
        parsed = parse_column(column)
        assert parsed is not None
        direction, factor = parsed
        assert tidy_column(direction, factor.key) == column
    assert parse_column("age") is None
    assert parse_column("ds_bogus") is None
    with pytest.raises(KeyError):
        tidy_column("downstream", "bogus")


def test_flatten_fills_neutral_values() -> None:
    flat = flatten_direction({"delay_ms": 80})
    assert flat["delay_ms"] == 80.0
    assert flat["jitter_ms"] == 0.0
    assert flat["jitter_distribution"] == "normal"
    # No burst model: the chain never enters the bad state.
    assert (flat["ge_p_pct"], flat["ge_r_pct"]) == (0.0, 100.0)
    assert flatten_direction(None)["loss_pct"] == 0.0


def test_unflatten_inverts_flatten_and_passes_the_validator() -> None:
    profile = {
        "delay_ms": 100.0,
        "jitter_ms": 10.0,
        "jitter_distribution": "pareto",
        "gilbert_elliott": {
            "p_pct": 5.0,
            "r_pct": 50.0,
            "loss_bad_pct": 80.0,
            "loss_good_pct": 0.0,
        },
        "rate_kbit": 20000,
    }
    back = unflatten_direction(flatten_direction(profile))
    assert back == profile
    parse_profile({"upstream": {}, "downstream": back})  # the agent's limits accept it
    assert unflatten_direction(flatten_direction({})) == {}


def test_catalog_is_json_ready_with_limits() -> None:
    by_key = {entry["key"]: entry for entry in catalog()}
    assert by_key["loss_pct"]["maximum"] == 100.0
    assert by_key["delay_ms"]["kpi"] == "max_delay_ms"
    assert by_key["jitter_distribution"]["choices"] == ["normal", "pareto", "paretonormal"]
    assert by_key["ge_r_pct"]["columns"] == {"downstream": "ds_ge_r_pct", "upstream": "us_ge_r_pct"}
