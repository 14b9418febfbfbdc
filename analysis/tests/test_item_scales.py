"""Declared scales on import: a 0..6 dataset, continuous items, item and value errors."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from qoe_analysis import analyze, load_ratings
from qoe_analysis.cli import main
from qoe_analysis.scales import GAMING_PRESET, parse_scale, parse_sidecar
from qoe_analysis.stats.conditions import condition_table
from qoe_analysis.synthetic_items import gaming_sidecar, generate_item_study
from qoe_analysis.tidy.validation import RatingsValidationError, validate_ratings

DATA = Path(__file__).resolve().parents[2] / "fixtures" / "data"
CSV_0_6 = DATA / "scale_0_6.csv"
SIDECAR_0_6 = DATA / "scale_0_6.items.json"
T_0975_5 = 2.570581835636314  # Student t quantile, 5 degrees of freedom (tables: 2.5706)


@pytest.fixture(scope="module")
def doc_0_6(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    sidecar = parse_sidecar(json.loads(SIDECAR_0_6.read_text(encoding="utf-8")))
    return analyze(load_ratings(CSV_0_6, sidecar=sidecar))


def test_a_0_6_dataset_imports_once_its_scale_is_declared(doc_0_6: dict[str, Any]) -> None:
    with pytest.raises(RatingsValidationError, match="rating 6 is not an integer on the ACR"):
        load_ratings(CSV_0_6)
    d2 = next(c for c in doc_0_6["conditions"] if (c["scenario"], c["game"]) == ("D2", "all"))
    # D2 ratings 3, 2, 3, 2, 1, 4: MOS 2.5, SOS^2 = (4 * 0.25 + 2 * 2.25) / 5 = 1.1,
    # CI = 2.5 -+ t(0.975, 5) * sqrt(1.1 / 6)
    half = T_0975_5 * math.sqrt(1.1 / 6)
    assert d2["mos"] == pytest.approx(2.5)
    assert d2["sos"] == pytest.approx(math.sqrt(1.1))
    assert (d2["ci95_low"], d2["ci95_high"]) == pytest.approx((2.5 - half, 2.5 + half))
    assert d2["distribution"] == {"0": 0, "1": 1, "2": 2, "3": 2, "4": 1, "5": 0, "6": 0}
    # GoB on 0..6: >= 4.5 (ratings 5, 6): none of six; PoW: <= 1.5 (ratings 0, 1): one
    assert (d2["gob_pct"], d2["pow_pct"]) == pytest.approx((0.0, 100.0 / 6))
    d3 = next(c for c in doc_0_6["conditions"] if (c["scenario"], c["game"]) == ("D3", "all"))
    assert d3["mos"] == pytest.approx(5 / 6)  # 1, 0, 2, 1, 0, 1: a 0 is a valid rating


def test_the_0_6_document_is_on_its_scale(doc_0_6: dict[str, Any]) -> None:
    assert doc_0_6["meta"]["primary_item"] == "quality"
    assert doc_0_6["meta"]["acceptable_from"] == 4
    assert doc_0_6["weights"]["target"] == "acceptable = rating >= 4"
    assert doc_0_6["sos_hypothesis"]["formula"] == "SOS^2 = a * (-MOS^2 + 6*MOS)"
    entry = doc_0_6["per_item"]["quality"]
    assert entry["sos"]["bounds"] == [0, 6]
    assert entry["gob_pow"]["gob_from"] == 4.5 and entry["gob_pow"]["pow_to"] == 1.5
    assert [i["key"] for i in doc_0_6["items"]] == ["quality"]
    assert doc_0_6["items"][0]["n"] == 24
    assert doc_0_6["training"] == {"excluded_rows": 0}


def test_cli_with_items_and_a_bad_sidecar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["analyze", str(CSV_0_6), "--items", str(SIDECAR_0_6)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["per_item"]["quality"]["scale"]["max"] == 6
    bad = json.loads(SIDECAR_0_6.read_text(encoding="utf-8"))
    bad["items"][0]["scale"]["max"] = 20  # 21 points
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    assert main(["analyze", str(CSV_0_6), "--items", str(path)]) == 2
    err = capsys.readouterr().err
    assert "invalid items" in err and "items[0].scale.max" in err
    path.write_text("{not json", encoding="utf-8")
    assert main(["analyze", str(CSV_0_6), "--items", str(path)]) == 2
    assert "not JSON" in capsys.readouterr().err
    # a cut outside the primary item's scale
    assert main(["analyze", str(CSV_0_6), "--items", str(SIDECAR_0_6), "--acceptable-from", "9"])
    assert "acceptance.min: 9" in capsys.readouterr().err


def _long_csv(**changes: Any) -> io.StringIO:
    table = generate_item_study(4, 4, seed=5)
    for (row, column), value in changes.get("cells", {}).items():
        table[column] = table[column].astype(object)
        table.loc[row, column] = value
    buffer = io.StringIO()
    table.to_csv(buffer, index=False)
    buffer.seek(0)
    return buffer


@pytest.mark.parametrize(
    ("cells", "column", "line", "fragment"),
    [
        ({(1, "rating"): 7.5}, "rating", 3, "rating 7.5 of item 'input_quality' is not a number"),
        ({(0, "rating"): 4.5}, "rating", 2, "of item 'overall' is not an integer on the ACR"),
        ({(3, "rating"): 2}, "rating", 5, "item 'acceptance' is not an integer from 0 to 1"),
        ({(2, "item"): "fun"}, "item", 4, "unknown item 'fun'; the sidecar declares overall"),
        ({(2, "training"): "maybe"}, "training", 4, "training must be 0 or 1"),
        ({(6, "response_ms"): -3}, "response_ms", 8, "milliseconds >= 0"),
        (
            {(1, "item"): "overall", (1, "rating"): 4},
            "scenario",
            3,
            "item 'overall' (first given at line 2)",
        ),
    ],
)
def test_bad_long_tables_name_line_column_and_item(
    cells: dict[tuple[int, str], Any], column: str, line: int, fragment: str
) -> None:
    sidecar = parse_sidecar(gaming_sidecar())
    with pytest.raises(RatingsValidationError) as info:
        load_ratings(_long_csv(cells=cells), sidecar=sidecar)
    assert (info.value.column, info.value.line) == (column, line)
    assert fragment in str(info.value)


def test_a_long_table_needs_its_sidecar() -> None:
    with pytest.raises(RatingsValidationError, match="unknown item 'input_quality'; declare"):
        load_ratings(_long_csv())
    # without an item column the table is the sidecar's "overall" (or its only item)
    long = generate_item_study(4, 4, seed=5)
    overall = long[long["item"] == "overall"].drop(columns=["item"])
    assert len(validate_ratings(overall, sidecar=parse_sidecar(gaming_sidecar()))) == 40
    sliders = {"items": [dict(i) for i in GAMING_PRESET[1:3]]}
    with pytest.raises(RatingsValidationError, match="no item column but the sidecar declares 2"):
        validate_ratings(overall, sidecar=parse_sidecar(sliders))


def test_empty_response_times_are_allowed_and_the_ratings_keep_floats() -> None:
    table = generate_item_study(4, 4, seed=5)
    table["response_ms"] = np.nan
    out = validate_ratings(table, sidecar=parse_sidecar(gaming_sidecar()))
    assert out["rating"].dtype == np.float64  # continuous items: no integer cast
    assert out["response_ms"].isna().all()


def test_continuous_condition_statistics_by_hand() -> None:
    scale = parse_scale(dict(GAMING_PRESET[1]["scale"]))
    df = pd.DataFrame(
        {
            "scenario": ["B"] * 4,
            "game": ["racing", "racing", "soccer", "soccer"],
            "rating": [6.5, 5.5, 2.0, 7.0],
        }
    )
    table = condition_table(df, scale=scale).set_index(["scenario", "game"])
    pooled = table.loc[("B", "all")]
    # MOS 21/4 = 5.25; SS = 1.5625 + 0.0625 + 10.5625 + 3.0625 = 15.25; SOS^2 = 15.25 / 3
    assert pooled["mos"] == pytest.approx(5.25)
    assert pooled["sos"] == pytest.approx(math.sqrt(15.25 / 3))
    half = 3.182446305284263 * math.sqrt(15.25 / 3) / 2  # t(0.975, 3)
    # 5.25 + half = 8.84 lies beyond the scale's 7: clipped to it and flagged
    assert pooled["ci95_low"] == pytest.approx(5.25 - half)
    assert (pooled["ci95_high"], pooled["ci95_status"]) == (7.0, "clipped")
    # GoB on 1..7: >= 5.5 (6.5, 5.5, 7.0); PoW: <= 2.5 (2.0)
    assert (pooled["gob_pct"], pooled["pow_pct"]) == (75.0, 25.0)
    assert table.loc[("B", "racing"), "mos"] == pytest.approx(6.0)
    assert "n_1" not in table.columns
