"""marginals: MOS with its 95 % CI per factor level or bin, per item and game, and over all
games (stats/marginals.py, marginal_report.py, the document's section)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis import analyze, load_ratings, validate_ratings
from qoe_analysis.marginal_report import table_marginals
from qoe_analysis.scales import default_scale, parse_sidecar
from qoe_analysis.stats import marginals as marginals_module
from qoe_analysis.stats.marginal_bins import factor_bins
from qoe_analysis.stats.marginals import marginals_section
from qoe_analysis.synthetic_items import gaming_sidecar, generate_item_study
from scipy import stats

DATA = Path(__file__).resolve().parents[2] / "fixtures" / "data"
ACR = default_scale("acr5")
DELAYS = ["ds_delay_ms", "us_delay_ms"]


def ratings(rows: list[tuple[str, str, float, float]], **extra: list[Any]) -> pd.DataFrame:
    """(rater, game, ds_delay_ms, rating) rows; ``extra`` columns beside them."""
    frame = pd.DataFrame(rows, columns=["rater_id", "game", "ds_delay_ms", "rating"])
    return frame.assign(**extra)


def section(
    table: pd.DataFrame, rater: list[str] | None = None, scale: dict[str, Any] = ACR
) -> Any:
    return marginals_section({"overall": table}, {"overall": scale}, ["ds_delay_ms"], rater or [])


def points(doc: Any, factor: str, game: str, item: str = "overall") -> list[dict[str, Any]]:
    (found,) = [
        s for s in doc["series"] if (s["item"], s["factor"], s["game"]) == (item, factor, game)
    ]
    return list(found["points"])


def test_a_point_by_hand() -> None:
    """Ratings 1, 3, 4, 4, 5 at 100 ms (docs/methods.md §2): MOS 3.4, SOS √2.3,
    CI 3.4 ± t(0.975, 4)·√2.3/√5 = 3.4 ± 1.883 = [1.517, 5.283], clipped to [1.517, 5];
    four raters."""
    rows = [("a", "g", 100, 1), ("b", "g", 100, 3), ("c", "g", 100, 4), ("c", "h", 100, 4)]
    table = ratings([*rows, ("d", "h", 100, 5), ("a", "g", 0, 5)])
    doc = section(table)
    at_100 = points(doc, "ds_delay_ms", "all")[1]
    assert (at_100["label"], at_100["level"], at_100["n"], at_100["n_raters"]) == ("100", 100, 5, 4)
    assert at_100["mos"] == pytest.approx(3.4, abs=1e-12)
    assert at_100["sos"] == pytest.approx(math.sqrt(2.3), abs=1e-12)
    assert at_100["ci95_low"] == pytest.approx(3.4 - 1.883, abs=5e-4)
    assert (at_100["ci95_high"], at_100["ci95_status"]) == (5.0, "clipped")
    # per game: g holds 1, 3, 4 (raters a, b, c), h holds 4, 5
    g, h = points(doc, "ds_delay_ms", "g")[1], points(doc, "ds_delay_ms", "h")[1]
    assert (g["n"], g["n_raters"], g["mos"]) == (3, 3, pytest.approx(8 / 3))
    assert (h["n"], h["n_raters"], h["mos"]) == (2, 2, 4.5)
    # one rating at 0 ms in g, none in h
    zero_g, zero_h = points(doc, "ds_delay_ms", "g")[0], points(doc, "ds_delay_ms", "h")[0]
    assert (zero_g["n"], zero_g["mos"], zero_g["sos"], zero_g["ci95_low"]) == (1, 5.0, None, None)
    assert zero_g["ci95_status"] == "n_too_small"
    assert (zero_h["n"], zero_h["n_raters"], zero_h["mos"]) == (0, 0, None)
    assert zero_h["ci95_status"] == "n_too_small"
    assert [s["game"] for s in doc["series"]] == ["g", "h", "all"]


def test_the_interval_is_scipys_t_interval() -> None:
    values = [2, 3, 3, 4, 2, 3]
    doc = section(ratings([(f"r{i}", "g", 50, v) for i, v in enumerate(values)]))
    (point,) = points(doc, "ds_delay_ms", "all")
    low, high = stats.t.interval(
        0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values)
    )
    assert (point["ci95_low"], point["ci95_high"]) == (pytest.approx(low), pytest.approx(high))


def test_an_interval_beyond_the_scale_is_clipped() -> None:
    """1, 2 on 1–5: 1.5 ± 6.353 -> [1, 5], "clipped" (docs/methods.md §2b)."""
    (point,) = points(section(ratings([("a", "g", 0, 1), ("b", "g", 0, 2)])), "ds_delay_ms", "g")
    assert (point["ci95_low"], point["ci95_high"], point["ci95_status"]) == (1.0, 5.0, "clipped")


def test_missing_values_are_counted_not_pooled() -> None:
    table = ratings(
        [("a", "g", 0, 4), ("b", "g", 0, 2), ("c", "h", 0, 3), ("d", "h", 0, 5)],
        age=[30.0, np.nan, np.nan, 41.0],
        skill=["high", "low", None, "high"],
    )
    doc = section(table, ["age", "skill"])
    by = {(s["factor"], s["game"]): s for s in doc["series"]}
    assert [by[("age", g)]["n_missing"] for g in ("g", "h", "all")] == [1, 1, 2]
    assert [by[("skill", g)]["n_missing"] for g in ("g", "h", "all")] == [0, 1, 1]
    assert [(p["label"], p["n"], p["mos"]) for p in by[("skill", "all")]["points"]] == [
        ("high", 2, 4.5),
        ("low", 1, 2.0),
    ]
    assert sum(p["n"] for p in by[("age", "all")]["points"]) == 2


def test_a_rater_column_with_one_value_gets_a_note() -> None:
    table = ratings([("a", "g", 0, 4), ("b", "g", 10, 2)], lab=["x", "x"], age=[np.nan, np.nan])
    doc = section(table, ["lab", "age"])
    assert set(doc["notes"]) == {"lab", "age"}
    assert [f["factor"] for f in doc["factors"]] == ["ds_delay_ms"]
    assert {s["factor"] for s in doc["series"]} == {"ds_delay_ms"}


def pooled_by_pandas(table: pd.DataFrame, codes: np.ndarray, game: str | None) -> pd.DataFrame:
    frame = table.assign(point=codes)
    frame = frame[frame["point"] >= 0]
    if game is not None:
        frame = frame[frame["game"] == game]
    return frame.groupby("point").agg(
        n=("rating", "size"),
        mos=("rating", "mean"),
        sos=("rating", "std"),
        raters=("rater_id", "nunique"),
    )


@pytest.mark.parametrize(("bitmap", "continuous"), [(True, False), (False, True)])
def test_every_point_equals_the_ratings_pooled_directly(
    bitmap: bool, continuous: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random ratings, a delay with many values (binned) and some raters' age missing;
    both ways of counting raters (the bitmap and the sorted keys) and of pooling (the
    histograms of a discrete scale and the ratings of a continuous one)."""
    if not bitmap:
        monkeypatch.setattr(marginals_module, "_BITMAP_LIMIT", 0)
    rng = np.random.default_rng(7)
    n = 600
    scale = default_scale("continuous") if continuous else ACR
    rating = np.round(rng.uniform(1, 7, n), 1) if continuous else rng.integers(1, 6, n)
    raters = rng.integers(0, 40, n)
    age = np.where(raters % 7 == 0, np.nan, 18 + raters % 23).astype(np.float64)
    table = pd.DataFrame(
        {
            "rater_id": [f"r{r}" for r in raters],
            "game": rng.choice(["chess", "racing", "golf"], n),
            "ds_delay_ms": rng.integers(0, 300, n).astype(np.float64),
            "rating": rating.astype(np.float64),
            "age": age,
        }
    )
    doc = section(table, ["age"], scale)
    for factor in ("ds_delay_ms", "age"):
        bins = factor_bins([table[factor]], numeric=True)
        assert bins.binning == "quantiles"
        codes = bins.codes(table[factor])
        for game in ("chess", "golf", "racing", "all"):
            expected = pooled_by_pandas(table, codes, None if game == "all" else game)
            got = points(doc, factor, game)
            for k, point in enumerate(got):
                assert point["n"] == expected["n"].get(k, 0)
                if point["n"] == 0:
                    continue
                assert point["n_raters"] == expected["raters"][k]
                assert point["mos"] == pytest.approx(expected["mos"][k], rel=1e-12)
                if point["n"] > 1:
                    assert point["sos"] == pytest.approx(expected["sos"][k], rel=1e-9)


def test_the_document_carries_the_section(study: pd.DataFrame, study_doc: dict[str, Any]) -> None:
    doc = study_doc["marginals"]
    assert doc == table_marginals(study)
    json.dumps(doc, allow_nan=False)
    assert doc["raters"] == "all"
    factors = {f["factor"]: f for f in doc["factors"]}
    assert list(factors) == [*study_doc["meta"]["network_factors"], "age", "skill", "attitude"]
    assert factors["ds_delay_ms"]["label"] == "Delay, downstream"
    assert factors["ds_delay_ms"]["unit"] == "ms" and factors["ds_delay_ms"]["binning"] == "levels"
    assert (factors["age"]["source"], factors["age"]["binning"]) == ("rater", "quantiles")
    # the tested levels are the conditions' levels; each series covers every rating
    levels = sorted({c["ds_delay_ms"] for c in study_doc["conditions"]})
    for s in doc["series"]:
        assert sum(p["n"] for p in s["points"]) + s["n_missing"] == (
            len(study) if s["game"] == "all" else int((study["game"] == s["game"]).sum())
        )
        if s["factor"] == "ds_delay_ms":
            assert [p["level"] for p in s["points"]] == levels


def test_reliable_only_pools_the_reliable_raters(study: pd.DataFrame) -> None:
    doc = analyze(study, reliable_only=True, reliability_cutoff=0.9)
    section = doc["marginals"]
    assert section["raters"] == "reliable"
    for s in section["series"]:
        if s["game"] == "all":
            assert sum(p["n"] for p in s["points"]) == doc["meta"]["n_ratings_analysed"]


def test_a_merged_factor_is_one_view() -> None:
    rows = [
        (f"r{i}", f"s{i}", "g", "fast", f"c{d}", d, d, 1 + (i + d) % 5)
        for i in range(4)
        for d in (0, 50, 100)
    ]
    table = pd.DataFrame(
        rows,
        columns=[*["rater_id", "session_id", "game", "game_pace", "scenario"], *DELAYS, "rating"],
    )
    doc = table_marginals(table)
    (factor,) = doc["factors"]
    assert (factor["factor"], factor["label"]) == ("both_delay_ms", "Delay, both directions")
    assert [p["level"] for p in points(doc, "both_delay_ms", "all")] == [0, 50, 100]


def test_every_item_on_its_own_scale() -> None:
    sidecar = parse_sidecar(gaming_sidecar())
    table = validate_ratings(generate_item_study(12, 12, seed=3), sidecar=sidecar)
    doc = table_marginals(table)
    items = [s["item"] for s in doc["series"]]
    assert list(dict.fromkeys(items)) == ["overall", "input_quality", "video_quality", "acceptance"]
    for s in doc["series"]:
        low, high = (0.0, 1.0) if s["item"] == "acceptance" else (1.0, 7.0)
        if s["item"] == "overall":
            low, high = 1.0, 5.0
        for p in s["points"]:
            if p["mos"] is not None:
                assert low <= p["mos"] <= high
            if p["ci95_low"] is not None:
                assert low <= p["ci95_low"] <= p["ci95_high"] <= high


def test_every_interval_is_the_t_interval_or_clipped(study_doc: dict[str, Any]) -> None:
    """docs/methods.md §2b on every point of the example and of a 0–6 study."""
    sidecar = parse_sidecar(json.loads((DATA / "scale_0_6.items.json").read_text()))
    docs = [
        (study_doc["marginals"], (1.0, 5.0)),
        (table_marginals(load_ratings(DATA / "scale_0_6.csv", sidecar=sidecar)), (0.0, 6.0)),
    ]
    seen = set()
    for doc, (lo, hi) in docs:
        for point in (p for s in doc["series"] for p in s["points"]):
            seen.add(point["ci95_status"])
            if point["n"] < 2:
                assert point["ci95_status"] == "n_too_small" and point["ci95_low"] is None
                continue
            half = stats.t.ppf(0.975, point["n"] - 1) * point["sos"] / math.sqrt(point["n"])
            raw = (point["mos"] - half, point["mos"] + half)
            ends = (max(raw[0], lo), min(raw[1], hi))
            assert (point["ci95_low"], point["ci95_high"]) == pytest.approx(ends, abs=1e-12)
            clipped = raw[0] < lo or raw[1] > hi
            assert point["ci95_status"] == ("clipped" if clipped else "ok")
    assert {"ok", "clipped"} <= seen
