"""The document's ``meta.dataset``: how a dataset read by a descriptor became the analysed
table (:mod:`qoe_analysis.dataset`; docs/importing-data.md). Absent for a tidy CSV."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

__all__ = ["DatasetFile", "DatasetRatings", "DatasetSummary"]


class DatasetFile(TypedDict):
    """One data file: rows read (blank lines skipped), ratings kept and dropped, raters,
    the columns it has that the descriptor does not declare and the fields it lacks."""

    path: str
    namespace: str | None
    context: dict[str, float | str]
    rows: int
    blank_rows: int
    ratings_kept: int
    ratings_dropped: int
    n_raters: int
    undeclared_columns: list[str]
    missing_fields: list[str]


class DatasetRatings(TypedDict):
    """Rating cells read (rows × rating fields), kept, and dropped per reason."""

    read: int
    kept: int
    dropped: int
    dropped_by_reason: dict[str, int]


class DatasetSummary(TypedDict):
    """``missing``: missing cells per declared column over all files; ``unanswered``: per
    questionnaire column, the raters without an answer (analysed as the level
    "(missing)"); ``field_columns``: the tidy columns each field became (a covariate: none,
    it is kept beside the ratings); ``rater_namespaces``: raters per namespace ("" = none)."""

    name: str | None
    title: str | None
    files: list[DatasetFile]
    ratings: DatasetRatings
    items: list[str]
    missing: dict[str, int]
    unanswered: dict[str, int]
    undeclared_columns: list[str]
    rater_namespaces: dict[str, int]
    n_raters: int
    n_sessions: int
    n_conditions: int
    sessions: Literal["column", "derived"]
    sessions_from_repeats: int
    scenarios: Literal["column", "generated"]
    pace: Literal["column", "game_paces", "assumed"]
    field_columns: dict[str, list[str]]
    questionnaire: list[str]
    covariates: list[str]
    context: list[str]
    ignored: list[str]
