"""Subject model: condition quality, rater bias and rater inconsistency by maximum likelihood.

Model (ITU-T P.910 (2021+) annex on subject bias and inconsistency; Li & Bampis 2017,
"Recover subjective quality scores from noisy measurements"; Netflix sureal
``MaximumLikelihoodEstimationModelContentOblivious``)::

    u_ij = ψ_j + Δ_i + υ_i·ε,   ε ~ N(0, 1)

ψ_j is the quality of condition j, Δ_i the bias and υ_i > 0 the inconsistency of rater i.
Only observed (i, j) pairs enter the log-likelihood (repeated ratings are separate terms)::

    L = Σ_obs [ −½·log(2π υ_i²) − (u_ij − ψ_j − Δ_i)² / (2 υ_i²) ]

Estimation: :mod:`qoe_analysis.stats.subject_model_ascent` (alternating block updates,
mean-zero rater bias; sureal's stopping rule ‖ψ⁽ᵏ⁾ − ψ⁽ᵏ⁻¹⁾‖₂ < 1e-8, at most 10,000
iterations). If the iteration limit is reached first the status is ``not_converged`` (the
estimates of the last iteration are returned with the final change).

Standard errors from the diagonal of the Fisher information at the optimum (as sureal):
se(ψ_j) = (Σ_obs 1/υ_i²)^−½, se(Δ_i) = υ_i/√n_i, se(υ_i) = υ_i/√(2 n_i); 95 % CI =
estimate ± 1.95996·se (made by :mod:`qoe_analysis.stats.subject_model`, which clips the
quality's interval to the rating scale and flags it, docs/methods.md "Intervals").

Identifiability (checked before and after fitting; the offending raters/conditions are
listed with the reason and left out unless said otherwise; the status is then
``not_identifiable``):

* a rater who rated a single condition only: Δ_i absorbs the residual, υ_i → 0 and L is
  unbounded;
* raters and conditions that share no rater with the largest connected block of the design
  (:mod:`qoe_analysis.stats.design_blocks`): their offset to the rest of the scale is
  undetermined. They are still fitted, as a block of their own with mean-zero bias, and
  labelled with their block number;
* a rater whose ratings the model fits exactly (υ_i → 0; e.g. every rater gave the same
  score): L is unbounded.

Raters with the same (condition, rating) observations have the same likelihood terms and
hence the same estimates at every step; they are updated once, as a type of rater whose
sums over raters count it as many times as it has raters
(:mod:`qoe_analysis.stats.rater_types`). The estimates are those of the raters one by one
up to the order of floating-point sums (relative differences about 1e-12 in a study of a
million ratings); the iteration count can differ by one when the last step lands next to
the tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qoe_analysis.stats.design_blocks import Array, Blocks, IntArray, design_blocks
from qoe_analysis.stats.rater_types import rater_types
from qoe_analysis.stats.subject_model_ascent import DEGENERATE_VAR, maximise_likelihood

__all__ = ["MAX_ITERATIONS", "TOLERANCE", "SubjectModelArrays", "fit_subject_model_arrays"]

TOLERANCE = 1e-8  # sureal DEFAULT_DELTA_THR
MAX_ITERATIONS = 10_000  # sureal MAX_ITR


@dataclass
class SubjectModelArrays:
    """Fit on integer-coded arrays. Estimates are NaN for raters/conditions not fitted."""

    status: str  # "ok" | "not_identifiable" | "not_converged" (max_iter reached)
    quality: Array
    quality_se: Array
    bias: Array
    bias_se: Array
    inconsistency: Array
    inconsistency_se: Array
    rater_fitted: np.ndarray[Any, np.dtype[np.bool_]]
    condition_fitted: np.ndarray[Any, np.dtype[np.bool_]]
    rater_block: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    condition_block: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    iterations: int = 0  # of the final fit
    total_iterations: int = 0  # over the refits after leaving raters out
    final_change: float | None = None
    converged: bool = False
    log_likelihood: float | None = None
    n_ratings_used: int = 0
    issues: list[dict[str, Any]] = field(default_factory=list)


def _issue(kind: str, reason: str, raters: Any = (), conditions: Any = ()) -> dict[str, Any]:
    return {
        "kind": kind,
        "reason": reason,
        "raters": [int(r) for r in raters],
        "conditions": [int(c) for c in conditions],
    }


def fit_subject_model_arrays(
    rater_codes: np.ndarray[Any, Any],
    condition_codes: np.ndarray[Any, Any],
    ratings: np.ndarray[Any, Any],
    n_raters: int,
    n_conditions: int,
    *,
    tol: float = TOLERANCE,
    max_iter: int = MAX_ITERATIONS,
) -> SubjectModelArrays:
    """Maximum-likelihood fit of u = ψ_j + Δ_i + υ_i·ε on coded observations (module doc)."""
    r_all = np.asarray(rater_codes, dtype=np.int64)
    c_all = np.asarray(condition_codes, dtype=np.int64)
    u_all = np.asarray(ratings, dtype=np.float64)
    issues: list[dict[str, Any]] = []
    keep_rater = np.bincount(r_all, minlength=n_raters) > 0
    # raters with a single distinct condition
    key = r_all * n_conditions + c_all
    if n_raters * n_conditions <= 50_000_000:  # a bitmap is faster than sorting the pairs
        seen = np.zeros(n_raters * n_conditions, dtype=bool)
        seen[key] = True
        pairs = np.flatnonzero(seen)
    else:
        pairs = np.unique(key)
    distinct = np.bincount(pairs // n_conditions, minlength=n_raters)
    single = np.flatnonzero(keep_rater & (distinct < 2))
    if single.size:
        issues.append(
            _issue(
                "single_condition",
                "rated one condition only: the rater's bias cannot be separated from "
                "the residual, the inconsistency estimate is 0 and the likelihood unbounded",
                raters=single,
            )
        )
        keep_rater[single] = False

    psi = np.full(n_conditions, np.nan)
    delta = np.full(n_raters, np.nan)
    var = np.full(n_raters, np.nan)
    iterations, change, converged = 0, None, False
    blocks: Blocks | None = None
    psi_s: Array | None = None
    total_iterations = 0
    obs = keep_rater[r_all]
    types = rater_types(r_all[obs], c_all[obs], u_all[obs], n_raters)
    for _attempt in range(n_raters + 2):  # each pass removes ≥ 1 rater or stops
        if not obs.any():
            break
        r, c, u = r_all[obs], c_all[obs], u_all[obs]
        if float(u.max() - u.min()) == 0.0:
            issues.append(
                _issue(
                    "no_variation",
                    f"every rating is {u[0]:g}: quality, bias and inconsistency cannot be "
                    "separated (inconsistency 0, likelihood unbounded)",
                    raters=np.unique(r),
                )
            )
            obs[:] = False
            break
        start = None if psi_s is None else np.where(np.isfinite(psi_s), psi_s, 0.0)
        # of every rating, on both paths: the floor of υ² and the scale of an exact fit
        rating_var = float(np.var(u))
        if types is None:
            blocks = design_blocks(r, c, n_raters, n_conditions)
            psi_s, delta_s, var_s, iterations, change, converged = maximise_likelihood(
                r, c, u, n_raters, n_conditions, blocks, tol, max_iter, start, None, rating_var
            )
        else:  # one row per type of rater: a rater's type is left out with the rater
            mine = keep_rater[types.first_rater][types.r]
            t_r, t_c, t_u = types.r[mine], types.c[mine], types.u[mine]
            n_types = types.first_rater.size
            t_blocks = design_blocks(t_r, t_c, n_types, n_conditions, types.weight)
            psi_s, t_delta, t_var, iterations, change, converged = maximise_likelihood(
                t_r,
                t_c,
                t_u,
                n_types,
                n_conditions,
                t_blocks,
                tol,
                max_iter,
                start,
                types.weight,
                rating_var,
            )
            rater_blocks = np.where(types.of_rater >= 0, t_blocks[0][types.of_rater], -1)
            blocks = (rater_blocks, t_blocks[1], t_blocks[2])
            delta_s, var_s = types.expand(t_delta), types.expand(t_var)
        total_iterations += iterations
        scale = max(rating_var, 1e-12)
        exact = np.flatnonzero(keep_rater & (var_s <= DEGENERATE_VAR * scale))
        if exact.size:
            issues.append(
                _issue(
                    "fitted_exactly",
                    "the model reproduces these raters' ratings exactly: inconsistency 0 "
                    "and likelihood unbounded",
                    raters=exact,
                )
            )
            keep_rater[exact] = False
            obs &= keep_rater[r_all]
            continue
        psi, delta, var = psi_s, delta_s, var_s
        break
    rater_block = np.full(n_raters, -1, dtype=np.int64)
    condition_block = np.full(n_conditions, -1, dtype=np.int64)
    if blocks is not None and obs.any():
        r, c = r_all[obs], c_all[obs]
        rater_block[r] = blocks[0][r]
        condition_block[c] = blocks[1][c]
        off = rater_block > 0
        if off.any():
            issues.append(
                _issue(
                    "disconnected",
                    "these raters and conditions share no rater with the main block (block "
                    "0) of the design: their offset to it is not identified by the data; "
                    "each block is fitted on its own with its raters' biases at mean zero, "
                    "so compare qualities within a block only",
                    raters=np.flatnonzero(off),
                    conditions=np.flatnonzero(condition_block > 0),
                )
            )

    rater_fitted = keep_rater & np.isfinite(var) & (var > 0)
    n_j = np.bincount(c_all[obs], minlength=n_conditions)
    condition_fitted = (n_j > 0) & np.isfinite(psi) & bool(rater_fitted.any())
    listed = {j for issue in issues for j in issue["conditions"]}
    unfitted = np.flatnonzero((np.bincount(c_all, minlength=n_conditions) > 0) & ~condition_fitted)
    unfitted = np.array([j for j in unfitted if j not in listed], dtype=np.int64)
    if unfitted.size and rater_fitted.any():
        issues.append(
            _issue(
                "no_fitted_rater",
                "only raters left out above rated these conditions",
                conditions=unfitted,
            )
        )
    nan_r = np.full(n_raters, np.nan)
    nan_c = np.full(n_conditions, np.nan)
    if not rater_fitted.any():
        return SubjectModelArrays(
            "not_identifiable",
            nan_c,
            nan_c.copy(),
            nan_r,
            nan_r.copy(),
            nan_r.copy(),
            nan_r.copy(),
            rater_fitted,
            np.zeros(n_conditions, bool),
            rater_block=rater_block,
            condition_block=condition_block,
            issues=issues or [_issue("no_data", "no ratings")],
        )
    r, c, u = r_all[obs], c_all[obs], u_all[obs]
    n_i = np.bincount(r, minlength=n_raters).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        info_psi = np.bincount(c, 1.0 / var[r], n_conditions)
        upsilon = np.sqrt(var)
        quality_se = 1.0 / np.sqrt(info_psi)
        bias_se = upsilon / np.sqrt(n_i)
        inconsistency_se = upsilon / np.sqrt(2.0 * n_i)
    res = u - psi[c] - delta[r]
    log_lik = float(np.sum(-0.5 * np.log(2 * np.pi * var[r]) - res * res / (2 * var[r])))

    def only(values: Array, mask: np.ndarray[Any, Any]) -> Array:
        return np.where(mask, values, np.nan)

    return SubjectModelArrays(
        status="not_identifiable" if issues else ("ok" if converged else "not_converged"),
        quality=only(psi, condition_fitted),
        quality_se=only(quality_se, condition_fitted),
        bias=only(delta, rater_fitted),
        bias_se=only(bias_se, rater_fitted),
        inconsistency=only(upsilon, rater_fitted),
        inconsistency_se=only(inconsistency_se, rater_fitted),
        rater_fitted=rater_fitted,
        condition_fitted=condition_fitted,
        rater_block=rater_block,
        condition_block=condition_block,
        iterations=iterations,
        total_iterations=total_iterations,
        final_change=change,
        converged=converged,
        log_likelihood=log_lik,
        n_ratings_used=int(obs.sum()),
        issues=issues,
    )
