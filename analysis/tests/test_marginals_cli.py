"""``qoe-analysis marginals`` (aligned text, ``--csv``) and ``analyze --out``'s
mos_by_factor.csv: the ``marginals`` section as tables (io/marginals_text.py)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from qoe_analysis.cli import EXIT_BAD_INPUT, main
from qoe_analysis.io.marginals_text import ROW_COLUMNS, aligned, marginal_rows

DATA = Path(__file__).resolve().parents[2] / "fixtures" / "data"


def test_text_table_of_the_example(
    study_dir: Path, study_doc: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["marginals", str(study_dir / "ratings.csv")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("MOS by factor level (all raters): ")
    assert "item overall, factor ds_delay_ms (Delay, downstream; ms; tested levels)" in out
    assert "item overall, factor age (age; equal-count bins)" in out
    # one line per point under each block's header, columns aligned
    block = out.split("item overall, factor ds_delay_ms")[1].split("\n\n")[0].splitlines()[1:]
    header, rows = block[0], block[1:]
    assert header == "game    level    n  raters    MOS    SOS  95 % CI         status"
    (series,) = [
        s
        for s in study_doc["marginals"]["series"]
        if (s["factor"], s["game"]) == ("ds_delay_ms", "all")
    ]
    all_rows = [r for r in rows if r.startswith("all ")]
    assert len(all_rows) == len(series["points"])
    first = series["points"][0]
    cells = all_rows[0].split()
    assert cells[:6] == [
        "all",
        first["label"],
        str(first["n"]),
        str(first["n_raters"]),
        f"{first['mos']:.3f}",
        f"{first['sos']:.3f}",
    ]
    assert f"[{first['ci95_low']:.3f}, {first['ci95_high']:.3f}]" in all_rows[0]
    n_column_end = header.index(" n ") + 2
    assert {len(r[:n_column_end]) for r in rows} == {n_column_end}  # right-aligned n
    assert all(r[n_column_end] == " " for r in rows)


def test_csv_rows_are_the_sections_points(
    study_dir: Path, study_doc: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["marginals", str(study_dir / "ratings.csv"), "--csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert tuple(table.columns) == ROW_COLUMNS
    section = study_doc["marginals"]
    assert len(table) == sum(len(s["points"]) for s in section["series"])
    row = table[(table["factor"] == "us_loss_pct") & (table["game"] == "all")].iloc[0]
    # the level column holds numbers and texts (a rater column's levels)
    assert (row["unit"], row["point"], float(row["level"])) == ("%", "0", 0.0)


def test_analyze_out_writes_mos_by_factor_csv(study_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    rc = main(["analyze", str(study_dir / "ratings.csv"), "--out", str(out), "--no-plots"])
    assert rc == 0
    doc = json.loads((out / "analysis.json").read_text())
    written = pd.read_csv(out / "mos_by_factor.csv")
    expected = marginal_rows(doc["marginals"])
    assert len(written) == len(expected) > 0
    assert written["mos"].tolist() == pytest.approx(expected["mos"].astype(float).tolist())
    assert written["point"].astype(str).tolist() == expected["point"].tolist()


def test_items_option_and_a_0_6_scale(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["marginals", str(DATA / "scale_0_6.csv"), "--items", str(DATA / "scale_0_6.items.json")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    # both directions always equal: one merged factor
    assert "item quality, factor both_delay_ms (Delay, both directions; ms; tested levels)" in out
    assert "all     200    6       6  2.500  1.049  [1.399, 3.601]  ok" in out


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("rater_id,game\nx,y\n", encoding="utf-8")
    assert main(["marginals", str(bad)]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.startswith("qoe-analysis: invalid ratings: ")
    assert main(["marginals", str(tmp_path / "missing.csv")]) == EXIT_BAD_INPUT


def test_aligned_columns() -> None:
    lines = aligned(["a", "num"], [["long text", "1"], ["x", "1234"]], frozenset({1}))
    assert lines == ["a           num", "long text     1", "x          1234"]


def test_a_dataset_by_its_descriptor(capsys: pytest.CaptureFixture[str]) -> None:
    """The P.809-like dataset (fixtures/data/p809_dataset): its context and questionnaire
    columns get views, a questionnaire gap is in no point, the loader's warnings follow."""
    descriptor = DATA / "p809_dataset" / "descriptor.json"
    assert main(["marginals", "--dataset", str(descriptor), "--csv"]) == 0
    captured = capsys.readouterr()
    table = pd.read_csv(io.StringIO(captured.out))
    assert {"testbed", "Age"} <= set(table["factor"])
    assert "warning: [undeclared_columns]" in captured.err
    # the undeclared columns are no factor of the view
    assert not {"Round", "Comment"} & set(table["factor"])
    assert main(["marginals", "--dataset", str(descriptor)]) == 0
    out = capsys.readouterr().out
    assert "item quality, factor Age (Age; equal-count bins)" in out
    assert "ratings without a value (in no point): " in out.split("factor Age")[1]


def test_a_ratings_file_or_a_dataset(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["marginals"])
    assert stop.value.code == EXIT_BAD_INPUT
    assert "give a ratings file or --dataset" in capsys.readouterr().err
