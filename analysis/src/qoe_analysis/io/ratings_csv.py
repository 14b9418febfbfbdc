"""Reading the tidy ratings CSV: bytes or text in, the raw table out, then validated.

One path for a file and a stream: a path is opened as a binary file and read like any
stream, once, by pandas' C parser. The identity columns and ``item`` are read as text
exactly as written (``01`` stays ``01``, ``TRUE`` stays ``TRUE``), pandas infers the type of
every other column, and each text column becomes a categorical of its un-escaped texts;
:mod:`qoe_analysis.tidy.validation` then checks the table. Errors locate the problem by
CSV line (1-based, the header is line 1).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from typing import IO, Any

import numpy as np
import pandas as pd

from qoe_analysis.io.csv_cells import QUOTE, unescape_text_cell
from qoe_analysis.scales import Sidecar
from qoe_analysis.tabular import factorize_in_runs
from qoe_analysis.tidy.columns import IDENTITY_COLUMNS, ITEM
from qoe_analysis.tidy.errors import RatingsValidationError
from qoe_analysis.tidy.quality_control_rows import QC_ATTR, split_quality_control
from qoe_analysis.tidy.validation import validate_ratings

__all__ = ["load_ratings", "read_ratings_csv"]

Source = str | os.PathLike[str] | IO[str] | IO[bytes]
#: the columns read as text whatever they look like
_TEXT_COLUMNS = (*IDENTITY_COLUMNS, ITEM)


def load_ratings(source: Source, *, sidecar: Sidecar | None = None) -> pd.DataFrame:
    """Read a ratings CSV (a path, or an open text or binary stream) and return the
    validated table (:func:`~qoe_analysis.tidy.validation.validate_ratings`, the first data
    row being line 2). Quality-control rows (a ``kind`` column) are split off first and
    kept on the table (:mod:`qoe_analysis.tidy.quality_control_rows`)."""
    scenario, qc, first_line = split_quality_control(read_ratings_csv(source), 2)
    table = validate_ratings(scenario, first_line=first_line, sidecar=sidecar)
    if qc is not None:
        table.attrs[QC_ATTR] = qc
    return table


def read_ratings_csv(source: Source) -> pd.DataFrame:
    """The CSV as a table: every column pandas reads as text (the :data:`_TEXT_COLUMNS`
    always, whatever they look like) as a categorical of its un-escaped texts
    (:func:`text_categorical`), the others as pandas infers them; blank lines at the end
    dropped (blank lines inside stay, as rows of missing values, for validation to report).

    Raises :class:`RatingsValidationError` for an empty file, malformed CSV (with the line
    the parser names) or text that is not UTF-8; ``OSError`` for a file that cannot be
    opened."""
    try:
        with _opened(source) as stream:
            raw = pd.read_csv(
                stream, dtype=dict.fromkeys(_TEXT_COLUMNS, object), skip_blank_lines=False
            )
    except pd.errors.EmptyDataError:
        raise RatingsValidationError("the ratings file is empty", line=1) from None
    except pd.errors.ParserError as exc:
        match = re.search(r"line (\d+)", str(exc))
        line = int(match.group(1)) if match else None
        raise RatingsValidationError(
            f"malformed CSV ({str(exc).strip().splitlines()[-1]})", line=line
        ) from None
    except UnicodeDecodeError as exc:
        raise RatingsValidationError(f"the file is not UTF-8 text ({exc.reason})") from None
    table = _without_trailing_blanks(raw)
    for column in table.columns:
        if pd.api.types.is_object_dtype(table[column].dtype) or pd.api.types.is_string_dtype(
            table[column].dtype
        ):
            table[column] = text_categorical(table[column].to_numpy(dtype=object))
    return table


@contextlib.contextmanager
def _opened(source: Source) -> Iterator[IO[Any]]:
    """``source`` as a stream: a path opened in binary (closed afterwards), a stream as it is."""
    if isinstance(source, str | os.PathLike):
        with open(source, "rb") as stream:
            yield stream
    else:
        yield source


def _without_trailing_blanks(raw: pd.DataFrame) -> pd.DataFrame:
    """``raw`` without the empty rows at its end: trailing blank lines are harmless, while
    blank lines inside the table are reported (as missing values)."""
    if len(raw) == 0 or not raw.iloc[-1:].isna().all(axis=1).iat[0]:
        return raw  # the usual file: its last row has a value, no row needs a look
    blank = raw.isna().all(axis=1).to_numpy()
    n_keep = len(blank)
    while n_keep > 0 and blank[n_keep - 1]:
        n_keep -= 1
    return raw.iloc[:n_keep]


def text_categorical(cells: np.ndarray[Any, Any]) -> pd.Categorical:
    """The text cells (NaN where missing) as a categorical: its categories the distinct
    texts in order of appearance, un-escaped as they were before the export escaped them
    against spreadsheet formulas (:mod:`qoe_analysis.io.csv_cells`: a game ``'=x`` in the
    file is ``=x``, one category with a game ``=x``).

    Each distinct text is un-escaped once (a column of a million ratings has a few
    thousand distinct raters and a handful of games)."""
    codes, distinct = factorize_in_runs(cells)
    if any_escaped(distinct.tolist()):
        fixed = np.array([unescape_text_cell(t) for t in distinct.tolist()], dtype=object)
        merged, distinct = pd.factorize(fixed)  # ``'=x`` and ``=x``: one text
        codes = np.where(codes < 0, codes, merged[codes])
    return pd.Categorical.from_codes(codes, categories=pd.Index(distinct, dtype=object))


def any_escaped(values: list[Any]) -> bool:
    """Whether un-escaping changes one of ``values``: only a text that starts with the
    quote can change. The texts are joined once to find those (a substring test instead
    of a call per value; a NUL inside a text can only add a false candidate)."""
    joined = "\0" + "\0".join(v for v in values if isinstance(v, str))
    if "\0" + QUOTE not in joined:
        return False
    return any(isinstance(v, str) and unescape_text_cell(v) != v for v in values)
