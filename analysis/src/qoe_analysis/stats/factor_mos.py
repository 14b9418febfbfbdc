"""MOS per level of each varying network factor, pooled over conditions (``mos_by_factor``).

A point pools the ratings of every condition (scenario × game) at that level:
n = Σ nᵢ, MOS = Σ nᵢ·MOSᵢ / n and the sample variance from the pooled sums of squares,
s² = (Σ (nᵢ − 1)·SOSᵢ² + Σ nᵢ·(MOSᵢ − MOS)²) / (n − 1) (Chan, Golub & LeVeque 1979), so
the numbers equal those of the ratings pooled directly. CI = MOS ± t(0.975, n − 1)·s/√n
(Student t, ITU-T P.1401 §7.3), clipped to the scale with ``ci95_status`` "ok" / "clipped"
/ "n_too_small" (:func:`qoe_analysis.stats.conditions.bounded_interval`); MOS and CI are
None for n = 0 (an untested level or cell; status "n_too_small"), the CI for n < 2.

Which conditions enter (hold mode): ``baseline`` keeps those whose other varying factors sit
at the baseline scenario's values; ``averaged`` keeps all (the other factors averaged over
the tested combinations, weighted by their ratings). The baseline scenario is "B" when
present (table 4.1's and the design generator's code), else the scenario with the most
varying factors at their lowest level (the first in scenario order on a tie).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats  # type: ignore[import-untyped]

from qoe_analysis.schema import (
    FactorGrid,
    FactorPoint,
    FactorSeries,
    GridCell,
    HoldMode,
    Level,
    MosByFactor,
    PooledMos,
)
from qoe_analysis.stats.conditions import ALL_GAMES, Bounds, bounded_interval
from qoe_analysis.tidy.design import GAME, SCENARIO

__all__ = [
    "BASELINE_CODE",
    "HOLD_MODES",
    "MAX_LEVELS",
    "METHOD",
    "baseline_scenario",
    "mos_by_factor",
]

BASELINE_CODE = "B"
HOLD_MODES: tuple[HoldMode, ...] = ("baseline", "averaged")
#: Factors with more distinct levels are left out (a note says why) until levels are binned.
MAX_LEVELS = 24
METHOD = (
    "MOS of the ratings of all conditions (scenario x game) at a level pooled, 95 % CI = "
    "MOS +- t(0.975, n - 1) * s / sqrt(n) (Student t, ITU-T P.1401) clipped to the scale "
    "(ci95_status 'clipped'; 'n_too_small' below 2 ratings); hold 'baseline': the "
    "other varying factors at the baseline scenario's values, 'averaged': all conditions"
)


@dataclass(frozen=True)
class _Conditions:
    """The per-game conditions as arrays: n, MOS, sum of squared deviations, scenario codes."""

    frame: pd.DataFrame
    n: np.ndarray[Any, np.dtype[np.float64]]
    mos: np.ndarray[Any, np.dtype[np.float64]]
    m2: np.ndarray[Any, np.dtype[np.float64]]
    scenario: np.ndarray[Any, np.dtype[np.int64]]
    scenarios: list[str]

    @classmethod
    def of(cls, conditions: pd.DataFrame) -> _Conditions:
        frame = conditions[conditions[GAME].astype(str) != ALL_GAMES].reset_index(drop=True)
        n = frame["n"].to_numpy(dtype=np.float64)
        sos = np.nan_to_num(frame["sos"].to_numpy(dtype=np.float64))  # n = 1: no spread
        codes, names = pd.factorize(frame[SCENARIO].astype(str))
        return cls(
            frame=frame,
            n=n,
            mos=frame["mos"].to_numpy(dtype=np.float64),
            m2=sos**2 * np.maximum(n - 1.0, 0.0),
            scenario=np.asarray(codes, dtype=np.int64),
            scenarios=[str(s) for s in names],
        )

    def values(self, column: str) -> list[Level]:
        return [_level(v) for v in self.frame[column].tolist()]


def _level(value: Any) -> Level:
    return value if isinstance(value, str) else float(value)


def levels_of(values: Sequence[Level]) -> list[Level]:
    """The distinct values, sorted (numbers by value, text by text)."""
    return sorted(
        set(values), key=lambda v: (isinstance(v, str), v if isinstance(v, str) else float(v))
    )


def baseline_scenario(conditions: pd.DataFrame, factors: Sequence[str]) -> str | None:
    """The baseline scenario (module docstring) of a condition table, None without rows."""
    per_scenario = conditions.drop_duplicates(SCENARIO)
    names = per_scenario[SCENARIO].astype(str).tolist()
    if BASELINE_CODE in names:
        return BASELINE_CODE
    if not names:
        return None
    lowest = {f: levels_of([_level(v) for v in conditions[f].tolist()])[0] for f in factors}
    scores = [
        sum(_level(row[f]) == lowest[f] for f in factors)
        for row in per_scenario[list(factors)].to_dict("records")
    ]
    return names[int(np.argmax(scores))] if scores else names[0]


def _pool(
    conds: _Conditions,
    cell: np.ndarray[Any, np.dtype[np.int64]],
    size: int,
    bounds: Bounds | None,
) -> list[PooledMos]:
    """Pooled n, MOS, CI (clipped to ``bounds``) and scenarios of the conditions per cell
    code (−1: left out)."""
    used = cell >= 0
    codes, n_i, mos_i = cell[used], conds.n[used], conds.mos[used]
    n = np.bincount(codes, weights=n_i, minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        mos = np.bincount(codes, weights=n_i * mos_i, minlength=size) / n
        m2 = np.bincount(
            codes, weights=conds.m2[used] + n_i * (mos_i - mos[codes]) ** 2, minlength=size
        )
        half = stats.t.ppf(0.975, n - 1) * np.sqrt(m2 / (n - 1)) / np.sqrt(n)
    low, high, status = bounded_interval(mos, half, n, bounds)
    pairs = np.unique(codes[n_i > 0] * len(conds.scenarios) + conds.scenario[used][n_i > 0])
    members: list[list[str]] = [[] for _ in range(size)]
    for pair in pairs.tolist():
        members[pair // len(conds.scenarios)].append(conds.scenarios[pair % len(conds.scenarios)])
    out: list[PooledMos] = []
    for k in range(size):
        count = int(n[k])
        ci = count >= 2
        out.append(
            {
                "n": count,
                "mos": float(mos[k]) if count else None,
                "ci95_low": float(low[k]) if ci else None,
                "ci95_high": float(high[k]) if ci else None,
                "ci95_status": status[k],
                "scenarios": members[k],
            }
        )
    return out


def _codes(values: list[Level], levels: list[Level]) -> np.ndarray[Any, np.dtype[np.int64]]:
    index = {level: i for i, level in enumerate(levels)}
    return np.array([index.get(v, -1) for v in values], dtype=np.int64)


def mos_by_factor(
    conditions: pd.DataFrame, factors: Sequence[str], *, bounds: Bounds | None = None
) -> MosByFactor:
    """The ``mos_by_factor`` section from a condition table (``scenario``, ``game``, ``n``,
    ``mos``, ``sos`` and every factor column; the rows of game "all" are ignored, the
    per-game rows are pooled instead) and the varying factors in registry order. The CIs
    are clipped to ``bounds`` = (scale min, scale max) (None: not clipped, only flagged
    "n_too_small").

    ``single``: per factor, game (sorted, then "all") and hold mode, one point per level.
    ``pairs``: per unordered pair (registry order), game and hold mode, one cell per
    (a level, b level), a-major. A factor with more than :data:`MAX_LEVELS` levels is
    left out with a note."""
    conds = _Conditions.of(conditions)
    base = baseline_scenario(conds.frame, factors)
    values = {f: conds.values(f) for f in factors}
    # per factor: which conditions sit at the baseline scenario's value
    at_base: dict[str, np.ndarray[Any, np.dtype[np.bool_]]] = {}
    if base is not None:
        row = int(np.argmax(conds.scenario == conds.scenarios.index(base)))
        at_base = {f: np.array([v == values[f][row] for v in values[f]]) for f in factors}
    levels = {f: levels_of(values[f]) for f in factors}
    notes = {
        f: f"{len(levels[f])} distinct levels (more than {MAX_LEVELS}): left out until "
        "levels are binned"
        for f in factors
        if len(levels[f]) > MAX_LEVELS
    }
    shown = [f for f in factors if f not in notes]
    games = sorted({str(g) for g in conds.frame[GAME].tolist()})
    game_of = conds.frame[GAME].astype(str).to_numpy()
    in_game = {g: game_of == g for g in games} | {ALL_GAMES: np.ones(len(game_of), bool)}

    def held(free: tuple[str, ...], hold: HoldMode) -> np.ndarray[Any, np.dtype[np.bool_]]:
        keep = np.full(len(game_of), hold == "averaged" or base is not None)
        if hold == "baseline":
            for f in factors:
                if f not in free:
                    keep &= at_base[f]
        return keep

    single: list[FactorSeries] = []
    for f in shown:
        codes = _codes(values[f], levels[f])
        for game in [*games, ALL_GAMES]:
            for hold in HOLD_MODES:
                cell = np.where(in_game[game] & held((f,), hold), codes, -1)
                pooled = _pool(conds, cell, len(levels[f]), bounds)
                points: list[FactorPoint] = [
                    {"level": level, **p} for level, p in zip(levels[f], pooled, strict=True)
                ]
                single.append({"factor": f, "game": game, "hold": hold, "points": points})
    pairs: list[FactorGrid] = []
    for a, b in combinations(shown, 2):
        la, lb = levels[a], levels[b]
        ia, ib = _codes(values[a], la), _codes(values[b], lb)
        codes = np.where((ia >= 0) & (ib >= 0), ia * len(lb) + ib, -1)
        for game in [*games, ALL_GAMES]:
            for hold in HOLD_MODES:
                cell = np.where(in_game[game] & held((a, b), hold), codes, -1)
                pooled = _pool(conds, cell, len(la) * len(lb), bounds)
                cells: list[GridCell] = [
                    {"a": la[k // len(lb)], "b": lb[k % len(lb)], **p} for k, p in enumerate(pooled)
                ]
                pairs.append({"factors": [a, b], "game": game, "hold": hold, "cells": cells})
    return {
        "method": METHOD,
        "baseline_scenario": base,
        "hold_modes": list(HOLD_MODES),
        "single": single,
        "pairs": pairs,
        "notes": notes,
    }
