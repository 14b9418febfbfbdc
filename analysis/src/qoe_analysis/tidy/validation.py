"""Loading and validating the tidy ratings table.

One row per rating with the columns of :data:`qoe_analysis.tidy.columns.REQUIRED_COLUMNS`
and at least one impairment factor column of the registry (:mod:`netem_profile.factors`:
``ds_delay_ms``, ``us_jitter_ms``, ``ds_ge_p_pct``…; any subset); any further column is a
per-rater or per-session factor. Validation is all-or-nothing: the first
problem found raises :class:`RatingsValidationError` naming the column and the CSV line
(1-based, the header is line 1), and no result is computed from a table that failed.
"""

from __future__ import annotations

import contextlib
import os
import re
import weakref
from typing import IO, Any

import numpy as np
import pandas as pd

from qoe_analysis.io.csv_cells import QUOTE as ESCAPE_QUOTE
from qoe_analysis.io.csv_cells import unescape_text_cell
from qoe_analysis.scales import Sidecar, default_sidecar
from qoe_analysis.study_factors import factor_columns_in, factor_of
from qoe_analysis.tabular import factorize_in_runs
from qoe_analysis.tidy.columns import (
    ITEM,
    ITEM_COLUMNS,
    PROVENANCE_COLUMNS,
    RESPONSE_MS,
    SINCE_END_MS,
    TRAINING,
)
from qoe_analysis.tidy.design import (
    GAME,
    PACE,
    PACE_CLASSES,
    RATER,
    RATING,
    REQUIRED_COLUMNS,
    SCENARIO,
    SESSION,
)
from qoe_analysis.tidy.design_rules import check_functional, check_unique_slots
from qoe_analysis.tidy.errors import RatingsValidationError, fail_at
from qoe_analysis.tidy.item_validation import (
    check_item_keys,
    check_ratings_on_scales,
    duration_column,
    implied_item,
    training_column,
)

__all__ = [
    "RatingsValidationError",
    "is_validated",
    "load_ratings",
    "table_sidecar",
    "validate_ratings",
]

_TEXT_COLUMNS = (RATER, SESSION, GAME, PACE, SCENARIO)
#: text columns of a study's design with a few values each, factorised by the CSV parser
_FEW_VALUED = (GAME, PACE, SCENARIO, ITEM)
#: (code per row, −1 when missing; the distinct values the codes index) of a text column
Factorised = tuple[np.ndarray[Any, Any], list[Any]]
_FIRST_LINE_ATTR = "qoe_analysis_first_line"
_SIDECAR_ATTR = "qoe_analysis_sidecar"
#: a weak reference to the frame :func:`validate_ratings` returned; pandas copies ``attrs``
#: to derived frames, so the reference (not a flag) tells the frame itself from a copy
_VALIDATED_ATTR = "qoe_analysis_validated"


def table_sidecar(table: pd.DataFrame) -> Sidecar:
    """The items a validated table was checked against (default: "overall" on ACR-5)."""
    sidecar = table.attrs.get(_SIDECAR_ATTR)
    return sidecar if isinstance(sidecar, Sidecar) else default_sidecar()


def is_validated(table: pd.DataFrame, sidecar: Sidecar | None = None) -> bool:
    """True when ``table`` is the very frame :func:`validate_ratings` returned (against
    ``sidecar``, when given): then it need not be validated again.

    A frame derived from it (a copy, a filter, an added column) is not: pandas copies
    ``attrs`` but the stored weak reference still points at the original. Changing the
    validated frame in place is not detected (the same holds for any cached check).
    """
    ref = table.attrs.get(_VALIDATED_ATTR)
    if not isinstance(ref, weakref.ref) or ref() is not table:
        return False
    return sidecar is None or sidecar == table.attrs.get(_SIDECAR_ATTR)


def load_ratings(
    source: str | os.PathLike[str] | IO[str], *, sidecar: Sidecar | None = None
) -> pd.DataFrame:
    """Read a ratings CSV and return the validated table (see :func:`validate_ratings`).

    The text columns are taken exactly as written. Of a file given by its path, the
    columns with a handful of values (:func:`_few_valued_columns`: game, pace, scenario,
    item and the per-rater or per-session text columns such as a questionnaire's answers)
    are factorised by the parser itself, which makes no ``str`` per cell. pandas ≥ 3.1
    converts the categories of a column whose values all look like numbers or booleans
    (GH#56044: scenarios ``01`` and ``1`` would become one scenario ``1``), so when a
    column's categories come back as anything but text the file is read again with the
    text columns as ``str``. A stream (which may not be read twice) is read that way at
    once, and so are the rater and session columns (thousands of values: merging the
    parser's per-chunk categories would cost more than factorising the column once).
    Un-escaping touches the distinct values only. The file is parsed by one thread:
    pandas' parallel reader (a file over 5 MB) costs more CPU than it saves and yields
    the same table.
    """
    few_valued = _few_valued_columns(source) if isinstance(source, str | os.PathLike) else ()
    raw = _read_csv(source, categorical=few_valued)
    if few_valued and not _categories_are_text(raw):
        raw = _read_csv(source, categorical=())
    table, factorised = _unescaped(_without_trailing_blanks(raw))
    return _validated(table, first_line=2, sidecar=sidecar, factorised=factorised)


#: rows read ahead to find the few-valued text columns of a file (:func:`_few_valued_columns`)
_PEEK_ROWS = 1000
#: at most this many distinct values in the rows read ahead make a column "few-valued"
_FEW_VALUES = 32


def _few_valued_columns(path: str | os.PathLike[str]) -> tuple[str, ...]:
    """The columns of the file to read as categoricals: the design's :data:`_FEW_VALUED`
    ones and every other column that is neither the rater, the session, a registry factor,
    an item column nor provenance and whose first :data:`_PEEK_ROWS` rows hold text with
    at most :data:`_FEW_VALUES` distinct values (a questionnaire's answers; a free-text
    or per-rater column has more and is read as ``str``). A file the peek cannot read
    gets the design columns only; the full read then reports what is wrong with it."""
    try:
        with _one_thread():
            head = pd.read_csv(path, nrows=_PEEK_ROWS, skip_blank_lines=False)
    except (ValueError, OSError, pd.errors.ParserError):  # EmptyDataError is a ValueError
        return _FEW_VALUED
    known = {
        *REQUIRED_COLUMNS,
        *ITEM_COLUMNS,
        *PROVENANCE_COLUMNS,
        *factor_columns_in(head.columns),
    }
    extra = [
        str(column)
        for column in head.columns
        if str(column) not in known
        and _is_text(head[column].dtype)
        and head[column].nunique() <= _FEW_VALUES
    ]
    return (*_FEW_VALUED, *extra)


def _read_csv(
    source: str | os.PathLike[str] | IO[str], *, categorical: tuple[str, ...]
) -> pd.DataFrame:
    """The CSV as pandas parses it, the text columns as ``str`` and the ``categorical``
    ones as categoricals; parser errors as :class:`RatingsValidationError`."""
    dtype: dict[str, Any] = dict.fromkeys((*_TEXT_COLUMNS, ITEM), str)
    dtype.update(dict.fromkeys(categorical, "category"))
    try:
        with _one_thread():
            return pd.read_csv(source, dtype=dtype, skip_blank_lines=False)
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


def _categories_are_text(raw: pd.DataFrame) -> bool:
    """Whether every categorical column's categories are the texts of the file (not
    numbers or booleans pandas made of them)."""
    return all(
        all(type(value) is str for value in raw[column].cat.categories.tolist())
        for column in raw.columns
        if isinstance(raw[column].dtype, pd.CategoricalDtype)
    )


def _one_thread() -> contextlib.AbstractContextManager[object]:
    """pandas' CSV reader limited to one thread (``mode.max_threads``, pandas ≥ 3.1; older
    versions read with one thread anyway)."""
    try:
        pd.get_option("mode.max_threads")
    except pd.errors.OptionError:
        return contextlib.nullcontext()
    return pd.option_context("mode.max_threads", 1)


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


def _unescaped(raw: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, Factorised]]:
    """Text cells back as they were before the export escaped them against spreadsheet
    formulas (:mod:`qoe_analysis.io.csv_cells`): a game ``'=x`` in the file is ``=x``.

    Each distinct text is un-escaped once (a column of a million ratings has a few
    thousand distinct raters and a handful of games); the column is rebuilt only when a
    value changed. Also returns the factorisation of each text column that had nothing
    to un-escape (:func:`_factorised`) and of each categorical column (its codes and
    un-escaped categories), which validation then reuses."""
    factorised: dict[str, Factorised] = {}
    for column in raw.columns:
        series = raw[column]
        if isinstance(series.dtype, pd.CategoricalDtype):
            factorised[str(column)] = _categorical_unescaped(series)
        elif _is_text(series.dtype):
            codes, distinct = _factorised(series)
            if _any_escaped(distinct):
                raw[column] = _unescaped_text(series, codes, distinct)
            elif isinstance(series.dtype, pd.StringDtype):  # validation factorises it so
                factorised[str(column)] = (codes, distinct)
    return raw, factorised


def _categorical_unescaped(series: pd.Series) -> Factorised:
    """(codes, categories un-escaped) of a column the parser read as a categorical; two
    categories may become one text, which :func:`_text_column` merges."""
    cat = series.array
    assert isinstance(cat, pd.Categorical)
    distinct = cat.categories.tolist()
    if _any_escaped(distinct):
        distinct = _unescaped_values(distinct)
    return np.asarray(cat.codes), distinct


def _factorised(series: pd.Series) -> Factorised:
    """(code per row, −1 when missing; the distinct values in order of appearance) of a
    text column; factorising its object array is twice as fast as pandas' ``str`` dtype,
    and hashing only the first row of each run of equal values (a rater's rows one after
    another) faster again (:func:`~qoe_analysis.tabular.factorize_in_runs`)."""
    codes, uniques = factorize_in_runs(series.to_numpy(dtype=object))
    return np.asarray(codes), list(uniques.tolist())


def _is_text(dtype: Any) -> bool:
    return pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype)


def _any_escaped(values: list[Any]) -> bool:
    """Whether un-escaping changes one of ``values``: only a text that starts with the
    quote can change. The texts are joined once to find those (a substring test instead
    of a call per value; a NUL inside a text can only add a false candidate)."""
    try:
        joined = "\0" + "\0".join(values)
    except TypeError:  # not all values are texts
        joined = "\0" + "\0".join(v for v in values if isinstance(v, str))
    if "\0" + ESCAPE_QUOTE not in joined:
        return False
    return any(isinstance(v, str) and unescape_text_cell(v) != v for v in values)


def _unescaped_text(series: pd.Series, codes: np.ndarray[Any, Any], distinct: list[Any]) -> Any:
    """The text column ``series`` (factorised as ``codes`` into ``distinct``) with each
    distinct text un-escaped once, in the column's dtype; missing cells stay missing."""
    fixed = np.array(_unescaped_values([*distinct, ""]), dtype=object)
    values = fixed[codes]  # code −1 (missing) takes the "" at the end, replaced below
    return pd.Series(values, index=series.index, dtype=series.dtype).where(series.notna(), series)


def _unescaped_values(values: list[Any]) -> list[Any]:
    """Each text un-escaped (:func:`~qoe_analysis.io.csv_cells.unescape_text_cell`), any
    other value as it is."""
    return [unescape_text_cell(v) if isinstance(v, str) else v for v in values]


def _numeric_column(
    series: pd.Series, column: str, first_line: int | None
) -> np.ndarray[Any, np.dtype[np.float64]]:
    if pd.api.types.is_bool_dtype(series.dtype):
        raise RatingsValidationError("expected numbers, got booleans", column=column)
    if pd.api.types.is_numeric_dtype(series.dtype):
        return series.to_numpy(dtype=np.float64)
    converted = pd.to_numeric(series, errors="coerce")
    values = converted.to_numpy(dtype=np.float64)
    raw = series.to_numpy(dtype=object)
    fail_at(
        np.isnan(values),
        column,
        first_line,
        lambda pos: f"value {raw[pos]!r} is not a number",
    )
    return values


def _text_column(
    series: pd.Series, column: str, first_line: int | None, factorised: Factorised | None = None
) -> pd.Categorical:
    """Text factor as a Categorical with sorted str categories; missing/blank rejected.

    A value's level is its text ``str(value)``, so values with one text are one level
    (1 and "1"); the categories are the texts of the values that occur, sorted.
    ``factorised``: the column's :func:`_factorised` when the caller has it already."""
    codes, levels = factorised if factorised is not None else _codes_and_levels(series)
    fail_at(codes < 0, column, first_line, lambda pos: "missing value")
    # a category without rows (a study's game nobody has rated yet) is no level of the data
    codes, levels = _used_levels(codes, levels)
    texts = list(map(str, levels))
    if not all(map(str.strip, texts)):  # a blank text
        blank = np.array([t.strip() == "" for t in texts], dtype=bool)
        fail_at(blank[codes], column, first_line, lambda pos: "missing value")
    names = np.array(texts, dtype=object)
    if not _strictly_increasing(names):  # unsorted, or two values with one text
        names, inverse = np.unique(names, return_inverse=True)
        codes = inverse[codes]
    return pd.Categorical.from_codes(codes, categories=pd.Index(names, dtype=object))


def _codes_and_levels(series: pd.Series) -> tuple[np.ndarray[Any, Any], list[Any]]:
    """(code per row, −1 when missing; the distinct values the codes index).

    A categorical column has both already. A column of pandas' ``str`` dtype is
    factorised (as an object array, twice as fast) without sorting, since
    :func:`_text_column` sorts the texts anyway; any other column is grouped as
    ``pd.Categorical`` groups it (which may convert values, e.g. object 1 and 2.5 to
    floats)."""
    if isinstance(series.dtype, pd.StringDtype):
        return _factorised(series)
    cat = series.array if isinstance(series.dtype, pd.CategoricalDtype) else pd.Categorical(series)
    assert isinstance(cat, pd.Categorical)
    return np.asarray(cat.codes), cat.categories.tolist()


def _used_levels(
    codes: np.ndarray[Any, Any], levels: list[Any]
) -> tuple[np.ndarray[Any, Any], list[Any]]:
    """The levels that occur in ``codes`` (all ≥ 0), in their order, and the codes
    renumbered to them."""
    used = np.bincount(codes, minlength=len(levels)) > 0
    if used.all():
        return codes, levels
    renumber = np.cumsum(used) - 1
    return renumber[codes], [level for level, keep in zip(levels, used, strict=True) if keep]


def _strictly_increasing(names: np.ndarray[Any, Any]) -> bool:
    """Whether the texts are sorted and distinct, i.e. already what ``np.unique`` returns."""
    return names.size < 2 or bool(np.all(names[1:] > names[:-1]))


def validate_ratings(
    df: pd.DataFrame, *, first_line: int | None = None, sidecar: Sidecar | None = None
) -> pd.DataFrame:
    """Check the ratings table and return a copy with canonical dtypes.

    Rules: all required columns present and at least one factor column of the registry;
    no missing values (required or factor columns); numeric factors finite and within
    the registry's limits (the agent's: delay ≥ 0 ms, 0 ≤ loss ≤ 100 %…), nominal ones
    (``jitter_distribution``) one of the registry's choices; ``item`` (optional) a key of
    the ``sidecar``'s items, and the rating a value of its item's scale (no ``item``
    column: the one item "overall", an integer on the ACR scale 1–5, ITU-T P.800);
    ``training`` 0/1, ``response_ms``/``since_end_ms`` empty or ≥ 0, ``agent_backend``/
    ``agent_version`` any text (empty = unknown); ``game_pace`` one of
    fast/medium/slow; no duplicated (rater_id, session_id, scenario[, item, training])
    row; every scenario has one network condition, every session one rater and one game,
    every game one pace class.

    ``sidecar`` defaults to the one a previous validation stored (``table_sidecar``).

    ``first_line`` is the file line of the first data row (2 for a CSV with a header);
    when ``None`` it is taken from ``df.attrs`` if the table came from
    :func:`load_ratings`, else errors carry ``line=None`` and name the row position.
    """
    return _validated(df, first_line=first_line, sidecar=sidecar, factorised={})


def _validated(
    df: pd.DataFrame,
    *,
    first_line: int | None,
    sidecar: Sidecar | None,
    factorised: dict[str, Factorised],
) -> pd.DataFrame:
    """:func:`validate_ratings`, given the :func:`_factorised` text columns of ``df``."""
    if first_line is None:
        attr = df.attrs.get(_FIRST_LINE_ATTR)
        first_line = int(attr) if attr is not None else None
    if sidecar is None:
        sidecar = table_sidecar(df)
    if len(df.columns) == 0:
        raise RatingsValidationError("the ratings table has no columns", line=first_line)
    header_line = None if first_line is None else first_line - 1
    columns = [str(c) for c in df.columns]
    for column in REQUIRED_COLUMNS:
        if column not in columns:
            raise RatingsValidationError(
                "required column is missing", column=column, line=header_line
            )
    duplicated_names = {c for c in columns if columns.count(c) > 1}
    if duplicated_names:
        raise RatingsValidationError(
            "column appears more than once in the header",
            column=sorted(duplicated_names)[0],
            line=header_line,
        )
    factor_columns = factor_columns_in(columns)
    if not factor_columns:
        raise RatingsValidationError(
            "the table has no impairment factor column; it needs at least one column of the "
            "factor registry (netem_profile.factors: ds_/us_ + factor key, e.g. ds_delay_ms, "
            "us_loss_pct, ds_jitter_ms)",
            line=header_line,
        )
    if len(df) == 0:
        raise RatingsValidationError("the table contains no ratings", line=first_line)

    out: dict[str, Any] = {}
    nominal = {c for c in factor_columns if factor_of(c)[1].kind == "nominal"}
    numeric_factors = [c for c in factor_columns if c not in nominal]
    extra = [c for c in columns if c not in REQUIRED_COLUMNS]
    for column in [*REQUIRED_COLUMNS, *extra]:
        series = df[column]
        if column in ITEM_COLUMNS:
            out[column] = _item_column(series, column, first_line, factorised.get(column))
            continue
        if column in PROVENANCE_COLUMNS:
            out[column] = _provenance_column(series, factorised.get(column))
            continue
        numeric = column in numeric_factors or column == RATING
        is_number = pd.api.types.is_numeric_dtype(series.dtype) and not (
            pd.api.types.is_bool_dtype(series.dtype)
        )
        if numeric or (column not in _TEXT_COLUMNS and column not in nominal and is_number):
            fail_at(series.isna().to_numpy(), column, first_line, lambda pos: "missing value")
            out[column] = (
                _numeric_column(series, column, first_line)
                if numeric
                else series.to_numpy(dtype=np.float64)
            )
        else:
            out[column] = _text_column(series, column, first_line, factorised.get(column))
    rating = out[RATING]
    explicit = ITEM in out
    keys = (
        check_item_keys(out[ITEM], sidecar, first_line)
        if explicit
        # one key for every row: a broadcast view (np.full of an object costs 0.1 s at 1 M)
        else np.broadcast_to(
            np.array(implied_item(sidecar, first_line), dtype=object), rating.shape
        )
    )
    integer = check_ratings_on_scales(rating, keys, sidecar, explicit, first_line)
    for column in numeric_factors:
        _check_range(out[column], column, first_line)
    for column in nominal:
        _check_choice(out[column], column, first_line)
    pace = out[PACE]
    fail_at(
        ~np.isin(pace.categories, PACE_CLASSES)[pace.codes],
        PACE,
        first_line,
        lambda pos: f"pace {pace[pos]!r} is not one of {', '.join(PACE_CLASSES)}",
    )

    table = pd.DataFrame(out)
    if integer:
        table[RATING] = table[RATING].astype(np.int64)
    check_unique_slots(table, first_line)
    check_functional(table, [SCENARIO], factor_columns, first_line)
    check_functional(table, [RATER, SESSION], [GAME], first_line)
    check_functional(table, [GAME], [PACE], first_line)
    table.attrs[_FIRST_LINE_ATTR] = first_line
    table.attrs[_SIDECAR_ATTR] = sidecar
    table.attrs[_VALIDATED_ATTR] = weakref.ref(table)
    return table


def _provenance_column(series: pd.Series, factorised: Factorised | None = None) -> pd.Categorical:
    """``agent_backend``/``agent_version``: free text, empty = unknown (never a factor).

    A value's text is ``str(value).strip()``, a missing value's "". A column of pandas'
    ``str`` dtype is worked out on its distinct values (a few backends and versions)
    and the rows get their codes."""
    if not isinstance(series.dtype, pd.StringDtype):
        return pd.Categorical(_provenance_text(series))
    codes, uniques = factorised if factorised is not None else _factorised(series)
    missing = codes < 0
    distinct = [*uniques, *([None] if missing.any() else [])]
    levels = pd.Categorical(_provenance_text(pd.Series(distinct, dtype=series.dtype)))
    rows = np.where(missing, len(uniques), codes)
    return pd.Categorical.from_codes(np.asarray(levels.codes)[rows], categories=levels.categories)


def _provenance_text(series: pd.Series) -> pd.Series:
    return series.astype(object).where(series.notna(), "").map(lambda v: str(v).strip())


def _item_column(
    series: pd.Series, column: str, first_line: int | None, factorised: Factorised | None
) -> Any:
    if column == ITEM:
        return _text_column(series, column, first_line, factorised)
    if column == TRAINING:
        return training_column(series, first_line)
    assert column in (RESPONSE_MS, SINCE_END_MS)
    return duration_column(series, column, first_line)


def _check_range(
    values: np.ndarray[Any, np.dtype[np.float64]], column: str, first_line: int | None
) -> None:
    """A numeric factor lies within the registry's (the agent's) limits."""
    _, factor = factor_of(column)
    lo = -np.inf if factor.minimum is None else factor.minimum
    hi = np.inf if factor.maximum is None else factor.maximum
    unit = f" {factor.unit}" if factor.unit else ""
    limits = f"[{lo:g}, {hi:g}]{unit}"
    fail_at(
        ~np.isfinite(values) | (values < lo) | (values > hi),
        column,
        first_line,
        lambda pos: (
            f"{factor.label.lower()} {values[pos]:g}{unit} must be finite and "
            f">= {lo:g}; the registry's range is {limits}"
        ),
    )


def _check_choice(values: pd.Categorical, column: str, first_line: int | None) -> None:
    """A nominal factor takes one of the registry's choices."""
    _, factor = factor_of(column)
    allowed = np.isin(np.asarray(values.categories, dtype=object), factor.choices)
    fail_at(
        ~allowed[np.asarray(values.codes)],
        column,
        first_line,
        lambda pos: (
            f"{factor.label.lower()} {values[pos]!r} is not one of {', '.join(factor.choices)}"
        ),
    )
