"""Reading the ratings CSV: one path for a file, a text stream and a binary stream, and the
reading errors located by line."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from qoe_analysis import RatingsValidationError, load_ratings
from qoe_analysis.io.ratings_csv import read_ratings_csv

HEADER = "rater_id,session_id,game,game_pace,scenario,ds_delay_ms,rating"
ROWS = ["01,s1,TRUE,fast,B,0,5", "01,s1,TRUE,fast,D1,80,4", "1.0,s2,'=x,slow,B,0,3"]
TEXT = "\n".join([HEADER, *ROWS]) + "\n"


def sources(text: bytes, tmp_path: Path) -> dict[str, Path | str | io.BytesIO]:
    path = tmp_path / "ratings.csv"
    path.write_bytes(text)
    return {"path": path, "str path": str(path), "bytes": io.BytesIO(text)}


def test_a_path_a_binary_and_a_text_stream_read_alike(tmp_path: Path) -> None:
    expected = load_ratings(io.StringIO(TEXT))
    assert expected["rater_id"].cat.categories.to_list() == ["01", "1.0"]
    assert expected["game"].cat.categories.to_list() == ["=x", "TRUE"]
    for name, source in sources(TEXT.encode(), tmp_path).items():
        pd.testing.assert_frame_equal(load_ratings(source), expected, obj=name)


def test_identity_columns_are_text_as_written_the_others_inferred() -> None:
    raw = read_ratings_csv(io.StringIO(TEXT))
    assert raw["rater_id"].to_list() == ["01", "01", "1.0"]
    assert raw["game"].to_list() == ["TRUE", "TRUE", "=x"]  # un-escaped
    assert raw["rating"].dtype.kind == "i" and raw["ds_delay_ms"].dtype.kind == "i"


@pytest.mark.parametrize("kind", ["path", "str path", "bytes"])
def test_text_that_is_not_utf8_is_bad_input(kind: str, tmp_path: Path) -> None:
    text = (HEADER + "\nr\xe9,s1,g,fast,B,0,5\n").encode("latin-1")
    with pytest.raises(RatingsValidationError, match="not UTF-8"):
        load_ratings(sources(text, tmp_path)[kind])


def test_malformed_csv_names_the_line() -> None:
    text = "\n".join([HEADER, ROWS[0], ROWS[1] + ",extra,cells", ROWS[2]]) + "\n"
    with pytest.raises(RatingsValidationError, match="malformed CSV") as info:
        load_ratings(io.StringIO(text))
    assert info.value.line == 3


def test_a_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_ratings(tmp_path / "missing.csv")
