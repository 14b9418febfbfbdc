"""Loading and validating the tidy ratings table.

One row per rating with the columns of :data:`qoe_analysis.tidy_columns.REQUIRED_COLUMNS`
and at least one impairment factor column of the registry (:mod:`netem_profile.factors`:
``ds_delay_ms``, ``us_jitter_ms``, ``ds_ge_p_pct``…; any subset); any further column is a
per-rater or per-session factor. Validation is all-or-nothing: the first
problem found raises :class:`RatingsValidationError` naming the column and the CSV line
(1-based, the header is line 1), and no result is computed from a table that failed.
"""

from __future__ import annotations

import os
import re
import weakref
from collections.abc import Sequence
from typing import IO, Any

import numpy as np
import pandas as pd

from qoe_analysis.csv_cells import unescape_text_cell
from qoe_analysis.design import (
    GAME,
    PACE,
    PACE_CLASSES,
    RATER,
    RATING,
    REQUIRED_COLUMNS,
    SCENARIO,
    SESSION,
)
from qoe_analysis.item_validation import (
    check_item_keys,
    check_ratings_on_scales,
    duration_column,
    implied_item,
    training_column,
)
from qoe_analysis.scales import Sidecar, default_sidecar
from qoe_analysis.study_factors import factor_columns_in, factor_of
from qoe_analysis.tabular import column_codes, group_codes
from qoe_analysis.tidy_columns import (
    ITEM,
    ITEM_COLUMNS,
    PROVENANCE_COLUMNS,
    RESPONSE_MS,
    SINCE_END_MS,
    TRAINING,
)
from qoe_analysis.validation_errors import RatingsValidationError, fail_at, line_of

__all__ = [
    "RatingsValidationError",
    "is_validated",
    "load_ratings",
    "table_sidecar",
    "validate_ratings",
]

_TEXT_COLUMNS = (RATER, SESSION, GAME, PACE, SCENARIO)
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

    The text columns are read as categoricals, so the parser stores each distinct rater,
    session, game… once and un-escaping touches the distinct values only.
    """
    try:
        raw = pd.read_csv(
            source,
            dtype=dict.fromkeys((*_TEXT_COLUMNS, ITEM), "category"),
            skip_blank_lines=False,
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
    # Trailing blank lines are harmless; blank lines inside the table are reported.
    blank = raw.isna().all(axis=1).to_numpy()
    n_keep = len(blank)
    while n_keep > 0 and blank[n_keep - 1]:
        n_keep -= 1
    if n_keep < len(raw):
        raw = raw.iloc[:n_keep]
    return validate_ratings(_unescaped(raw), first_line=2, sidecar=sidecar)


def _unescaped(raw: pd.DataFrame) -> pd.DataFrame:
    """Text cells back as they were before the export escaped them against spreadsheet
    formulas (:mod:`qoe_analysis.csv_cells`): a game ``'=x`` in the file is ``=x``.

    Each distinct text is un-escaped once (a column of a million ratings has a few
    thousand distinct raters and a handful of games); the column is rebuilt only when a
    value changed."""
    for column in raw.columns:
        series = raw[column]
        if isinstance(series.dtype, pd.CategoricalDtype):
            raw[column] = _unescaped_categorical(series.array)
        elif pd.api.types.is_object_dtype(series.dtype) or pd.api.types.is_string_dtype(
            series.dtype
        ):
            raw[column] = _unescaped_categorical(pd.Categorical(series), like=series)
    return raw


def _unescaped_categorical(cat: Any, like: pd.Series | None = None) -> Any:
    """``cat`` (a Categorical) with its categories un-escaped; two categories that become
    equal are merged. With ``like`` (the original text column) the result is that column
    when nothing changed, else the un-escaped values in its dtype."""
    names = cat.categories.to_numpy(dtype=object).tolist()  # faster than iterating the Index
    fixed = [unescape_text_cell(c) if isinstance(c, str) else c for c in names]
    if fixed == names:
        return cat if like is None else like
    uniques, inverse = np.unique(np.asarray(fixed, dtype=object), return_inverse=True)
    codes = np.asarray(cat.codes, dtype=np.int64)
    merged = pd.Categorical.from_codes(
        np.where(codes >= 0, inverse[np.maximum(codes, 0)], -1),
        categories=pd.Index(uniques, dtype=object),
    )
    if like is None:
        return merged
    values = np.asarray(merged, dtype=object)
    return pd.Series(values, index=like.index, dtype=like.dtype).where(like.notna(), like)


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


def _text_column(series: pd.Series, column: str, first_line: int | None) -> pd.Categorical:
    """Text factor as a Categorical with sorted str categories; missing/blank rejected."""
    cat = series.array if isinstance(series.dtype, pd.CategoricalDtype) else pd.Categorical(series)
    assert isinstance(cat, pd.Categorical)
    # a category without rows (a study's game nobody has rated yet) is no level of the data
    cat = cat.remove_unused_categories()
    codes = np.asarray(cat.codes, dtype=np.int64)
    fail_at(codes < 0, column, first_line, lambda pos: "missing value")
    names = np.array([str(c) for c in cat.categories], dtype=object)
    blank = np.array([n.strip() == "" for n in names], dtype=bool)
    if blank.any():
        fail_at(blank[codes], column, first_line, lambda pos: "missing value")
    uniques, inverse = np.unique(names, return_inverse=True)  # also merges 1 and "1"
    return pd.Categorical.from_codes(inverse[codes], categories=pd.Index(uniques, dtype=object))


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
            out[column] = _item_column(series, column, first_line)
            continue
        if column in PROVENANCE_COLUMNS:
            out[column] = _provenance_column(series)
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
            out[column] = _text_column(series, column, first_line)
    rating = out[RATING]
    explicit = ITEM in out
    keys = (
        check_item_keys(out[ITEM], sidecar, first_line)
        if explicit
        else np.full(len(rating), implied_item(sidecar, first_line), dtype=object)
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
    _check_duplicates(table, first_line)
    _check_functional(table, [SCENARIO], factor_columns, first_line)
    _check_functional(table, [RATER, SESSION], [GAME], first_line)
    _check_functional(table, [GAME], [PACE], first_line)
    table.attrs[_FIRST_LINE_ATTR] = first_line
    table.attrs[_SIDECAR_ATTR] = sidecar
    table.attrs[_VALIDATED_ATTR] = weakref.ref(table)
    return table


def _provenance_column(series: pd.Series) -> pd.Categorical:
    """``agent_backend``/``agent_version``: free text, empty = unknown (never a factor)."""
    text = series.astype(object).where(series.notna(), "").map(lambda v: str(v).strip())
    return pd.Categorical(text)


def _item_column(series: pd.Series, column: str, first_line: int | None) -> Any:
    if column == ITEM:
        return _text_column(series, column, first_line)
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


def _check_duplicates(table: pd.DataFrame, first_line: int | None) -> None:
    slot = [RATER, SESSION, SCENARIO, *(c for c in (ITEM, TRAINING) if c in table.columns)]
    codes, _ = group_codes(table, slot)
    dup = pd.Series(codes).duplicated(keep="first").to_numpy()
    if dup.any():
        pos = int(np.flatnonzero(dup)[0])
        first = int(np.flatnonzero(codes == codes[pos])[0])
        row = table.iloc[pos]
        where = f"line {line_of(first_line, first)}" if first_line is not None else f"row {first}"
        item = f", item {row[ITEM]!r}" if ITEM in table.columns else ""
        raise RatingsValidationError(
            f"duplicated rating of rater {row[RATER]!r}, session {row[SESSION]!r}, "
            f"scenario {row[SCENARIO]!r}{item} (first given at {where})",
            column=SCENARIO,
            line=line_of(first_line, pos),
        )


def _check_functional(
    table: pd.DataFrame, key: Sequence[str], dependents: Sequence[str], first_line: int | None
) -> None:
    """Every value of the ``key`` columns must come with one value of each dependent column."""
    codes, _ = group_codes(table, key)
    running = np.maximum.accumulate(codes)
    is_first = np.ones(codes.size, dtype=bool)
    is_first[1:] = codes[1:] > running[:-1]
    first_pos = np.flatnonzero(is_first)[codes]  # position of each row's group's first row
    for column in dependents:
        values, _ = column_codes(table[column])
        mismatch = values != values[first_pos]
        if mismatch.any():
            pos = int(np.flatnonzero(mismatch)[0])
            name = "/".join(key)
            key_value = "/".join(str(table[k].iloc[pos]) for k in key)
            here, there = table[column].iloc[pos], table[column].iloc[int(first_pos[pos])]
            raise RatingsValidationError(
                f"{name} {key_value!r} has {column}={here!r} here but {there!r} on its "
                f"first row; each {name} must have one {column}",
                column=column,
                line=line_of(first_line, pos),
            )
