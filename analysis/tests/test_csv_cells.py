"""Text cells escaped against spreadsheet formulas, and read back unchanged."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from qoe_analysis import load_ratings
from qoe_analysis.cli import main
from qoe_analysis.io.csv_cells import escape_text_cell, formula_start, unescape_text_cell
from qoe_analysis.io.tables import escaped

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
        # Issue 34: invisible characters and full-width forms do not hide the prefix.
        ("\u200b=1+1", "'\u200b=1+1"),
        ("\ufeff@SUM(A1)", "'\ufeff@SUM(A1)"),
        ("\u2060\u200b-2+3", "'\u2060\u200b-2+3"),
        ("\uff1dcmd", "'\uff1dcmd"),  # full-width =
        ("\uff0b1", "'\uff0b1"),  # full-width +
        ("\uff20x", "'\uff20x"),  # full-width @
        ("\u3000\uff0dx", "'\u3000\uff0dx"),  # ideographic space, full-width -
        (" =x", "' =x"),
        ("\u00a0=x", "'\u00a0=x"),  # no-break space
        ("\n=x", "'\n=x"),
        (" \tx", "' \tx"),  # a tab behind a space still counts
        ("=\u0338x", "'=\u0338x"),  # NFKC would compose "=" + U+0338 to "≠"
        ("'\u200b=x", "''\u200b=x"),
        ("\u200bGran Turismo", "\u200bGran Turismo"),
        ("\uff21", "\uff21"),  # a full-width letter is no formula
        ("\u2212" + "1", "\u2212" + "1"),  # U+2212 MINUS SIGN: not in OWASP's list
        (" ", " "),
    ],
)
def test_escape_round_trips(text: str, written: str) -> None:
    assert escape_text_cell(text) == written
    assert unescape_text_cell(written) == text


@pytest.mark.parametrize(
    ("text", "start"),
    [("\u200b=x", "="), ("\ufeff+x", "+"), ("\uff1d", "="), ("\u2060\uff20", "@"), ("a=", None)],
)
def test_formula_start_names_the_normalised_character(text: str, start: str | None) -> None:
    assert formula_start(text) == start


@given(st.text(alphabet=st.sampled_from("'=+-@\t\r \u200b\ufeff\u2060\uff1d\uff0bax1\u0338")))
def test_every_text_round_trips_and_no_escaped_cell_starts_a_formula(text: str) -> None:
    written = escape_text_cell(text)
    assert unescape_text_cell(written) == text
    # A cell left as it is never starts a formula; an escaped one starts with the quote.
    assert written.startswith("'") or formula_start(written) is None


def test_the_analysis_tables_escape_hidden_formula_starts() -> None:
    frame = escaped(
        pd.DataFrame({"game": ["\u200b=cmd", "\uff1dcmd", "ok"], "mos": [-1.0, 2.0, 3.0]})
    )
    assert frame["game"].tolist() == ["'\u200b=cmd", "'\uff1dcmd", "ok"]
    assert frame["mos"].tolist() == [-1.0, 2.0, 3.0]


def test_load_ratings_reads_escaped_text_cells_back() -> None:
    header = "rater_id,session_id,game,game_pace,scenario,ds_delay_ms,rating,skill"
    rows = [f"R{r},s{r},\"'{CALC}\",fast,B,-0.0,{1 + r % 5},'-low" for r in range(3)]
    table = load_ratings(io.StringIO("\n".join([header, *rows]) + "\n"))
    assert set(table["game"]) == {CALC} and set(table["skill"]) == {"-low"}
    hidden = [line.replace(f'"\'{CALC}"', "'\ufeff=x") for line in rows]
    table = load_ratings(io.StringIO("\n".join([header, *hidden]) + "\n"))
    assert set(table["game"]) == {"\ufeff=x"}
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
