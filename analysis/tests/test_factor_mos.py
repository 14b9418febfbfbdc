"""mos_by_factor: MOS per factor level pooled over conditions, with a Student-t CI."""

from __future__ import annotations

import json
import math
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis import load_ratings
from qoe_analysis.scales import parse_sidecar
from qoe_analysis.stats.conditions import ALL_GAMES, condition_table
from qoe_analysis.stats.factor_mos import MAX_LEVELS, baseline_scenario, mos_by_factor
from qoe_analysis.study_factors import factor_columns_in, varying_factor_columns
from scipy import stats

DATA = Path(__file__).resolve().parents[2] / "fixtures" / "data"


def conditions_of(table: pd.DataFrame, scale: dict[str, Any] | None = None) -> pd.DataFrame:
    """The condition table with each scenario's factor values, as the report joins them."""
    present = factor_columns_in(table.columns)
    network = table.drop_duplicates("scenario").set_index("scenario")[present]
    return condition_table(table, scale=scale).join(network, on="scenario")


def table(rows: list[tuple[str, str, float, float, int]]) -> pd.DataFrame:
    """(scenario, game, ds_delay_ms, ds_loss_pct, rating) rows as a tidy-like table."""
    return pd.DataFrame(
        rows, columns=["scenario", "game", "ds_delay_ms", "ds_loss_pct", "rating"]
    ).assign(game_pace="fast")


def series(doc: Any, factor: str, game: str, hold: str) -> list[dict[str, Any]]:
    (found,) = [
        s["points"]
        for s in doc["single"]
        if (s["factor"], s["game"], s["hold"]) == (factor, game, hold)
    ]
    return list(found)


def test_d2_of_the_0_6_fixture_by_hand() -> None:
    """fixtures/data/README.md: D2 = 3, 2, 3, 2, 1, 4 -> MOS 2.5,
    CI 2.5 +- t(0.975, 5) sqrt(1.1/6)."""
    sidecar = parse_sidecar(json.loads((DATA / "scale_0_6.items.json").read_text()))
    ratings = load_ratings(DATA / "scale_0_6.csv", sidecar=sidecar)
    scale = sidecar.item("quality")["scale"]
    doc = mos_by_factor(conditions_of(ratings, scale), varying_factor_columns(ratings))
    assert doc["baseline_scenario"] == "B"
    d2 = series(doc, "ds_delay_ms", ALL_GAMES, "averaged")[2]
    half = 2.5706 * math.sqrt(1.1 / 6)
    assert d2["level"] == 200.0 and d2["n"] == 6 and d2["scenarios"] == ["D2"]
    assert d2["mos"] == pytest.approx(2.5, abs=1e-12)
    assert d2["ci95_low"] == pytest.approx(2.5 - half, abs=1e-4)
    assert d2["ci95_high"] == pytest.approx(2.5 + half, abs=1e-4)
    # held at baseline, us_delay_ms moves with ds_delay_ms: only B is left
    assert [p["n"] for p in series(doc, "ds_delay_ms", ALL_GAMES, "baseline")] == [6, 0, 0, 0]


def test_empty_and_single_rating_points_have_no_ci() -> None:
    t = table([("B", "g", 0, 0, 4), ("D1", "g", 100, 0, 3), ("D1", "g", 100, 0, 5)])
    doc = mos_by_factor(conditions_of(t), ["ds_delay_ms"])
    b, d1 = series(doc, "ds_delay_ms", "g", "averaged")
    assert (b["n"], b["mos"], b["ci95_low"], b["ci95_high"]) == (1, 4.0, None, None)
    assert d1["n"] == 2 and d1["mos"] == 4.0
    assert d1["ci95_high"] == pytest.approx(
        4.0 + stats.t.ppf(0.975, 1) * math.sqrt(2) / math.sqrt(2)
    )
    grid = doc["pairs"]
    assert grid == []  # one varying factor: no pair


def test_pairs_are_a_major_and_untested_cells_empty() -> None:
    t = table(
        [
            ("B", "g", 0, 0, 5),
            ("D", "g", 100, 0, 4),
            ("L", "g", 0, 1, 3),
            ("B", "h", 0, 0, 4),
        ]
    )
    doc = mos_by_factor(conditions_of(t), ["ds_delay_ms", "ds_loss_pct"])
    grids = [(g["factors"], g["game"], g["hold"]) for g in doc["pairs"]]
    assert grids == [
        (["ds_delay_ms", "ds_loss_pct"], game, hold)
        for game in ("g", "h", ALL_GAMES)
        for hold in ("baseline", "averaged")
    ]
    cells = doc["pairs"][-1]["cells"]  # all games, averaged
    assert [(c["a"], c["b"], c["n"]) for c in cells] == [
        (0.0, 0.0, 2),
        (0.0, 1.0, 1),
        (100.0, 0.0, 1),
        (100.0, 1.0, 0),
    ]
    assert cells[3]["mos"] is None and cells[3]["scenarios"] == []
    assert cells[0]["scenarios"] == ["B"] and cells[0]["mos"] == 4.5


def test_baseline_without_b_is_the_scenario_most_at_lowest_levels() -> None:
    t = table(
        [("X", "g", 100, 1, 2), ("Y", "g", 0, 1, 3), ("Z", "g", 0, 0, 4), ("W", "g", 100, 0, 3)]
    )
    assert baseline_scenario(conditions_of(t), ["ds_delay_ms", "ds_loss_pct"]) == "Z"
    doc = mos_by_factor(conditions_of(t), ["ds_delay_ms", "ds_loss_pct"])
    held = series(doc, "ds_delay_ms", "g", "baseline")
    assert [(p["level"], p["scenarios"]) for p in held] == [(0.0, ["Z"]), (100.0, ["W"])]


def test_a_factor_with_too_many_levels_is_left_out_with_a_note() -> None:
    n = MAX_LEVELS + 1
    t = table([(f"S{i}", "g", float(i), float(i % 2), 3 + i % 2) for i in range(n)])
    doc = mos_by_factor(conditions_of(t), ["ds_delay_ms", "ds_loss_pct"])
    assert {s["factor"] for s in doc["single"]} == {"ds_loss_pct"}
    assert doc["pairs"] == []
    assert str(n) in doc["notes"]["ds_delay_ms"] and "ds_loss_pct" not in doc["notes"]


def _raw_pool(ratings: pd.Series) -> tuple[int, float | None, float | None, float | None]:
    """MOS and Student-t CI of ratings pooled directly (pandas/SciPy)."""
    n = len(ratings)
    if n == 0:
        return 0, None, None, None
    mos = float(ratings.mean())
    if n < 2:
        return n, mos, None, None
    half = stats.t.ppf(0.975, n - 1) * ratings.std(ddof=1) / math.sqrt(n)
    return n, mos, mos - half, mos + half


def test_agrees_with_pooling_the_raw_ratings(study: pd.DataFrame) -> None:
    factors = varying_factor_columns(study)
    doc = mos_by_factor(conditions_of(study), factors)
    base = study[study["scenario"] == doc["baseline_scenario"]].iloc[0]
    games = sorted(study["game"].astype(str).unique())
    checked = 0

    def held(frame: pd.DataFrame, free: tuple[str, ...], hold: str) -> pd.DataFrame:
        if hold == "averaged":
            return frame
        keep = np.ones(len(frame), bool)
        for f in factors:
            if f not in free:
                keep &= (frame[f] == base[f]).to_numpy()
        return frame[keep]

    def compare(point: dict[str, Any], rows: pd.DataFrame) -> None:
        n, mos, low, high = _raw_pool(rows["rating"].astype(float))
        assert point["n"] == n
        for got, want in zip(
            (point["mos"], point["ci95_low"], point["ci95_high"]), (mos, low, high), strict=True
        ):
            assert (got is None and want is None) or got == pytest.approx(want, rel=1e-9, abs=1e-12)
        assert point["scenarios"] == sorted(rows["scenario"].astype(str).unique())

    for game in [*games, ALL_GAMES]:
        rows = study if game == ALL_GAMES else study[study["game"].astype(str) == game]
        for hold in ("baseline", "averaged"):
            for f in factors:
                kept = held(rows, (f,), hold)
                for point in series(doc, f, game, hold):
                    compare(point, kept[kept[f] == point["level"]])
                    checked += 1
            for a, b in combinations(factors, 2):
                (grid,) = [
                    g
                    for g in doc["pairs"]
                    if (g["factors"], g["game"], g["hold"]) == ([a, b], game, hold)
                ]
                kept = held(rows, (a, b), hold)
                for cell in grid["cells"]:
                    compare(cell, kept[(kept[a] == cell["a"]) & (kept[b] == cell["b"])])
                    checked += 1
    assert checked > 100


def test_points_are_clipped_to_the_scale_and_flagged() -> None:
    """D1 pools 3 and 5 (n = 2): 4 +- t(0.975, 1) * sqrt(2) / sqrt(2) = 4 +- 12.706 runs
    past both ends of 1..5: clipped and flagged; B (n = 1) has none; L (n = 3: 3, 3, 4,
    MOS 10/3, SOS sqrt(1/3), half 4.3026527 * sqrt(1/3) / sqrt(3) = 1.4342) lies inside:
    unchanged."""
    t = table(
        [
            ("B", "g", 0, 0, 4),
            ("D1", "g", 100, 0, 3),
            ("D1", "g", 100, 0, 5),
            ("L", "g", 200, 0, 3),
            ("L", "g", 200, 0, 3),
            ("L", "g", 200, 0, 4),
        ]
    )
    free = mos_by_factor(conditions_of(t), ["ds_delay_ms"])
    doc = mos_by_factor(conditions_of(t), ["ds_delay_ms"], bounds=(1.0, 5.0))
    b, d1, lvl = series(doc, "ds_delay_ms", "g", "averaged")
    assert (b["ci95_low"], b["ci95_high"], b["ci95_status"]) == (None, None, "n_too_small")
    assert (d1["ci95_low"], d1["ci95_high"], d1["ci95_status"]) == (1.0, 5.0, "clipped")
    assert lvl["ci95_status"] == "ok"
    assert lvl["ci95_high"] == pytest.approx(10 / 3 + 4.3026527 / 3, abs=1e-6)
    raw = series(free, "ds_delay_ms", "g", "averaged")
    assert (lvl["ci95_low"], lvl["ci95_high"]) == (raw[2]["ci95_low"], raw[2]["ci95_high"])
    assert raw[1]["ci95_high"] == pytest.approx(4 + 12.7062047, abs=1e-6)
    assert raw[1]["ci95_status"] == "ok"  # no bounds: not clipped, nothing to flag
    # an untested level (held at the baseline) has no interval either
    held = series(doc, "ds_delay_ms", "g", "baseline")
    assert [(p["n"], p["ci95_status"]) for p in held] == [
        (1, "n_too_small"),
        (2, "clipped"),
        (3, "ok"),
    ]
