"""KPI thresholds: the largest delay, jitter and loss per pace class and direction that stay
acceptable.

The KPI factors are those of the registry with a ``kpi`` (delay_ms → ``max_delay_ms``,
jitter_ms → ``max_jitter_ms``, loss_pct → ``max_loss_pct``); a threshold is computed for
each one that varies in the study, per direction where it varies
(:func:`qoe_analysis.study_factors.kpi_columns`). "Acceptable" means
P(rating ≥ acceptable_from) ≥ ½ with every other factor at its baseline level
(:func:`qoe_analysis.study_factors.baseline_levels`: the neutral value, 0 for delay and
loss, when tested). Directions: *downstream* (server→client), *upstream*
(client→server) and *both* (the same value on every direction where the factor varies,
as in the symmetric scenarios); a merged factor ``both_X`` (both directions equal in every
rating, :func:`~qoe_analysis.study_factors.merged_factor_pairs`) has the *both* direction
only. Two estimates per (pace, direction, factor):

* **tree**: P(acceptable | v) is the leaf P(acceptable) of the REP tree averaged over the
  observed rater/session profiles of that pace class (weighted by their rating counts). It
  is a step function of v that can only change at split points, which lie between tested
  levels (midpoints of the adjacent values present at the node); the threshold is the first
  split point where P drops below ½. It is therefore only located to within the bracket of
  tested levels around it.
* **logistic**: θ = −β₀/βⱼ (or the sum of both directions' slopes for "both") from a
  per-pace logistic model on the numeric varying factors, centred at their baseline, with
  a Fieller 95 % CI (:mod:`qoe_analysis.models.logistic_model`); the threshold is the baseline
  plus θ.
  The estimate and its CI are clipped to the factor's physical range (delay ≥ 0, loss in
  [0, 100] %; raw values under ``logistic_raw`` / ``ci95_raw``), and
  ``logistic_extrapolated`` marks an estimate or CI end outside the tested levels.

The two estimates answer the same criterion with different estimators; each keeps its own
interval (tree: ``tree_tested_bracket``, logistic: ``ci95_low``/``ci95_high``) and the two
are never mixed.

A ``resolution_note`` says when the tested levels are too coarse to place the threshold:
the tree bracket, an estimate outside the tested range, or a CI wider than the gap between
the neighbouring tested levels.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.models.logistic_model import LogisticFit, fit_logistic, linear_threshold
from qoe_analysis.models.tree_nodes import (
    Columns,
    FlatTree,
    TreeNode,
    constant_column,
    predict_proba_columns,
    routing_columns,
)
from qoe_analysis.study_factors import baseline_levels, factor_of, kpi_columns
from qoe_analysis.tabular import group_codes
from qoe_analysis.tidy.design import DS_DELAY, DS_LOSS, NETWORK_FACTORS, PACE, US_DELAY, US_LOSS

__all__ = [
    "DIRECTIONS",
    "PHYSICAL_RANGE",
    "clip_logistic",
    "kpi_thresholds",
    "logistic_models",
    "tree_threshold",
]

# The reference design's (table 4.1) direction -> (delay columns, loss columns).
DIRECTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "downstream": ((DS_DELAY,), (DS_LOSS,)),
    "upstream": ((US_DELAY,), (US_LOSS,)),
    "both": ((DS_DELAY, US_DELAY), (DS_LOSS, US_LOSS)),
}
_UNIT = {"max_delay_ms": "ms", "max_jitter_ms": "ms", "max_loss_pct": "%"}
# The factor's physical range: a delay or jitter is never negative, a loss is a percentage.
PHYSICAL_RANGE: dict[str, tuple[float, float]] = {
    "max_delay_ms": (0.0, float("inf")),
    "max_jitter_ms": (0.0, float("inf")),
    "max_loss_pct": (0.0, 100.0),
}


def clip_logistic(
    key: str, logistic: dict[str, Any], tested: np.ndarray[Any, Any]
) -> dict[str, Any]:
    """The logistic estimate and its CI clipped to the physical range, with flags.

    ``logistic`` / ``ci95_low`` / ``ci95_high`` are clipped (the raw values are kept under
    ``*_raw``); ``clipped`` says whether anything changed; ``extrapolated`` whether the
    estimate or an end of its CI lies outside the tested levels [min, max].
    """
    lo_phys, hi_phys = PHYSICAL_RANGE[key]
    raw = {k: logistic.get(k) for k in ("value", "ci95_low", "ci95_high")}

    def clip(v: float | None) -> float | None:
        return None if v is None else float(min(max(v, lo_phys), hi_phys))

    clipped = {k: clip(v) for k, v in raw.items()}
    present = [v for v in raw.values() if v is not None]
    t_lo, t_hi = float(np.min(tested)), float(np.max(tested))
    return {
        "logistic": clipped["value"],
        "ci95_low": clipped["ci95_low"],
        "ci95_high": clipped["ci95_high"],
        "logistic_raw": raw["value"],
        "ci95_raw": [raw["ci95_low"], raw["ci95_high"]],
        "logistic_clipped_to_physical_range": clipped != raw,
        "logistic_extrapolated": any(v < t_lo or v > t_hi for v in present),
        "physical_range": [lo_phys, hi_phys if np.isfinite(hi_phys) else None],
    }


def _tree_splits(node: TreeNode, features: tuple[str, ...]) -> set[float]:
    found: set[float] = set()
    if node.is_leaf:
        return found
    if node.feature in features and node.threshold is not None:
        found.add(float(node.threshold))
    for child in (node.left, node.right):
        if child is not None:
            found |= _tree_splits(child, features)
    return found


def tree_threshold(
    root: TreeNode,
    profiles: pd.DataFrame,
    profile_weights: np.ndarray[Any, Any],
    columns: tuple[str, ...],
    tested: np.ndarray[Any, Any],
    baseline: dict[str, Any] | None = None,
    routing: Columns | None = None,
) -> dict[str, Any]:
    """Largest acceptable value along ``columns`` (others at baseline) according to the tree.

    ``profiles`` holds one row per observed non-impairment profile (all factor columns;
    the impairment columns are overwritten). ``baseline`` maps every impairment column of
    the tree to its baseline level; by default the four table-4.1 columns at 0. The search
    starts at the baseline of ``columns[0]``. Returns value (a split point or None), the
    bracket of tested levels around it and a status. ``routing`` may pass precomputed
    ``routing_columns(profiles)``.
    """
    if baseline is None:
        baseline = {c: 0.0 for c in NETWORK_FACTORS if c in profiles.columns}
    start = float(baseline.get(columns[0], 0.0))
    splits = sorted(s for s in _tree_splits(root, columns) if s >= start)
    grid = sorted({start, *splits, *(np.nextafter(s, np.inf) for s in splits)})
    w = np.asarray(profile_weights, dtype=np.float64)
    # the profiles' routing arrays once; per grid point only the impairment columns change
    # (a DataFrame copy and conversion per point made this most of a small study's CPU)
    n = len(profiles)
    fixed = routing_columns(profiles) if routing is None else routing
    flat = FlatTree(root)  # built once: the grid predicts a few dozen times
    p_acc = []
    for v in grid:
        query = dict(fixed)
        for column, level in baseline.items():
            query[column] = constant_column(v if column in columns else level, n)
        for column in columns:
            query[column] = constant_column(v, n)
        p_acc.append(float(np.average(predict_proba_columns(flat, query, n), weights=w)))
    tested = np.sort(np.unique(np.asarray(tested, dtype=np.float64)))
    result: dict[str, Any] = {
        "value": None,
        "tested_bracket": None,
        "p_acceptable_at_zero": p_acc[0],
        "status": "",
    }
    if p_acc[0] < 0.5:
        result["status"] = "not_acceptable_at_zero"
        return result
    for v, p in zip(grid, p_acc, strict=True):
        if p < 0.5:
            split = max(s for s in splits if s < v)
            below, above = tested[tested <= split], tested[tested > split]
            result["value"] = split
            result["tested_bracket"] = [
                float(below.max()) if below.size else None,
                float(above.min()) if above.size else None,
            ]
            result["status"] = "split"
            return result
    result["status"] = "acceptable_at_all_tested_levels"
    return result


def logistic_models(
    conditions: pd.DataFrame,
    successes: np.ndarray[Any, Any],
    trials: np.ndarray[Any, Any],
    columns: tuple[str, ...] = NETWORK_FACTORS,
    baseline: dict[str, Any] | None = None,
) -> dict[str, LogisticFit]:
    """One logistic model per pace class and one over all ratings ("all").

    ``conditions`` has one row per distinct factor profile (columns game_pace and the
    numeric impairment ``columns`` at least) with its acceptable count and total count.
    The predictors are ``columns`` minus their ``baseline`` level (default 0).
    """
    fits: dict[str, LogisticFit] = {}
    frame = conditions[[PACE, *columns]].copy()
    frame[PACE] = frame[PACE].astype(str)
    frame["_k"] = np.asarray(successes, dtype=np.float64)
    frame["_n"] = np.asarray(trials, dtype=np.float64)
    shift = np.array([float((baseline or {}).get(c, 0.0)) for c in columns])
    for pace in [*sorted(frame[PACE].unique()), "all"]:
        sub = frame if pace == "all" else frame[frame[PACE] == pace]
        grouped = sub.groupby(list(columns), sort=True)[["_k", "_n"]].sum()
        x = np.array(grouped.index.to_list(), dtype=np.float64).reshape(-1, len(columns))
        if (
            shift.any()
        ):  # centring at 0 would change nothing, so the reference design's x stays bit-identical
            x = x - shift
        fits[str(pace)] = fit_logistic(
            x, grouped["_k"].to_numpy(), grouped["_n"].to_numpy(), columns
        )
    return fits


class _PaceRows:
    """The profile rows of one pace class, with the per-column arrays the thresholds read
    (float values, "at baseline" masks) converted once instead of once per direction × KPI.
    """

    def __init__(self, rows: pd.DataFrame, baseline: dict[str, Any]) -> None:
        self.rows = rows
        self.baseline = baseline
        self._values: dict[str, np.ndarray[Any, Any]] = {}
        self._at_base: dict[str, np.ndarray[Any, Any]] = {}

    def values(self, columns: tuple[str, ...]) -> np.ndarray[Any, Any]:
        """``rows[list(columns)].to_numpy(dtype=np.float64)``."""
        for column in columns:
            if column not in self._values:
                self._values[column] = self.rows[column].to_numpy(dtype=np.float64)
        return np.column_stack([self._values[c] for c in columns]).reshape(
            len(self.rows), len(columns)
        )

    def at_base(self, column: str) -> np.ndarray[Any, Any]:
        """Rows whose ``column`` equals its baseline level (compared as Python objects)."""
        if column not in self._at_base:
            equal = self.rows[column].astype(object) == self.baseline[column]
            self._at_base[column] = equal.to_numpy()
        return self._at_base[column]


def _varied_alone(rows: _PaceRows, columns: tuple[str, ...], baseline: dict[str, Any]) -> bool:
    """Whether some tested condition has these columns above their baseline (all equal)
    and every other impairment column at its baseline."""
    others = [c for c in baseline if c not in columns]
    values = rows.values(columns)
    at_base = np.ones(len(values), dtype=bool)
    for column in others:
        at_base &= rows.at_base(column)
    alone = (
        at_base
        & (values[:, 0] > float(baseline[columns[0]]))
        & (values == values[:, :1]).all(axis=1)
    )
    return bool(alone.any())


def _shift_logistic(logistic: dict[str, Any], start: float) -> dict[str, Any]:
    """The logistic threshold on the factor's scale: baseline + θ (θ from the centred fit)."""
    if start == 0.0:
        return logistic
    out = dict(logistic)
    for key in ("value", "ci95_low", "ci95_high"):
        if out.get(key) is not None:
            out[key] = float(out[key]) + start
    return out


def _note(
    key: str,
    tree: dict[str, Any],
    logistic: dict[str, Any],
    tested: np.ndarray[Any, Any],
    varied_alone: bool,
) -> str | None:
    unit = _UNIT[key]
    notes: list[str] = []
    if not varied_alone:
        notes.append(
            "no tested condition varies this factor alone, so the tree value extrapolates "
            "from conditions where it changes together with other factors"
        )
    tested = np.sort(np.unique(tested))
    if tree["status"] == "split":
        lo, hi = tree["tested_bracket"]
        notes.append(
            f"tree split {tree['value']:g} {unit} lies between the tested levels {lo:g} and "
            f"{hi:g} {unit}; a split can only fall between tested levels, so the threshold "
            "can lie anywhere in that interval"
        )
    elif tree["status"] == "acceptable_at_all_tested_levels":
        notes.append(
            f"acceptable at every tested level up to {tested.max():g} {unit} (tree); "
            "the threshold lies beyond the tested range"
        )
    else:
        notes.append("not acceptable even without this impairment (tree)")
    value = logistic.get("value")
    if value is not None:
        if value < tested.min() or value > tested.max():
            notes.append(
                f"logistic estimate {value:g} {unit} lies outside the tested range "
                f"[{tested.min():g}, {tested.max():g}] {unit} (extrapolation)"
            )
        elif logistic["status"] == "ok":
            below, above = tested[tested <= value], tested[tested >= value]
            gap = float(above.min() - below.max()) if below.size and above.size else np.inf
            width = logistic["ci95_high"] - logistic["ci95_low"]
            if gap > 0 and width > gap:
                notes.append(
                    f"logistic CI ({width:g} {unit} wide) is wider than the gap between the "
                    f"neighbouring tested levels ({gap:g} {unit})"
                )
    if logistic["status"] == "ci_unbounded":
        notes.append("logistic slope not significantly below 0: CI unbounded")
    elif logistic["status"] == "no_decreasing_effect":
        notes.append("logistic model shows no decreasing effect of this factor")
    elif logistic["status"] == "not_identifiable":
        notes.append(
            "logistic model: the design confounds this direction with another factor "
            "(e.g. A1/A2 change delay and loss of one direction together); not estimable"
        )
    elif logistic["status"] == "not_acceptable_at_zero":
        notes.append("logistic model: not acceptable even without this impairment")
    return "; ".join(notes) if notes else None


def kpi_thresholds(
    factors: pd.DataFrame,
    y: np.ndarray[Any, Any],
    root: TreeNode,
    acceptable_from: float,
    profiles: tuple[np.ndarray[Any, Any], pd.DataFrame] | None = None,
    impairments: list[str] | None = None,
    target: str | None = None,
) -> dict[str, Any]:
    """Thresholds per pace class (and "all") × direction × KPI (see module docstring).

    ``impairments`` lists the varying impairment factor columns of ``factors`` (default:
    the table-4.1 columns); thresholds are given for their KPI factors only. ``profiles``
    may pass precomputed ``group_codes(factors, factors.columns)``. ``target`` names the
    acceptance rule when it is not "rating >= acceptable_from" (e.g. ``acceptance == 1``).
    """
    impairments = list(NETWORK_FACTORS) if impairments is None else list(impairments)
    codes, profiles_all = (
        profiles if profiles is not None else group_codes(factors, list(factors.columns))
    )
    baseline = baseline_levels(profiles_all, impairments)
    numeric = tuple(c for c in impairments if factor_of(c)[1].kind == "numeric")
    kpis = kpi_columns(impairments)
    trials = np.bincount(codes).astype(np.float64)
    successes = np.bincount(codes, weights=np.asarray(y, dtype=np.float64))
    fits = logistic_models(profiles_all, successes, trials, numeric, baseline) if kpis else {}
    pace_of = profiles_all[PACE].astype(str).to_numpy()
    profile_cols = [c for c in factors.columns if c not in impairments]
    by_pace: dict[str, Any] = {}
    for pace, fit in fits.items():
        mask = np.ones(len(profiles_all), bool) if pace == "all" else pace_of == pace
        rows = profiles_all[mask]
        p_codes, rater_profiles = group_codes(rows, profile_cols)
        weights = np.bincount(p_codes, weights=trials[mask])
        for column in impairments:
            rater_profiles[column] = baseline[column]
        rater_profiles = rater_profiles[list(factors.columns)]
        routing = routing_columns(rater_profiles)
        pace_rows = _PaceRows(rows, baseline)
        per_direction: dict[str, Any] = {}
        for direction in ("downstream", "upstream", "both"):
            entry: dict[str, Any] = {}
            for key, by_direction in kpis.items():
                cols = by_direction.get(direction)
                if cols is None:
                    continue
                start = float(baseline[cols[0]])
                tested = np.unique(pace_rows.values(cols))
                tree = tree_threshold(
                    root, rater_profiles, weights, cols, tested, baseline, routing
                )
                vector = np.array([1.0 if c in cols else 0.0 for c in numeric])
                logistic = _shift_logistic(linear_threshold(fit, vector), start)
                alone = _varied_alone(pace_rows, cols, baseline)
                entry[key] = {
                    "tree": tree["value"],
                    "tree_tested_bracket": tree["tested_bracket"],
                    "tree_status": tree["status"],
                    **clip_logistic(key, logistic, tested),
                    "logistic_status": logistic["status"],
                    "tested_levels": [float(v) for v in tested],
                    "varied_alone_in_design": alone,
                    "resolution_note": _note(key, tree, logistic, tested, alone),
                }
            if entry:
                per_direction[direction] = entry
        by_pace[pace] = {**per_direction, "logistic_model": fit.to_dict()}
    at_zero = all(v == 0.0 for v in baseline.values())
    held = (
        "all other network factors at 0"
        if at_zero
        else "all other factors at their baseline level (thresholds.baseline)"
    )
    return {
        "acceptable_from": acceptable_from,
        "criterion": f"P({target or f'rating >= {acceptable_from}'}) >= 0.5 with {held}",
        "rule": f"share of ratings with {target} is >= 50 %"
        if target
        else f"share of ratings >= {acceptable_from} is >= 50 %",
        "directions": {
            "downstream": "server->client",
            "upstream": "client->server",
            "both": "same value on both directions",
        },
        "baseline": baseline,
        "by_pace": by_pace,
    }
