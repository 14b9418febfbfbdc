"""The design of the merged rows: per-rater answers, conditions and scenario codes,
sessions and pace classes, then the design rules (docs/importing-data.md).

* **Questionnaire answers** belong to a rater's session (one answer per session, as QoE
  Lab's own questionnaire before each session; a dataset's per-player answers are the same
  in every session): the answers within a session must agree, and a row without one takes
  its session's answer, else the rater's when the rater gave one answer only. A gap left
  stays a gap; a column with gaps is analysed as a nominal factor whose levels are the
  answers' texts and ``(missing)`` (a gap counts as a value of its own, as Weka's
  InfoGainAttributeEval ``-M`` counts it): no rating is dropped for a gap, and a numeric
  answer loses its order then.
* **Conditions** are the factor values of a rating. Without a scenario column each distinct
  condition *rated* (a row of it keeps at least one rating) gets a code ``C0001``,
  ``C0002``… in sorted order of its factor values (registry column order), so the codes
  depend on the set of rated conditions only, not on the row order; a condition whose
  ratings are all missing gets none (it has nothing to analyse, and the web import makes a
  scenario per code). With one, a scenario must have one condition.
* **Sessions**: without a session column, a rater's rows of one game in one file are one
  session in file order, and a new session starts at a row whose condition the current
  session has rated already (a rater may rate a condition more than once; within a session
  the analysis takes each condition once). Session ids are ``<rater>.s<n>`` (n counts the
  rater's sessions in file order). A declared session id becomes ``<rater>.<session>``;
  each session has one game.
* **Pace**: the pace column, else the descriptor's ``game_paces``, else ``medium`` for every
  game (the middle class; the warning ``assumed_pace`` says so). Each game has one pace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from qoe_analysis.dataset.part import FILE, LINE, slug
from qoe_analysis.dataset.problems import Problems
from qoe_analysis.tidy.design import GAME, PACE, RATER, SCENARIO, SESSION

__all__ = [
    "ASSUMED_PACE",
    "MISSING_LEVEL",
    "Where",
    "assign_pace",
    "check_one_per",
    "check_unique_slots",
    "condition_keys",
    "declared_sessions",
    "derive_sessions",
    "per_rater_answers",
    "rated_conditions",
    "scenario_codes",
]

Array = np.ndarray[Any, Any]
MISSING_LEVEL = "(missing)"
ASSUMED_PACE = "medium"


class Where:
    """File and line of each merged row, and the file's name of each tidy column, for
    problems."""

    def __init__(
        self, wide: pd.DataFrame, files: Sequence[str], names: Mapping[str, str] | None = None
    ) -> None:
        self.files = files
        self.names = names or {}
        self.file_idx = wide[FILE].to_numpy()
        self.lines = wide[LINE].to_numpy()

    def name(self, column: str) -> str:
        """The data files' name of a tidy column (its field's name)."""
        return self.names.get(column, column)

    def add(self, problems: Problems, pos: int, rule: str, column: str, value: Any) -> None:
        problems.add(
            rule,
            file=self.files[int(self.file_idx[pos])],
            line=int(self.lines[pos]),
            column=self.name(column),
            value=None if value is None else _text(value),
        )


def _text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _missing(values: Array) -> Array:
    """None or NaN (pandas may turn one into the other when frames are stacked)."""
    return np.asarray(pd.isna(values), dtype=bool)


def per_rater_answers(
    wide: pd.DataFrame, column: str, where: Where, problems: Problems
) -> tuple[Array, int]:
    """The column with the gaps filled (see the module docstring), and the raters left
    with a gap; a gap left is the level :data:`MISSING_LEVEL` (the column then as texts).
    Needs the session column."""
    values = wide[column].to_numpy()
    missing = _missing(values)
    raters = wide[RATER].to_numpy(dtype=object)
    sessions = wide[SESSION].to_numpy(dtype=object)
    in_session: dict[str, tuple[Any, int]] = {}
    of_rater: dict[str, set[Any]] = {}
    for pos in np.flatnonzero(~missing).tolist():
        session, value = sessions[pos], values[pos]
        of_rater.setdefault(raters[pos], set()).add(value)
        first = in_session.setdefault(session, (value, pos))
        if first[0] != value:
            where.add(
                problems,
                pos,
                f"a questionnaire answer is one per session: rater {raters[pos]} answered "
                f"'{_text(first[0])}' on line {int(where.lines[first[1]])}",
                column,
                value,
            )
    only = {r: next(iter(v)) for r, v in of_rater.items() if len(v) == 1}
    filled = np.array(
        [
            values[pos] if not missing[pos] else in_session.get(s, (only.get(r),))[0]
            for pos, (r, s) in enumerate(zip(raters.tolist(), sessions.tolist(), strict=True))
        ],
        dtype=object,
    )
    gaps = np.asarray(pd.isna(filled), dtype=bool)
    if not gaps.any():
        return (filled.astype(np.float64) if values.dtype.kind == "f" else filled), 0
    texts = np.array(
        [MISSING_LEVEL if g else _text(v) for v, g in zip(filled, gaps, strict=True)], dtype=object
    )
    return texts, len(set(raters[gaps].tolist()))


def scenario_codes(
    wide: pd.DataFrame, factor_columns: list[str], rated: Array
) -> tuple[Array, int]:
    """``C0001``… per distinct condition of the ``rated`` rows, in sorted order of the factor
    values (see the module docstring), and how many there are; an unrated row gets None."""
    groups = wide[rated].groupby(factor_columns, sort=True, dropna=False).ngroup().to_numpy()
    n = int(groups.max()) + 1 if groups.size else 0
    width = max(4, len(str(n)))
    names = np.array([f"C{k + 1:0{width}d}" for k in range(n)], dtype=object)
    codes = np.full(len(wide), None, dtype=object)
    codes[rated] = names[groups]
    return codes, n


def rated_conditions(wide: pd.DataFrame, factor_columns: list[str], rated: Array) -> int:
    """How many distinct conditions the ``rated`` rows have (a declared scenario column's
    count, as :func:`scenario_codes` counts generated ones)."""
    return int(wide[rated].groupby(factor_columns, dropna=False).ngroups)


def condition_keys(wide: pd.DataFrame, factor_columns: list[str]) -> Array:
    """An integer per distinct condition (unsorted)."""
    return np.asarray(wide.groupby(factor_columns, sort=False, dropna=False).ngroup())


def derive_sessions(wide: pd.DataFrame, condition: Array) -> tuple[Array, int]:
    """Session ids ``<rater>.s<n>`` (see the module docstring) and how many sessions began
    at a repeated condition."""
    raters = wide[RATER].to_numpy(dtype=object).tolist()
    games = wide[GAME].to_numpy(dtype=object).tolist()
    files = wide[FILE].to_numpy().tolist()
    counts: dict[str, int] = {}
    open_: dict[tuple[Any, ...], tuple[str, set[int]]] = {}
    out = np.empty(len(raters), dtype=object)
    repeats = 0
    for pos, (rater, game, file, cond) in enumerate(
        zip(raters, games, files, condition.tolist(), strict=True)
    ):
        key = (file, rater, game)
        current = open_.get(key)
        if current is not None and cond in current[1]:
            repeats += 1
            current = None
        if current is None:
            counts[rater] = counts.get(rater, 0) + 1
            current = open_[key] = (f"{rater}.s{counts[rater]}", set())
        current[1].add(cond)
        out[pos] = current[0]
    return out, repeats


def declared_sessions(wide: pd.DataFrame) -> Array:
    """``<rater>.<session>``: a session id names a session of its rater only."""
    raters = wide[RATER].to_numpy(dtype=object).tolist()
    sessions = wide[SESSION].to_numpy(dtype=object).tolist()
    return np.array(
        [f"{r}.{slug(str(s)) or 's'}" for r, s in zip(raters, sessions, strict=True)], dtype=object
    )


def check_one_per(
    wide: pd.DataFrame,
    key: str,
    dependents: list[str],
    rule: str,
    where: Where,
    problems: Problems,
) -> None:
    """Every value of ``key`` comes with one value of each dependent column (the first
    row's): each row that differs is a problem naming the first row's line."""
    first = wide.groupby(key, sort=False, dropna=False).cumcount().to_numpy() == 0
    keys = wide[key].to_numpy(dtype=object)
    firsts = {k: pos for pos, k in enumerate(keys.tolist()) if first[pos]}
    for column in dependents:
        values = wide[column].to_numpy()
        ref = np.array([values[firsts[k]] for k in keys.tolist()], dtype=values.dtype)
        differs = values != ref
        if values.dtype.kind == "f":
            differs &= ~(np.isnan(values) & np.isnan(ref))
        for pos in np.flatnonzero(differs).tolist():
            line = int(where.lines[firsts[keys[pos]]])
            where.add(
                problems,
                pos,
                f"{rule}: {where.name(key)} '{keys[pos]}' has {where.name(column)} "
                f"'{_text(ref[pos])}' on line {line}",
                column,
                values[pos],
            )


def assign_pace(
    wide: pd.DataFrame, game_paces: dict[str, str], where: Where, problems: Problems
) -> Literal["column", "game_paces", "assumed"]:
    """Set the pace column when the data has none; returns how the pace was given."""
    if PACE in wide.columns:
        check_one_per(wide, GAME, [PACE], "each game has one pace", where, problems)
        return "column"
    games = wide[GAME].to_numpy(dtype=object)
    if not game_paces:
        wide[PACE] = ASSUMED_PACE
        return "assumed"
    unknown = {}
    for pos, game in enumerate(games.tolist()):
        if game not in game_paces and game not in unknown:
            unknown[game] = pos
            where.add(problems, pos, "game_paces gives no pace for this game", GAME, game)
    wide[PACE] = [game_paces.get(g, ASSUMED_PACE) for g in games.tolist()]
    return "game_paces"


def check_unique_slots(
    long: pd.DataFrame, slot: list[str], where: Where, problems: Problems
) -> None:
    """A rater rates a scenario (and item) once per session."""
    dup = long.duplicated(slot, keep="first").to_numpy()
    if not dup.any():
        return
    first = long.groupby(slot, sort=False).cumcount().to_numpy() == 0
    keys = list(long[slot].itertuples(index=False, name=None))
    firsts = {k: pos for pos, k in enumerate(keys) if first[pos]}
    for pos in np.flatnonzero(dup).tolist():
        line = int(where.lines[firsts[keys[pos]]])
        where.add(
            problems,
            pos,
            f"a session rates each scenario once: rater {keys[pos][0]} rated scenario "
            f"{long[SCENARIO].iat[pos]} in session {long[SESSION].iat[pos]} on line {line}",
            SCENARIO,
            None,
        )
