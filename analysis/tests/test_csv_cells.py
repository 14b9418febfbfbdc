"""Text cells escaped against spreadsheet formulas, and read back unchanged."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from qoe_analysis import load_ratings
from qoe_analysis.cli import main
from qoe_analysis.io.csv_cells import escape_text_cell, unescape_text_cell

CALC = "=cmd|' /C calc'!A0"


@pytest.mark.parametrize(
    ("text", "written"),
    [
        (CALC, "'" + CALC),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@x", "'@x"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("'=x", "''=x"),  # a quote already there: one more, so that it reads back
        ("Gran Turismo", "Gran Turismo"),
        ("a=b", "a=b"),
        ("'quoted'", "'quoted'"),
        ("", ""),
    ],
)
def test_escape_round_trips(text: str, written: str) -> None:
    assert escape_text_cell(text) == written
    assert unescape_text_cell(written) == text


def test_load_ratings_reads_escaped_text_cells_back() -> None:
    header = "rater_id,session_id,game,game_pace,scenario,ds_delay_ms,rating,skill"
    rows = [f"R{r},s{r},\"'{CALC}\",fast,B,-0.0,{1 + r % 5},'-low" for r in range(3)]
    table = load_ratings(io.StringIO("\n".join([header, *rows]) + "\n"))
    assert set(table["game"]) == {CALC} and set(table["skill"]) == {"-low"}
    assert table["ds_delay_ms"].dtype.kind == "f"  # numbers stay numbers


def test_the_cli_tables_escape_formula_names(study_dir: Path, tmp_path: Path) -> None:
    """``analyze --out`` writes a game ``=…`` (read from its escaped cell) escaped again."""
    ratings = (study_dir / "ratings.csv").read_text(encoding="utf-8").splitlines()
    game = ratings[0].split(",").index("game")
    rows = [ratings[0]]
    for line in ratings[1:]:
        cells = line.split(",")
        cells[game] = "'=" + cells[game]
        rows.append(",".join(cells))
    source = tmp_path / "ratings.csv"
    source.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert main(["analyze", str(source), "--out", str(tmp_path / "out"), "--no-plots"]) == 0
    with (tmp_path / "out" / "conditions.csv").open(encoding="utf-8", newline="") as handle:
        games = {row["game"] for row in csv.DictReader(handle)}
    assert games - {"all"} == {"'=racing", "'=rpg", "'=soccer"}, games  # "all": every game
