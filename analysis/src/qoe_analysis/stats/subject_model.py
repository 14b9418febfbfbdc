"""The subject model of a ratings table: labelled tables of condition quality and rater
bias and inconsistency, with 95 % confidence intervals.

The model and its fit on integer-coded arrays: :mod:`qoe_analysis.stats.subject_model_mle`
(whose names are re-exported here). 95 % CI = estimate ± 1.95996·se (sureal); the lower
limit of the inconsistency is clipped at 0. The quality ψ_j lives on the rating scale: its
interval is clipped to the scale's [min, max] when ``bounds`` are given, with
``ci95_status`` "ok" / "clipped" / "n_too_small" (n < 2 ratings: no interval) as for the
MOS (:func:`qoe_analysis.stats.conditions.bounded_interval`), or "not_fitted" (no
estimate: the condition is left out of the fit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.stats.conditions import Bounds, bounded_interval
from qoe_analysis.stats.design_blocks import Array, connected_parts
from qoe_analysis.stats.subject_model_mle import (
    MAX_ITERATIONS,
    TOLERANCE,
    SubjectModelArrays,
    fit_subject_model_arrays,
)
from qoe_analysis.tabular import Grouping, column_codes, group_codes
from qoe_analysis.text_order import sort_by_text
from qoe_analysis.tidy.design import GAME, RATER, RATING, SCENARIO

__all__ = [
    "DEFAULT_CONDITION_COLUMNS",
    "SubjectModelArrays",
    "SubjectModelFit",
    "connected_parts",
    "fit_subject_model",
    "fit_subject_model_arrays",
]

DEFAULT_CONDITION_COLUMNS: tuple[str, ...] = (SCENARIO, GAME)
Z95 = 1.95996  # sureal's two-sided 95 % normal quantile


@dataclass
class SubjectModelFit:
    """The fit with labelled tables (see :func:`fit_subject_model`)."""

    status: str
    conditions: pd.DataFrame
    raters: pd.DataFrame
    convergence: dict[str, Any]
    not_identifiable: list[dict[str, Any]]
    condition_columns: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "condition_columns": list(self.condition_columns),
            "convergence": self.convergence,
            "not_identifiable": self.not_identifiable,
        }


def _ci(estimate: Array, se: Array, *, low_clip: float | None = None) -> tuple[Array, Array]:
    low = estimate - Z95 * se
    if low_clip is not None:
        low = np.maximum(low, low_clip)
    return low, estimate + Z95 * se


def fit_subject_model(
    df: pd.DataFrame,
    condition_columns: Sequence[str] = DEFAULT_CONDITION_COLUMNS,
    *,
    tol: float = TOLERANCE,
    max_iter: int = MAX_ITERATIONS,
    conditions: Grouping | None = None,
    bounds: Bounds | None = None,
) -> SubjectModelFit:
    """Fit the subject model to a ratings table (conditions = scenario × game by default;
    ``conditions`` may pass ``group_codes(df, condition_columns)`` made already).

    ``conditions`` has the condition columns, n, mos, quality, quality_se, ci95_low/high
    (ψ ± 1.95996·se clipped to ``bounds`` = (scale min, scale max); None: not clipped) and
    ci95_status (module docstring);
    ``raters`` has rater_id, n, bias (+ se, CI), inconsistency (+ se, CI) and status
    (``fitted`` / ``not_identifiable``); ``block`` is the connected part of the design
    (0 = the main one, −1 = not fitted): qualities compare only within a block.
    Non-identifiable parts are named in ``not_identifiable`` (kind, reason, raters,
    conditions); estimates of what is left out are NaN.
    """
    columns = tuple(condition_columns)
    cond_codes, conds = group_codes(df, list(columns)) if conditions is None else conditions
    rater_codes, rater_names = column_codes(df[RATER])
    u = df[RATING].to_numpy(dtype=np.float64)
    n_r, n_c = len(rater_names), len(conds)
    fit = fit_subject_model_arrays(rater_codes, cond_codes, u, n_r, n_c, tol=tol, max_iter=max_iter)
    raters = np.array([str(x) for x in rater_names], dtype=object)
    cond_labels = [
        " × ".join(str(v) for v in row) for row in conds[list(columns)].itertuples(index=False)
    ]
    issues = [
        {
            "kind": issue["kind"],
            "reason": issue["reason"],
            "raters": sorted(raters[np.asarray(issue["raters"], dtype=np.int64)].tolist()),
            "conditions": sorted(cond_labels[j] for j in issue["conditions"]),
        }
        for issue in fit.issues
    ]
    n_j = np.bincount(cond_codes, minlength=n_c)
    q_low, q_high, q_status = bounded_interval(fit.quality, Z95 * fit.quality_se, n_j, bounds)
    q_status[(n_j >= 2) & ~np.isfinite(fit.quality)] = "not_fitted"
    cond_table = conds[list(columns)].copy().reset_index(drop=True)
    cond_table["n"] = n_j
    cond_table["mos"] = np.bincount(cond_codes, u, n_c) / np.maximum(n_j, 1)
    cond_table["quality"] = fit.quality
    cond_table["quality_se"] = fit.quality_se
    cond_table["ci95_low"] = q_low
    cond_table["ci95_high"] = q_high
    cond_table["ci95_status"] = q_status
    cond_table["block"] = np.where(fit.condition_fitted, fit.condition_block, -1)
    b_low, b_high = _ci(fit.bias, fit.bias_se)
    v_low, v_high = _ci(fit.inconsistency, fit.inconsistency_se, low_clip=0.0)
    rater_table = pd.DataFrame(
        {
            RATER: raters,
            "n": np.bincount(rater_codes, minlength=n_r),
            "bias": fit.bias,
            "bias_se": fit.bias_se,
            "bias_ci95_low": b_low,
            "bias_ci95_high": b_high,
            "inconsistency": fit.inconsistency,
            "inconsistency_se": fit.inconsistency_se,
            "inconsistency_ci95_low": v_low,
            "inconsistency_ci95_high": v_high,
            "status": np.where(fit.rater_fitted, "fitted", "not_identifiable"),
            "block": np.where(fit.rater_fitted, fit.rater_block, -1),
        }
    )
    rater_table = rater_table[rater_table["n"] > 0]
    rater_table = sort_by_text(rater_table, RATER)
    convergence = {
        "method": "alternating maximisation (Newton-Raphson blocks) of the Gaussian "
        "log-likelihood; mean-zero rater bias",
        "iterations": fit.iterations,
        "total_iterations": fit.total_iterations,
        "final_change": fit.final_change,
        "tolerance": tol,
        "max_iterations": max_iter,
        "converged": fit.converged,
        "log_likelihood": fit.log_likelihood,
        "n_ratings_used": fit.n_ratings_used,
        "n_raters_fitted": int(fit.rater_fitted.sum()),
        "n_conditions_fitted": int(fit.condition_fitted.sum()),
    }
    return SubjectModelFit(fit.status, cond_table, rater_table, convergence, issues, columns)
