"""Validating the tidy ratings table (reading a CSV: :mod:`qoe_analysis.io.ratings_csv`).

One row per rating with the columns of :data:`qoe_analysis.tidy.columns.REQUIRED_COLUMNS`
and at least one impairment factor column of the registry (:mod:`netem_profile.factors`:
``ds_delay_ms``, ``us_jitter_ms``, ``ds_ge_p_pct``…; any subset); any further column is a
per-rater or per-session factor. Validation is all-or-nothing: one
:class:`RatingsValidationError` lists every problem with its column and CSV line (1-based,
the header is line 1), located only when there is one (a clean column costs one pass).
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
import pandas as pd

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
from qoe_analysis.tidy.errors import Found, RatingsValidationError, fail_at
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
    "table_sidecar",
    "validate_ratings",
]

_TEXT_COLUMNS = (RATER, SESSION, GAME, PACE, SCENARIO)
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


def _factorised(series: pd.Series) -> Factorised:
    """(code per row, −1 when missing; the distinct values in order of appearance) of a
    text column, hashing only the first row of each run of equal values (a rater's rows
    one after another; :func:`~qoe_analysis.tabular.factorize_in_runs`)."""
    codes, uniques = factorize_in_runs(series.to_numpy(dtype=object))
    return np.asarray(codes), list(uniques.tolist())


def _numeric_column(
    series: pd.Series, column: str, first_line: int | None, found: Found
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """The column as float64: NaN where a value is missing (reported by the caller) or no
    number (reported here); a boolean column is refused as a whole."""
    if pd.api.types.is_bool_dtype(series.dtype):
        found.add("expected numbers, got booleans", column=column)
        return np.full(len(series), np.nan)
    if pd.api.types.is_numeric_dtype(series.dtype):
        return series.to_numpy(dtype=np.float64)
    converted = pd.to_numeric(series, errors="coerce")
    values = converted.to_numpy(dtype=np.float64)
    nan = np.isnan(values)
    if nan.any():  # a missing value is no "value 'nan'": the caller said it is missing
        raw = series.to_numpy(dtype=object)
        fail_at(
            nan & series.notna().to_numpy(),
            column,
            first_line,
            lambda pos: f"value {raw[pos]!r} is not a number",
            found,
        )
    return values


def _text_column(
    series: pd.Series, column: str, first_line: int | None, found: Found | None = None
) -> pd.Categorical:
    """Text factor as a Categorical with sorted str categories; missing/blank rejected.

    A value's level is its text ``str(value)``, so values with one text are one level
    (1 and "1"); the categories are the texts of the values that occur, sorted. A
    missing or blank value reported in ``found`` has code −1 (no level)."""
    codes, levels = _codes_and_levels(series)
    missing = fail_at(codes < 0, column, first_line, lambda pos: "missing value", found)
    # a category without rows (a study's game nobody has rated yet) is no level of the data
    codes, levels = _used_levels(codes, levels, missing)
    texts = list(map(str, levels))
    if not all(map(str.strip, texts)):  # a blank text
        blank = np.array([t.strip() == "" for t in texts] + [False], dtype=bool)
        fail_at(blank[codes], column, first_line, lambda pos: "missing value", found)
        codes = np.where(blank[codes], -1, codes)
    names = np.array(texts, dtype=object)
    if not _strictly_increasing(names):  # unsorted, or two values with one text
        names, inverse = np.unique(names, return_inverse=True)
        codes = np.append(inverse, -1)[codes]  # code −1 (reported) stays −1
    return pd.Categorical.from_codes(codes, categories=pd.Index(names, dtype=object))


def _codes_and_levels(series: pd.Series) -> tuple[np.ndarray[Any, Any], list[Any]]:
    """(code per row, −1 when missing; the distinct values the codes index).

    A categorical column has both already. A column of pandas' ``str`` dtype is
    factorised (:func:`_factorised`) without sorting, since
    :func:`_text_column` sorts the texts anyway; any other column is grouped as
    ``pd.Categorical`` groups it (which may convert values, e.g. object 1 and 2.5 to
    floats)."""
    if isinstance(series.dtype, pd.StringDtype):
        return _factorised(series)
    cat = series.array if isinstance(series.dtype, pd.CategoricalDtype) else pd.Categorical(series)
    assert isinstance(cat, pd.Categorical)
    return np.asarray(cat.codes), cat.categories.tolist()


def _used_levels(
    codes: np.ndarray[Any, Any], levels: list[Any], missing: bool = False
) -> tuple[np.ndarray[Any, Any], list[Any]]:
    """The levels that occur in ``codes`` (all ≥ 0 unless ``missing``: then −1 stays −1),
    in their order, and the codes renumbered to them."""
    used = np.bincount(codes[codes >= 0] if missing else codes, minlength=len(levels)) > 0
    if used.all():
        return codes, levels
    renumber = np.append(np.cumsum(used) - 1, -1)
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

    Every problem is reported at once (issue 32, item 3) in one error (``problems``,
    ``total``), in stages that each wait for a clean one before, as they depend on it:
    the header (every missing required column, repeated name, no factor column), then no
    rows; every cell (one problem per cell: a rating that is no number is not also off
    its scale); the design rules (slots, one condition/game/pace), on clean values.

    ``sidecar`` defaults to the one a previous validation stored (``table_sidecar``).

    ``first_line`` is the file line of the first data row (2 for a CSV with a header);
    when ``None`` it is taken from ``df.attrs`` if the table came from
    :func:`~qoe_analysis.io.ratings_csv.load_ratings`, else errors carry ``line=None``
    and name the row position.
    """
    if first_line is None:
        attr = df.attrs.get(_FIRST_LINE_ATTR)
        first_line = int(attr) if attr is not None else None
    if sidecar is None:
        sidecar = table_sidecar(df)
    columns, factor_columns = _check_header(df, first_line)
    found = Found()
    out = _cells(df, columns, factor_columns, first_line, found)
    integer = _check_ratings(out, sidecar, first_line, found)
    found.raise_if_any()  # the design rules compare clean values

    table = pd.DataFrame(out)
    if integer:
        table[RATING] = table[RATING].astype(np.int64)
    check_unique_slots(table, first_line, found)
    check_functional(table, [SCENARIO], factor_columns, first_line, found)
    check_functional(table, [RATER, SESSION], [GAME], first_line, found)
    check_functional(table, [GAME], [PACE], first_line, found)
    found.raise_if_any()
    table.attrs[_FIRST_LINE_ATTR] = first_line
    table.attrs[_SIDECAR_ATTR] = sidecar
    table.attrs[_VALIDATED_ATTR] = weakref.ref(table)
    return table


def _check_header(df: pd.DataFrame, first_line: int | None) -> tuple[list[str], list[str]]:
    """(column names, factor columns): every problem of the header at once, then a table
    without rows."""
    if len(df.columns) == 0:
        raise RatingsValidationError("the ratings table has no columns", line=first_line)
    header_line = None if first_line is None else first_line - 1
    columns = [str(c) for c in df.columns]
    found = Found()
    for column in REQUIRED_COLUMNS:
        if column not in columns:
            found.add("required column is missing", column=column, line=header_line)
    for column in sorted({c for c in columns if columns.count(c) > 1}):
        found.add("column appears more than once in the header", column=column, line=header_line)
    factor_columns = factor_columns_in(columns)
    if not factor_columns:
        found.add(
            "the table has no impairment factor column; it needs at least one column of the "
            "factor registry (netem_profile.factors: ds_/us_ + factor key, e.g. ds_delay_ms, "
            "us_loss_pct, ds_jitter_ms)",
            line=header_line,
        )
    found.raise_if_any()
    if len(df) == 0:
        raise RatingsValidationError("the table contains no ratings", line=first_line)
    return columns, factor_columns


def _cells(
    df: pd.DataFrame,
    columns: list[str],
    factor_columns: list[str],
    first_line: int | None,
    found: Found,
) -> dict[str, Any]:
    """Every column in its canonical form; the problems of its cells go to ``found``."""
    out: dict[str, Any] = {}
    nominal = {c for c in factor_columns if factor_of(c)[1].kind == "nominal"}
    numeric_factors = [c for c in factor_columns if c not in nominal]
    extra = [c for c in columns if c not in REQUIRED_COLUMNS]
    for column in [*REQUIRED_COLUMNS, *extra]:
        series = df[column]
        if column in ITEM_COLUMNS:
            out[column] = _item_column(series, column, first_line, found)
            continue
        if column in PROVENANCE_COLUMNS:
            out[column] = _provenance_column(series)
            continue
        numeric = column in numeric_factors or column == RATING
        is_number = pd.api.types.is_numeric_dtype(series.dtype) and not (
            pd.api.types.is_bool_dtype(series.dtype)
        )
        if numeric or (column not in _TEXT_COLUMNS and column not in nominal and is_number):
            where = (column, first_line)
            fail_at(series.isna().to_numpy(), *where, lambda pos: "missing value", found)
            out[column] = (
                _numeric_column(series, *where, found)
                if numeric
                else series.to_numpy(dtype=np.float64)
            )
        else:
            out[column] = _text_column(series, column, first_line, found)
    for column in numeric_factors:
        _check_range(out[column], column, first_line, found)
    for column in nominal:
        _check_choice(out[column], column, first_line, found)
    pace = out[PACE]
    valid = _on_rows(np.isin(pace.categories, PACE_CLASSES), pace.codes)
    rule = f"is not one of {', '.join(PACE_CLASSES)}"
    fail_at(~valid, PACE, first_line, lambda pos: f"pace {pace[pos]!r} {rule}", found)
    return out


def _on_rows(per_level: np.ndarray[Any, Any], codes: Any) -> np.ndarray[Any, Any]:
    """A flag per category for every row; True at code −1 (missing, reported already)."""
    flags: np.ndarray[Any, Any] = np.append(per_level, True)[np.asarray(codes)]
    return flags


def _check_ratings(
    out: dict[str, Any], sidecar: Sidecar, first_line: int | None, found: Found
) -> bool:
    """The items and each rating on its item's scale; whether every item is discrete.
    No scale is checked when the sidecar implies no item (a header problem, recorded)."""
    rating = out[RATING]
    explicit = ITEM in out
    if explicit:
        keys = check_item_keys(out[ITEM], sidecar, first_line, found)
    else:
        try:
            key = implied_item(sidecar, first_line)
        except RatingsValidationError as exc:
            found.extend(exc)
            return False
        # one key for every row: a read-only broadcast view, not an object array per row
        keys = np.broadcast_to(np.array(key, dtype=object), rating.shape)
    return check_ratings_on_scales(rating, keys, sidecar, (explicit, first_line), found)


def _provenance_column(series: pd.Series) -> pd.Categorical:
    """``agent_backend``/``agent_version``: free text, empty = unknown (never a factor).

    A value's text is ``str(value).strip()``, a missing value's "". A categorical column
    or one of pandas' ``str`` dtype is worked out on its distinct values (a few backends
    and versions) and the rows get their codes."""
    if not isinstance(series.dtype, pd.StringDtype | pd.CategoricalDtype):
        return pd.Categorical(_provenance_text(series))
    codes, uniques = _codes_and_levels(series)
    missing = codes < 0
    distinct = [*uniques, *([None] if missing.any() else [])]
    levels = pd.Categorical(_provenance_text(pd.Series(distinct, dtype=object)))
    rows = np.where(missing, len(uniques), codes)
    return pd.Categorical.from_codes(np.asarray(levels.codes)[rows], categories=levels.categories)


def _provenance_text(series: pd.Series) -> pd.Series:
    return series.astype(object).where(series.notna(), "").map(lambda v: str(v).strip())


def _item_column(series: pd.Series, column: str, first_line: int | None, found: Found) -> Any:
    if column == ITEM:
        return _text_column(series, column, first_line, found)
    if column == TRAINING:
        return training_column(series, first_line, found)
    assert column in (RESPONSE_MS, SINCE_END_MS)
    return duration_column(series, column, first_line, found)


def _check_range(
    values: np.ndarray[Any, np.dtype[np.float64]],
    column: str,
    first_line: int | None,
    found: Found,
) -> None:
    """A numeric factor lies within the registry's (the agent's) limits. A NaN (missing,
    or no number) was reported by the column's own check."""
    _, factor = factor_of(column)
    lo = -np.inf if factor.minimum is None else factor.minimum
    hi = np.inf if factor.maximum is None else factor.maximum
    unit = f" {factor.unit}" if factor.unit else ""
    limits = f"[{lo:g}, {hi:g}]{unit}"
    what = factor.label.lower()
    fail_at(
        np.isinf(values) | (values < lo) | (values > hi),
        column,
        first_line,
        lambda pos: (
            f"{what} {values[pos]:g}{unit} is outside the registry's range {limits}"
            if np.isfinite(values[pos])
            else f"{what} {values[pos]:g} is not a finite number"
        ),
        found,
    )


def _check_choice(
    values: pd.Categorical, column: str, first_line: int | None, found: Found
) -> None:
    """A nominal factor takes one of the registry's choices."""
    _, factor = factor_of(column)
    allowed = np.isin(np.asarray(values.categories, dtype=object), factor.choices)
    fail_at(
        ~_on_rows(allowed, values.codes),
        column,
        first_line,
        lambda pos: (
            f"{factor.label.lower()} {values[pos]!r} is not one of {', '.join(factor.choices)}"
        ),
        found,
    )
