"""The tidy table's validation lists every problem at once (issue 32, item 3): one error
with each problem's line and column, capped as the dataset loader caps its list."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from qoe_analysis import RatingsValidationError, load_ratings
from qoe_analysis.cli import EXIT_BAD_INPUT, main
from qoe_analysis.dataset.problems import MOST_PER_COLUMN, Problem

HEADER = "rater_id,session_id,game,game_pace,scenario,ds_delay_ms,rating"
ROWS = [
    "r1,s1,racing,fast,B,0,5",
    "r1,s1,racing,fast,D1,80,9",  # line 3: off the ACR scale
    "r1,s1,racing,fast,D2,160,3",
    "r2,s2,racing,fast,B,slow,4",  # line 5: a delay that is no number
    "r2,s2,racing,fast,D1,80,3",
    "r2,s2,soccer,turbo,D2,160,2",  # line 7: an unknown pace
]
THREE = [
    (3, "rating", "rating 9 is not an integer on the ACR scale 1-5"),
    (5, "ds_delay_ms", "value 'slow' is not a number"),
    (7, "game_pace", "pace 'turbo' is not one of fast, medium, slow"),
]


def text(rows: list[str]) -> str:
    return "\n".join([HEADER, *rows]) + "\n"


def error(rows: list[str]) -> RatingsValidationError:
    with pytest.raises(RatingsValidationError) as info:
        load_ratings(io.StringIO(text(rows)))
    return info.value


def test_three_problems_are_listed_with_lines_and_columns() -> None:
    exc = error(ROWS)
    assert exc.total == 3 and all(isinstance(p, Problem) for p in exc.problems)
    found = sorted((p.line, p.column, p.rule) for p in exc.problems)
    assert [
        (line, column, rule[: len(want[2])])
        for (line, column, rule), want in zip(found, THREE, strict=True)
    ] == THREE
    assert (exc.line, exc.column) == (3, "rating")  # the first one listed
    lines = str(exc).splitlines()
    assert lines[0] == "3 problems:"
    assert lines[1].startswith("line 3, column 'rating': rating 9 is not an integer")
    assert lines[2] == "line 5, column 'ds_delay_ms': value 'slow' is not a number"
    assert lines[3] == "line 7, column 'game_pace': pace 'turbo' is not one of fast, medium, slow"


def test_one_problem_keeps_its_text() -> None:
    exc = error([ROWS[0], "r1,s1,racing,fast,D1,80,3", *ROWS[2:5], "r2,s2,racing,fast,D2,160,2"])
    assert exc.total == 1 and len(exc.problems) == 1
    assert str(exc) == "column 'ds_delay_ms', line 5: value 'slow' is not a number"


def test_a_cell_is_reported_once() -> None:
    """A missing rating is not also called off its scale; a missing game no unknown pace."""
    exc = error(["r1,s1,racing,fast,B,0,", "r1,s1,,,D1,80,3", "r2,s2,racing,fast,B,x,4"])
    assert sorted((p.line, p.column, p.rule) for p in exc.problems) == [
        (2, "rating", "missing value"),
        (3, "game", "missing value"),
        (3, "game_pace", "missing value"),
        (4, "ds_delay_ms", "value 'x' is not a number"),
    ]


def test_every_missing_column_of_the_header_is_named() -> None:
    with pytest.raises(RatingsValidationError) as info:
        load_ratings(io.StringIO("rater_id,game,ds_delay_ms,rating\nr1,racing,0,5\n"))
    exc = info.value
    assert {p.column for p in exc.problems} == {"session_id", "game_pace", "scenario"}
    assert exc.line == 1 and str(exc).startswith("3 problems:\nline 1, column ")


def test_design_rules_list_every_breach() -> None:
    rows = ["r1,s1,racing,fast,B,0,5", "r1,s1,racing,fast,B,0,4", "r2,s2,racing,slow,B,0,3"]
    exc = error(rows)
    assert [(p.line, p.column) for p in exc.problems] == [(3, "scenario"), (4, "game_pace")]


def test_the_list_is_capped_and_counts_the_rest() -> None:
    bad = [f"r{n},s{n},racing,fast,B,0,{7 + n % 3}" for n in range(200)]
    exc = error(bad)
    assert exc.total == 200
    lines = str(exc).splitlines()
    assert lines[0] == "200 problems:" and len(lines) == 1 + MOST_PER_COLUMN + 1
    assert lines[-1] == f"… and {200 - MOST_PER_COLUMN} more problems"


def test_the_cli_lists_them_and_exits_as_for_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text(text(ROWS), encoding="utf-8")
    assert main(["analyze", str(path)]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "qoe-analysis: invalid ratings: 3 problems:"
    assert err[1].startswith("  line 3, column 'rating': rating 9 is not an integer")
    assert err[2:] == [
        "  line 5, column 'ds_delay_ms': value 'slow' is not a number",
        "  line 7, column 'game_pace': pace 'turbo' is not one of fast, medium, slow",
    ]
