"""Per-item analysis of a gaming-preset study: per_item, acceptance target, training rows,
item correlations."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis import analyze
from qoe_analysis.scales import parse_sidecar
from qoe_analysis.stats.conditions import mos_confidence_interval
from qoe_analysis.synthetic_items import gaming_sidecar, generate_item_study
from scipy import stats

KEYS = ["overall", "input_quality", "video_quality", "acceptance"]


@pytest.fixture(scope="module")
def study() -> pd.DataFrame:
    return generate_item_study(12, 12, seed=3, fast_raters=["P02"])


@pytest.fixture(scope="module")
def doc(study: pd.DataFrame) -> dict[str, Any]:
    return analyze(study, sidecar=parse_sidecar(gaming_sidecar()))


def test_every_item_has_its_results_on_its_scale(study: pd.DataFrame, doc: dict[str, Any]) -> None:
    assert [i["key"] for i in doc["items"]] == KEYS
    assert [i["n"] for i in doc["items"]] == [120] * 4
    assert list(doc["per_item"]) == KEYS
    for key in KEYS:
        entry = doc["per_item"][key]
        ratings = study[study["item"] == key]
        for row in entry["mos"]:
            if row["game"] != "all":
                continue
            values = ratings.loc[ratings["scenario"] == row["scenario"], "rating"].to_numpy()
            bounds = (entry["scale"]["min"], entry["scale"]["max"])
            mos, low, high = mos_confidence_interval(values, bounds=bounds)
            assert (row["mos"], row["ci95_low"], row["ci95_high"]) == pytest.approx(
                (mos, low, high)
            ), (key, row["scenario"])
        assert set(entry) == {
            "scale",
            "n",
            "n_raters",
            "mos",
            "sos",
            "gob_pow",
            "reliability",
            "subject_model",
        }
        assert entry["subject_model"]["conditions"] and entry["reliability"]["inter"] is not None
    assert doc["per_item"]["input_quality"]["sos"]["bounds"] == [1, 7]
    assert doc["per_item"]["input_quality"]["sos"]["formula"].endswith("8*MOS - 7)")
    assert doc["per_item"]["acceptance"]["sos"]["bounds"] == [0, 1]
    # on the binary item GoB is the share of "yes" (>= 0.75), PoW the share of "no"
    accepted = float((study.loc[study["item"] == "acceptance", "rating"] == 1).mean())
    gob_pow = doc["per_item"]["acceptance"]["gob_pow"]
    assert gob_pow["gob_pct"] == pytest.approx(100 * accepted)
    assert gob_pow["pow_pct"] == pytest.approx(100 * (1 - accepted))
    # the top level stays the primary item's (overall, ACR-5)
    assert doc["meta"]["primary_item"] == "overall"
    for top, item in zip(doc["conditions"], doc["per_item"]["overall"]["mos"], strict=True):
        assert {k: top[k] for k in item} == item  # plus the network columns
    assert doc["sos_hypothesis"]["a"] == doc["per_item"]["overall"]["sos"]["a"]
    assert doc["meta"]["n_ratings"] == 120


def test_the_binary_acceptance_item_and_the_equivalent_cut_give_the_same_model(
    study: pd.DataFrame, doc: dict[str, Any]
) -> None:
    # the synthetic acceptance item is 1 iff overall >= 3: the same target
    cut = gaming_sidecar()
    cut["acceptance"] = {"item": "overall", "min": 3}
    by_cut = analyze(study, sidecar=parse_sidecar(cut))
    assert doc["weights"]["target"] == "acceptable = acceptance == 1"
    assert by_cut["weights"]["target"] == "acceptable = rating >= 3"
    assert doc["thresholds"]["criterion"].startswith("P(acceptance == 1) >= 0.5")
    for section in ("tree", "thresholds"):
        a, b = copy.deepcopy(doc[section]), copy.deepcopy(by_cut[section])
        for d in (a, b):
            d.pop("criterion", None), d.pop("rule", None), d.pop("acceptable_from", None)
        assert a == b, section
    for method in ("weka", "rapidminer"):
        assert doc["weights"][method] == by_cut["weights"][method]
    # a different target changes the model: acceptance from video quality >= 6
    video = gaming_sidecar()
    video["acceptance"] = {"item": "video_quality", "min": 6}
    by_video = analyze(study, sidecar=parse_sidecar(video))
    assert by_video["weights"]["target"] == "acceptable = video_quality >= 6"
    assert by_video["weights"]["weka"] != doc["weights"]["weka"]
    assert by_video["conditions"] == doc["conditions"]  # still the primary item's


def _with_training(study: pd.DataFrame) -> pd.DataFrame:
    """Extreme training ratings (the opposite end of every scale) on two anchors per session."""
    slots = study[study["scenario"].isin(["B", "M2"])].copy()
    extremes = {"overall": (1, 5), "input_quality": (1.0, 7.0), "video_quality": (1.0, 7.0)}
    extremes["acceptance"] = (0, 1)
    for key, (low, high) in extremes.items():
        rows = slots["item"] == key
        baseline = slots["scenario"] == "B"
        slots.loc[rows & baseline, "rating"] = low  # the baseline rated worst
        slots.loc[rows & ~baseline, "rating"] = high  # the worst scenario rated best
    slots["training"] = 1
    slots["response_ms"] = 50.0  # and implausibly fast
    return pd.concat([slots, study], ignore_index=True)


def test_training_ratings_change_nothing(study: pd.DataFrame, doc: dict[str, Any]) -> None:
    trained = _with_training(study)
    n_training = int((trained["training"] == 1).sum())
    assert n_training == 4 * 2 * 12
    with_training = analyze(trained, sidecar=parse_sidecar(gaming_sidecar()))
    assert with_training["training"] == {"excluded_rows": n_training}
    assert doc["training"] == {"excluded_rows": 0}
    with_training["training"] = doc["training"]
    assert with_training == doc


def test_item_correlations_match_scipy(study: pd.DataFrame, doc: dict[str, Any]) -> None:
    section = doc["item_correlations"]
    pairs = {tuple(p["items"]): p for p in section["pairs"]}
    assert list(pairs) == [(a, b) for i, a in enumerate(KEYS) for b in KEYS[i + 1 :]]
    mos = study.groupby(["scenario", "item"])["rating"].mean().unstack()
    assert [row["scenario"] for row in section["mos"]] == sorted(mos.index)
    assert section["mos"][0]["mos"]["input_quality"] == pytest.approx(
        mos.loc[section["mos"][0]["scenario"], "input_quality"]
    )
    wide = study.pivot_table(
        index=["rater_id", "session_id", "scenario"], columns="item", values="rating"
    )
    for (a, b), pair in pairs.items():
        r, p = stats.pearsonr(mos[a], mos[b])
        assert pair["conditions"]["pearson"] == pytest.approx({"r": r, "p": p, "n": 10})
        rho, p = stats.spearmanr(mos[a], mos[b])
        assert pair["conditions"]["spearman"] == pytest.approx({"r": rho, "p": p, "n": 10})
        rho, p = stats.spearmanr(wide[a], wide[b])
        assert pair["ratings"]["spearman"] == pytest.approx({"r": rho, "p": p, "n": 120})
    assert pairs[("overall", "acceptance")]["ratings"]["spearman"]["r"] > 0.7


def test_response_times_and_fast_raters(study: pd.DataFrame, doc: dict[str, Any]) -> None:
    slots = study[study["item"] == "overall"]["response_ms"].to_numpy()
    summary = doc["response_times"]["video_quality"]
    assert summary["n"] == 120
    assert summary["median"] == pytest.approx(float(np.median(slots)))
    assert summary["p10"] == pytest.approx(float(np.percentile(slots, 10)))
    assert [r["rater_id"] for r in doc["fast_raters"]] == ["P02"]
    assert doc["fast_raters"][0]["share_fast"] == 1.0
    assert doc["meta"]["min_response_ms"] == 1000
