"""Bad input is rejected with the column and the CSV line; good input gets canonical dtypes."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_analysis import RatingsValidationError, load_ratings, validate_ratings
from qoe_analysis.cli import main
from qoe_analysis.io.csv_cells import unescape_text_cell
from qoe_analysis.io.ratings_csv import any_escaped
from qoe_analysis.tidy.validation import _provenance_column, _provenance_text, _text_column

HEADER = (
    "rater_id,session_id,game,game_pace,scenario,ds_delay_ms,us_delay_ms,"
    "ds_loss_pct,us_loss_pct,rating,age"
)
GOOD_ROWS = [
    "r1,s1,racing,fast,B,0,0,0,0,5,30",
    "r1,s1,racing,fast,D1,80,80,0,0,4,30",
    "r2,s2,soccer,slow,B,0,0,0,0,4,25",
    "r2,s2,soccer,slow,D1,80,80,0,0,3,25",
]


def csv(rows: list[str], header: str = HEADER) -> io.StringIO:
    return io.StringIO("\n".join([header, *rows]) + "\n")


def replace(row: int, column: str, value: str) -> list[str]:
    names = HEADER.split(",")
    rows = [r.split(",") for r in GOOD_ROWS]
    rows[row][names.index(column)] = value
    return [",".join(r) for r in rows]


def test_good_file_loads_with_canonical_dtypes() -> None:
    df = load_ratings(csv(GOOD_ROWS))
    assert len(df) == 4
    assert df["rating"].dtype == "int64"
    assert df["ds_delay_ms"].dtype == "float64"
    assert isinstance(df["rater_id"].dtype, pd.CategoricalDtype)
    assert df["age"].dtype == "float64"  # numeric extra factor


@pytest.mark.parametrize(
    ("rows", "header", "column", "line", "fragment"),
    [
        (replace(2, "rating", "7"), HEADER, "rating", 4, "ACR scale"),
        (replace(1, "rating", "3.5"), HEADER, "rating", 3, "not an integer"),
        (replace(0, "rating", "0"), HEADER, "rating", 2, "ACR"),
        (replace(3, "us_delay_ms", "fast"), HEADER, "us_delay_ms", 5, "'fast' is not a number"),
        (replace(1, "ds_delay_ms", "-5"), HEADER, "ds_delay_ms", 3, "-5 ms is outside the"),
        (replace(2, "us_loss_pct", "120"), HEADER, "us_loss_pct", 4, "range [0, 100] %"),
        (replace(2, "us_loss_pct", "inf"), HEADER, "us_loss_pct", 4, "not a finite number"),
        (replace(2, "game_pace", "turbo"), HEADER, "game_pace", 4, "fast, medium, slow"),
        (replace(1, "rater_id", ""), HEADER, "rater_id", 3, "missing value"),
        (replace(3, "age", ""), HEADER, "age", 5, "missing value"),
        ([*GOOD_ROWS, GOOD_ROWS[1]], HEADER, "scenario", 6, "first given at line 3"),
        (GOOD_ROWS, HEADER.replace(",rating", ",score"), "rating", 1, "missing"),
        (replace(3, "ds_delay_ms", "90"), HEADER, "ds_delay_ms", 5, "scenario 'D1'"),
        (replace(1, "game", "soccer"), HEADER, "game", 3, "rater_id/session_id"),
    ],
)
def test_bad_input_names_column_and_line(
    rows: list[str], header: str, column: str, line: int, fragment: str
) -> None:
    with pytest.raises(RatingsValidationError) as info:
        load_ratings(csv(rows, header))
    err = info.value
    assert (err.column, err.line) == (column, line)
    assert f"column '{column}'" in str(err) and f"line {line}" in str(err)
    assert fragment in str(err)
    assert isinstance(err, ValueError)


def test_game_with_two_paces_is_rejected() -> None:
    rows = [*GOOD_ROWS, "r3,s3,racing,slow,B,0,0,0,0,4,40"]
    with pytest.raises(RatingsValidationError) as info:
        load_ratings(csv(rows))
    assert (info.value.column, info.value.line) == ("game_pace", 6)


def test_empty_file_and_header_only() -> None:
    with pytest.raises(RatingsValidationError, match="empty"):
        load_ratings(io.StringIO(""))
    with pytest.raises(RatingsValidationError, match="no ratings") as info:
        load_ratings(io.StringIO(HEADER + "\n"))
    assert info.value.line == 2


def test_blank_line_inside_is_reported_trailing_ignored() -> None:
    assert len(load_ratings(io.StringIO("\n".join([HEADER, *GOOD_ROWS]) + "\n\n\n"))) == 4
    text = "\n".join([HEADER, GOOD_ROWS[0], "", *GOOD_ROWS[1:]]) + "\n"
    with pytest.raises(RatingsValidationError) as info:
        load_ratings(io.StringIO(text))
    assert info.value.line == 3


def test_dataframe_input_has_no_line_but_names_row() -> None:
    df = pd.read_csv(csv(replace(2, "rating", "9")))
    with pytest.raises(RatingsValidationError) as info:
        validate_ratings(df)
    assert info.value.line is None and info.value.column == "rating"
    assert "(row 2)" in str(info.value)


def test_validation_is_idempotent_and_keeps_line_numbers() -> None:
    df = load_ratings(csv(GOOD_ROWS))
    again = validate_ratings(df)
    pd.testing.assert_frame_equal(df, again)
    broken = df.copy()
    broken.loc[3, "rating"] = 6
    with pytest.raises(RatingsValidationError) as info:
        validate_ratings(broken)
    assert info.value.line == 5


def test_cli_exit_code_2_with_one_line_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(csv(replace(1, "rating", "6")).getvalue())
    assert main(["analyze", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "column 'rating'" in err and "line 3" in err
    assert main(["analyze", str(tmp_path / "missing.csv")]) == 2


def levels_by_definition(values: list[object]) -> tuple[list[str], list[int]]:
    """The rule of a text factor: a value's level is its text; the levels are sorted."""
    texts = [str(v) for v in values]
    levels = sorted(set(texts))
    return levels, [levels.index(t) for t in texts]


@pytest.mark.parametrize(
    "series",
    [
        pd.Series(["b", "a", "b", "c"], dtype="str"),  # factorised, then sorted
        pd.Series(["a", "b", "c"], dtype="str"),  # already sorted: no np.unique
        pd.Series(["b", "a", "b"], dtype=object),
        pd.Series([1, "1", 2, 10], dtype=object),  # 1 and "1" are one level
        pd.Series([1, 2.5, 1], dtype=object),  # pd.Categorical's grouping (floats)
        pd.Series([3, 1, 2, 1]),
        pd.Series([True, False, True]),
        pd.Series(pd.Categorical(["b", "a"], categories=["z", "b", "a", " "])),  # unused
        pd.Series(pd.Categorical(["'=x", "=x"])),  # no un-escaping inside validation
        pd.Series(pd.Categorical([10, 9, 10])),  # "10" sorts before "9"
        pd.Series(pd.array([2, 1, 2], dtype="Int64")),
    ],
)
def test_text_column_follows_the_rule(series: pd.Series) -> None:
    result = _text_column(series, "skill", 2)
    if series.dtype == object and 2.5 in series.to_list():
        values: list[object] = list(pd.Categorical(series))  # the floats it groups to
    else:
        values = series.to_list()
    levels, codes = levels_by_definition(values)
    assert result.categories.dtype == object
    assert result.categories.to_list() == levels
    assert result.codes.tolist() == codes


@pytest.mark.parametrize(
    ("values", "line"),
    [
        (["a", None, "b"], 3),
        (["a", "b", " "], 4),
        (["a", "\t", ""], 3),
    ],
)
@pytest.mark.parametrize("dtype", ["str", "object", "category"])
def test_text_column_rejects_missing_and_blank(
    values: list[str | None], line: int, dtype: str
) -> None:
    series = pd.Series(values, dtype=dtype)
    with pytest.raises(RatingsValidationError, match="missing value") as info:
        _text_column(series, "skill", 2)
    assert info.value.line == line


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (["a", "b"], False),
        (["'a", "a'"], False),  # a quote, but before no formula character
        (["a", "'=x"], True),
        (["''=x"], True),
        ([1, 2.5, "'-1"], True),  # not all texts
        ([1, "'x"], False),
        (["a\0'=", "b"], False),  # a NUL inside a text: a false candidate, checked
        (["a\0", "'+1"], True),
        ([], False),
    ],
)
def test_any_escaped(values: list[object], expected: bool) -> None:
    assert any_escaped(values) is expected
    assert expected == any(isinstance(v, str) and unescape_text_cell(v) != v for v in values)


def as_source(buffer: io.StringIO, kind: str, tmp_path: Path) -> io.StringIO | io.BytesIO | Path:
    """The CSV as a text stream, a binary stream or a file given by its path."""
    if kind == "stream":
        return buffer
    if kind == "bytes":
        return io.BytesIO(buffer.getvalue().encode("utf-8"))
    path = tmp_path / "ratings.csv"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["stream", "bytes", "path"])
def test_escaped_and_numeric_looking_text_cells(kind: str, tmp_path: Path) -> None:
    """``'=x`` and ``=x`` are one game; ids, games and scenarios that look like numbers or
    booleans are text as written (01, 1 and 1.0 are three raters), whether the file is
    given as a stream or by its path."""
    rows = [
        "01,s1,'=x,fast,B,0,0,0,0,5,30",
        "01,s1,'=x,fast,D1,80,80,0,0,4,30",
        "1,s3,'=x,fast,D2,80,80,0,0,4,30",
        "1.0,s4,'=x,fast,D2,80,80,0,0,4,30",
        "2,s2,=x,fast,B,0,0,0,0,4,25",
        "2,s2,=x,fast,D1,80,80,0,0,3,25",
    ]
    df = load_ratings(as_source(csv(rows), kind, tmp_path))
    assert df["game"].cat.categories.to_list() == ["=x"]
    assert df["rater_id"].cat.categories.to_list() == ["01", "1", "1.0", "2"]
    assert df["rater_id"].cat.codes.to_list() == [0, 0, 1, 2, 3, 3]
    booleans = load_ratings(
        as_source(
            csv(
                [
                    "TRUE,s1,g,fast,01,0,0,0,0,5,30",
                    "TRUE,s1,g,fast,02,80,80,0,0,4,30",
                    "true,s2,g,fast,01,0,0,0,0,4,25",
                    "true,s2,g,fast,1.0,80,80,0,0,4,25",
                ]
            ),
            kind,
            tmp_path,
        )
    )
    assert booleans["rater_id"].cat.categories.to_list() == ["TRUE", "true"]
    assert booleans["scenario"].cat.categories.to_list() == ["01", "02", "1.0"]
    games = load_ratings(
        as_source(
            csv(
                [
                    "r1,s1,TRUE,fast,B,0,0,0,0,5,30",
                    "r1,s1,TRUE,fast,D,80,80,0,0,4,30",
                    "r2,s2,true,slow,B,0,0,0,0,4,25",
                    "r3,s3,2048,slow,B,0,0,0,0,4,25",
                ]
            ),
            kind,
            tmp_path,
        )
    )
    assert games["game"].cat.categories.to_list() == ["2048", "TRUE", "true"]
    assert games["game"].cat.codes.to_list() == [1, 1, 2, 0]


def cells(values: list[str], max_size: int, unique: bool = True) -> st.SearchStrategy[list[str]]:
    """1 to ``max_size`` texts drawn from ``values``: number-, boolean- and formula-like
    ones, missing and blank cells among them."""
    return st.lists(st.sampled_from(values), min_size=1, max_size=max_size, unique=unique)


def assert_file_and_stream_alike(text: str) -> None:
    """Loading ``text`` from a file by its path gives the table, or the error, that loading
    it as a stream gives."""
    results: list[object] = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ratings.csv"
        path.write_text(text, encoding="utf-8")
        for source in (io.StringIO(text), path):
            try:
                results.append(load_ratings(source))
            except RatingsValidationError as exc:
                results.append((str(exc), exc.column, exc.line))
    from_stream, from_path = results
    if isinstance(from_stream, pd.DataFrame):
        assert isinstance(from_path, pd.DataFrame)
        pd.testing.assert_frame_equal(from_path, from_stream, check_categorical=True)
    else:
        assert from_path == from_stream


@settings(max_examples=60, deadline=None)
@given(
    games=cells(["g", "01", "1", "1.0", "TRUE", "true", "'=x", "=x", "'+1", "NA", " "], 3),
    scenarios=cells(["B", "01", "1", "2.5", "-1", "'-1", "False", "nan", "D1"], 4),
    answers=cells(["low", "01", "1.0", "TRUE", "'=x", "=x", "", " "], 3, unique=False),
)
def test_file_and_stream_load_alike(
    games: list[str], scenarios: list[str], answers: list[str]
) -> None:
    """A file given by its path and the same text as a stream give the same table or the
    same error (number-, boolean- and formula-like cells, missing and blank ones)."""
    rows = [
        f"r{i},s{i},{game},slow,{scenario},{10 * j},0,0,0,{1 + (i + j) % 5},30,"
        f"{answers[i % len(answers)]}"
        for i, game in enumerate(games)
        for j, scenario in enumerate(scenarios)
    ]
    assert_file_and_stream_alike(csv(rows, HEADER + ",skill").getvalue())


@pytest.mark.parametrize(
    "series",
    [
        pd.Series(["tc", None, " tc ", "", "dry-run", "tc"], dtype="str"),
        pd.Series(["tc", "tc"], dtype="str"),
        pd.Series(["b", None, "a"], dtype="string"),
        pd.Series(["tc", None, 1, 1.0], dtype=object),  # the general path
        pd.Series([1.5, np.nan, -0.0, 0.0]),
    ],
)
def test_provenance_text_on_distinct_values(series: pd.Series) -> None:
    """A value's text is str(value).strip(), a missing value's ""; the str-column path
    (on the distinct values) agrees with the rule on every row."""
    expected = pd.Categorical(_provenance_text(series))
    result = _provenance_column(series)
    assert result.categories.equals(expected.categories)
    assert result.categories.dtype == expected.categories.dtype
    assert result.codes.tolist() == expected.codes.tolist()


def test_loaded_text_columns_validate_as_a_plain_read() -> None:
    """The loader's table is the validation of pandas' own read (no escaped cell)."""
    header = HEADER + ",skill,agent_backend"
    rows = [
        f"{row},{skill},{backend}"
        for row, skill, backend in zip(
            GOOD_ROWS, ["low", "high", " ", "low"], ["tc", "", " tc", "tc"], strict=True
        )
    ]
    with pytest.raises(RatingsValidationError, match="missing value") as info:
        load_ratings(csv(rows, header))
    assert (info.value.column, info.value.line) == ("skill", 4)
    rows[2] = rows[2].replace(", ,", ",mid,")
    loaded = load_ratings(csv(rows, header))
    plain = validate_ratings(pd.read_csv(csv(rows, header)), first_line=2)
    pd.testing.assert_frame_equal(loaded, plain, check_categorical=True)
    assert loaded["skill"].cat.categories.to_list() == ["high", "low", "mid"]
    assert loaded["agent_backend"].cat.categories.to_list() == ["", "tc"]
