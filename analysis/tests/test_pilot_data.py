"""Pilot data never crashes the analysis: what cannot be computed is None plus a plain-words
note; reliability distinguishes "not assessable" from "unreliable"."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from qoe_analysis import analyze
from qoe_analysis.cli import main
from qoe_analysis.report import NoReliableRatersError


@pytest.fixture(scope="module")
def raw(study_dir: Path) -> pd.DataFrame:
    table = pd.read_csv(study_dir / "ratings.csv", dtype={"rater_id": str, "session_id": str})
    return table


def _sessions(raw: pd.DataFrame) -> pd.DataFrame:
    return raw.drop_duplicates(["rater_id", "session_id"])[["rater_id", "session_id", "game"]]


def _analyse(table: pd.DataFrame, **kwargs: Any) -> dict[str, Any]:
    doc = analyze(table.reset_index(drop=True), **kwargs)
    json.dumps(doc, allow_nan=False)
    return doc


def test_one_session(raw: pd.DataFrame) -> None:
    first = _sessions(raw).iloc[:1][["rater_id", "session_id"]]
    doc = _analyse(raw.merge(first))
    notes = doc["notes"]
    assert notes["reliability.inter"] == "needs >= 2 raters per game (there is one rater so far)"
    assert "sos_hypothesis" in notes and doc["sos_hypothesis"]["a"] is None
    inter = doc["reliability"]["inter"]
    assert all(i["quantiles"] is None and i["mean"] is None for i in inter)
    assert doc["meta"]["n_sessions"] == 1


def test_one_rater_per_game(raw: pd.DataFrame) -> None:
    keys = _sessions(raw).drop_duplicates("game")[["rater_id", "session_id"]]
    doc = _analyse(raw.merge(keys))
    assert doc["notes"]["reliability.inter"].startswith("needs >= 2 raters per game; only one")
    assert len(doc["meta"]["games"]) == 3
    assert all(c["ci95_low"] is None for c in doc["conditions"] if c["game"] != "all")


def test_a_game_with_no_ratings_is_no_level(raw: pd.DataFrame) -> None:
    table = raw.copy()
    table["game"] = pd.Categorical(table["game"], categories=["racing", "rpg", "soccer", "chess"])
    doc = _analyse(table)
    assert set(doc["meta"]["games"]) == {"racing", "rpg", "soccer"}
    assert "chess" not in {c["game"] for c in doc["conditions"]}


def test_a_factor_with_one_level_is_constant(raw: pd.DataFrame) -> None:
    delay_only = raw[raw["scenario"].isin(["B", "D1", "D2", "D3"])]
    doc = _analyse(delay_only)
    assert doc["meta"]["constant_factors"] == {"ds_loss_pct": 0.0, "us_loss_pct": 0.0}
    # delay set the same both ways in every rating: one factor (issue 31)
    assert doc["meta"]["network_factors"] == ["both_delay_ms"]
    assert doc["meta"]["merged_factors"] == {"both_delay_ms": ["ds_delay_ms", "us_delay_ms"]}
    assert "ds_loss_pct" not in doc["weights"]["weka"]
    assert set(doc["thresholds"]["by_pace"]["fast"]["both"]) == {"max_delay_ms"}
    assert list(doc["reliability"]["scenario_groups"]) == ["delay_only"]


def test_one_scenario_one_rating(raw: pd.DataFrame) -> None:
    doc = _analyse(raw.iloc[:1])
    notes = doc["notes"]
    assert {"reliability.intra", "weights", "tree", "thresholds", "subject_model"} <= set(notes)
    assert doc["thresholds"]["by_pace"] == {}
    assert doc["reliability"]["intra"][0]["status"] == "not_assessable"


def _randomised(raw: pd.DataFrame) -> pd.DataFrame:
    """Every scenario a distinct mix of all four factors: no one-factor-at-a-time group."""
    table = raw.copy()
    codes = {s: k for k, s in enumerate(sorted(table["scenario"].unique()))}
    k = table["scenario"].map(codes).astype(float)
    table["ds_delay_ms"] = 20 + 30 * k
    table["us_delay_ms"] = 15 + 25 * ((k * 7) % 10)
    table["ds_loss_pct"] = 0.1 + 0.2 * ((k * 3) % 10)
    table["us_loss_pct"] = 0.05 + 0.1 * k
    return table


def test_randomised_design_makes_raters_not_assessable(raw: pd.DataFrame) -> None:
    doc = _analyse(_randomised(raw))
    intra = doc["reliability"]["intra"]
    assert {r["status"] for r in intra} == {"not_assessable"}
    assert all("no varying scenario group" in r["reason"] for r in intra)
    assert doc["reliability"]["reliable_raters"] == []
    assert "one-factor-at-a-time" in doc["notes"]["reliability.intra"]
    with pytest.raises(NoReliableRatersError, match="no rater can be assessed"):
        analyze(_randomised(raw), reliable_only=True)


def test_cli_reliable_only_says_why(
    raw: pd.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "randomised.csv"
    _randomised(raw).to_csv(path, index=False)
    assert main(["analyze", str(path), "--reliable-only"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("qoe-analysis: --reliable-only: ")
    assert "not assessable" in err and "one-factor-at-a-time" in err


def test_all_unreliable_is_not_the_same_as_not_assessable() -> None:
    rows = []
    # four ratings over four levels count; six such sessions give the rule the evidence
    # to judge (a random rater would pass with p <= 0.01)
    for rater, ratings in (("a", (3, 5, 4, 4)), ("b", (4, 5, 3, 5))):
        for session, ((scenario, delay), rating) in itertools.product(
            range(6),
            zip((("B", 0.0), ("D1", 80.0), ("D2", 200.0), ("D3", 300.0)), ratings, strict=True),
        ):
            rows.append(
                {
                    "rater_id": rater,
                    "session_id": str(session),
                    "game": "racing",
                    "game_pace": "fast",
                    "scenario": scenario,
                    "ds_delay_ms": delay,
                    "us_delay_ms": delay,
                    "rating": rating,
                }
            )
    table = pd.DataFrame(rows)
    doc = _analyse(table)
    assert [r["status"] for r in doc["reliability"]["intra"]] == ["unreliable", "unreliable"]
    with pytest.raises(NoReliableRatersError, match="2 unreliable, 0 not assessable"):
        analyze(table, reliable_only=True)


def test_cli_writes_tables_and_plots_for_one_session(
    raw: pd.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _sessions(raw).iloc[:1][["rater_id", "session_id"]]
    path = tmp_path / "pilot.csv"
    raw.merge(first).to_csv(path, index=False)
    assert main(["analyze", str(path), "--out", str(tmp_path / "out")]) == 0
    assert json.loads(capsys.readouterr().out)["meta"]["n_sessions"] == 1
    assert (tmp_path / "out" / "thresholds.csv").exists()


def test_agent_provenance_columns_are_counted_never_analysed(raw: pd.DataFrame) -> None:
    """Issue 13: the export's agent_backend/agent_version are accepted (empty = unknown),
    counted per backend in meta and notes, and never become a factor of weights or tree."""
    table = raw.copy()
    dry = table["rater_id"] == table["rater_id"].iloc[0]
    table["agent_backend"] = ["dry-run" if d else "netlink" for d in dry]
    table["agent_version"] = ["" if d else "0.1.0" for d in dry]
    doc = _analyse(table)
    n_dry = int(dry.sum())
    assert doc["meta"]["agent_backends"] == {"dry-run": n_dry, "netlink": len(table) - n_dry}
    assert doc["meta"]["n_ratings_dry_run"] == n_dry
    assert doc["notes"]["provenance"].startswith(f"{n_dry} of {len(table)} ratings")
    assert not {"agent_backend", "agent_version"} & set(doc["meta"]["factors"])
    plain = _analyse(raw)
    assert plain["meta"]["agent_backends"] is None and "provenance" not in plain["notes"]
    assert plain["weights"] == doc["weights"]
