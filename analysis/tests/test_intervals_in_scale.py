"""No MOS interval of the analysis document leaves the scale unflagged (issue 31, item 3).

Every interval (conditions, mos_by_factor, per_item conditions, the subject model's
quality) is checked against the same interval computed without bounds: "ok" intervals are
those numbers exactly and lie on the scale, "clipped" ones are them cut at the scale's
ends, "n_too_small" ones have no bounds and fewer than two ratings.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from qoe_analysis import analyze, load_ratings
from qoe_analysis.scales import parse_sidecar
from qoe_analysis.stats.factor_mos import mos_by_factor
from qoe_analysis.synthetic import generate_study
from scipy import stats

DATA = Path(__file__).resolve().parents[2] / "fixtures" / "data"
Z95 = 1.95996


def _check(row: dict[str, Any], raw: tuple[float | None, float | None], bounds: Any) -> str:
    """Assert the rule for one interval against its unbounded ``raw`` ends; its status."""
    low, high, status = row["ci95_low"], row["ci95_high"], row["ci95_status"]
    lo, hi = bounds
    if status in ("n_too_small", "not_fitted"):
        assert low is None and high is None
        assert status == "not_fitted" or row["n"] < 2
        return str(status)
    assert row["n"] >= 2 and raw[0] is not None and raw[1] is not None
    assert lo <= low <= high <= hi
    if status == "ok":
        assert (low, high) == pytest.approx(raw, rel=1e-12, abs=1e-12)
    else:  # each end clipped into [L, H] (an estimate off the scale gets [L, L] or [H, H])
        assert status == "clipped" and not (lo <= raw[0] <= hi and lo <= raw[1] <= hi)
        ends = tuple(min(max(end, lo), hi) for end in raw)
        assert (low, high) == pytest.approx(ends, abs=1e-12)
    return str(status)


def _t_raw(row: dict[str, Any]) -> tuple[float | None, float | None]:
    if row["n"] < 2 or row["sos"] is None:
        return None, None
    half = stats.t.ppf(0.975, row["n"] - 1) * row["sos"] / math.sqrt(row["n"])
    return row["mos"] - half, row["mos"] + half


def _quality_raw(row: dict[str, Any]) -> tuple[float | None, float | None]:
    if row["quality"] is None:
        return None, None
    return row["quality"] - Z95 * row["quality_se"], row["quality"] + Z95 * row["quality_se"]


def _factor_points(section: dict[str, Any]) -> dict[tuple[Any, ...], dict[str, Any]]:
    points = {
        (s["factor"], s["game"], s["hold"], p["level"]): p
        for s in section["single"]
        for p in s["points"]
    }
    cells = {
        (*g["factors"], g["game"], g["hold"], c["a"], c["b"]): c
        for g in section["pairs"]
        for c in g["cells"]
    }
    return points | cells


def check_document(doc: dict[str, Any]) -> Counter[str]:
    """Check every interval of an analysis document; the count of each status."""
    counts: Counter[str] = Counter()
    scale = doc["per_item"][doc["meta"]["primary_item"]]["scale"]
    bounds = (scale["min"], scale["max"])
    for row in doc["conditions"]:
        counts[_check(row, _t_raw(row), bounds)] += 1
    for entry in doc["per_item"].values():
        item_bounds = (entry["scale"]["min"], entry["scale"]["max"])
        for row in entry["mos"]:
            counts[_check(row, _t_raw(row), item_bounds)] += 1
        for row in entry["subject_model"]["conditions"]:
            counts[_check(row, _quality_raw(row), item_bounds)] += 1
    for row in doc["subject_model"]["conditions"]:
        counts[_check(row, _quality_raw(row), bounds)] += 1
    section = doc["mos_by_factor"]
    factors = list(dict.fromkeys(s["factor"] for s in section["single"]))
    free = _factor_points(dict(mos_by_factor(pd.DataFrame(doc["conditions"]), factors)))
    for key, point in _factor_points(section).items():
        raw = (free[key]["ci95_low"], free[key]["ci95_high"])
        counts[_check(point, raw, bounds)] += 1
    return counts


def test_a_small_study_clips_and_flags() -> None:
    """Two participants, four sessions: 2 ratings per condition and game; t(0.975, 1) =
    12.7 sends most intervals past 1..5."""
    ratings, _ = generate_study(participants=2, sessions=4, seed=1)
    counts = check_document(analyze(ratings))
    assert counts["clipped"] > 0 and counts["ok"] > 0


@pytest.mark.parametrize("name", ["scale_0_6", "p809_random"])
def test_the_0_6_fixtures_stay_on_their_scale(name: str) -> None:
    """The 0-6 fixture and the randomised P.809-like one (fixtures/data/README.md), whose
    subject-model qualities partly lie off the scale."""
    sidecar = parse_sidecar(json.loads((DATA / f"{name}.items.json").read_text()))
    ratings = load_ratings(DATA / f"{name}.csv", sidecar=sidecar)
    doc = analyze(ratings, sidecar=sidecar)
    counts = check_document(doc)
    assert counts["ok"] > 0
    assert doc["per_item"][doc["meta"]["primary_item"]]["scale"]["max"] == 6


def test_the_example_study_is_unchanged(study_doc: dict[str, Any]) -> None:
    """Nothing of the example study lies beyond 1..5: every interval is the unclipped one;
    only untested mos_by_factor cells (n = 0) have none."""
    counts = check_document(study_doc)
    assert set(counts) == {"ok", "n_too_small"}
    section = study_doc["mos_by_factor"]
    empty = [p for p in _factor_points(section).values() if p["ci95_status"] == "n_too_small"]
    assert {p["n"] for p in empty} == {0}
    assert all(r["ci95_status"] == "ok" for r in study_doc["conditions"])
