"""Subject model: condition quality, rater bias and rater inconsistency by maximum likelihood.

Model (ITU-T P.910 (2021+) annex on subject bias and inconsistency; Li & Bampis 2017,
"Recover subjective quality scores from noisy measurements"; Netflix sureal
``MaximumLikelihoodEstimationModelContentOblivious``)::

    u_ij = ψ_j + Δ_i + υ_i·ε,   ε ~ N(0, 1)

ψ_j is the quality of condition j, Δ_i the bias and υ_i > 0 the inconsistency of rater i.
Only observed (i, j) pairs enter the log-likelihood (repeated ratings are separate terms)::

    L = Σ_obs [ −½·log(2π υ_i²) − (u_ij − ψ_j − Δ_i)² / (2 υ_i²) ]

Estimation: alternating updates of the three blocks (Δ, υ, ψ), each the maximiser of L
given the others, as sureal's Newton–Raphson steps converge to: Δ_i = mean of (u − ψ_j)
over rater i's ratings, υ_i² = mean squared residual of rater i, ψ_j = Σ w_i (u − Δ_i) /
Σ w_i with w_i = 1/υ_i² over condition j's ratings. L is quadratic in Δ and ψ, so the
Newton step there is exact; for υ the update is the root of the score equation. Unlike
sureal no damping (sureal mixes in 10 % of each new value) is needed: every block update
increases L. The model is invariant under (ψ + c, Δ − c); as in sureal
(``force_subjbias_zeromean``) the solution is shifted so that the raters' biases have mean
zero. Stopping rule (sureal): ‖ψ⁽ᵏ⁾ − ψ⁽ᵏ⁻¹⁾‖₂ < 1e-8, at most 10,000 iterations.

If the iteration limit is reached first the status is ``not_converged`` (the estimates of
the last iteration are returned with the final change).

Standard errors from the diagonal of the Fisher information at the optimum (as sureal):
se(ψ_j) = (Σ_obs 1/υ_i²)^−½, se(Δ_i) = υ_i/√n_i, se(υ_i) = υ_i/√(2 n_i); 95 % CI =
estimate ± 1.95996·se.

Identifiability (checked before and after fitting; the offending raters/conditions are
listed with the reason and left out unless said otherwise; the status is then
``not_identifiable``):

* a rater who rated a single condition only: Δ_i absorbs the residual, υ_i → 0 and L is
  unbounded;
* raters and conditions that share no rater with the largest connected block of the design:
  their offset to the rest of the scale is undetermined. They are still fitted, as a block
  of their own with mean-zero bias, and labelled with their block number;
* a rater whose ratings the model fits exactly (υ_i → 0; e.g. every rater gave the same
  score): L is unbounded.

The sums over a rater's or a condition's ratings are products with sparse rater ×
condition matrices of rating counts and sums (scipy.sparse; never a dense matrix): memory
and time per iteration are linear in the number of ratings.

Raters with the same (condition, rating) observations have the same likelihood terms and
hence the same estimates at every step; they are updated once, as a type of rater whose
sums over raters count it as many times as it has raters (:func:`_rater_types`). The
estimates are those of the raters one by one up to the order of floating-point sums
(relative differences about 1e-12 in a study of a million ratings); the iteration count
can differ by one when the last step lands next to the tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.tabular import Grouping, column_codes, first_positions, group_codes
from qoe_analysis.text_order import sort_by_text
from qoe_analysis.tidy.design import GAME, RATER, RATING, SCENARIO

# SciPy and scikit-learn are imported inside the functions that use them: importing
# qoe_analysis (and the CLI) stays cheap, see docs/performance.md.

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
TOLERANCE = 1e-8  # sureal DEFAULT_DELTA_THR
MAX_ITERATIONS = 10_000  # sureal MAX_ITR
# υ² below this (relative to the rating variance) means a rater's ratings are fitted exactly.
_DEGENERATE_VAR = 1e-10

Array = np.ndarray[Any, np.dtype[np.float64]]
IntArray = np.ndarray[Any, np.dtype[np.int64]]


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


def _alternate(
    r: IntArray,
    c: IntArray,
    u: Array,
    n_r: int,
    n_c: int,
    blocks: tuple[IntArray, IntArray, int],
    tol: float,
    max_iter: int,
    start: Array | None = None,
    weight: Array | None = None,
    rating_var: float | None = None,
) -> tuple[Array, Array, Array, int, float, bool]:
    """Block-coordinate ascent on L for the observations (r, c, u); returns ψ, Δ, υ², …

    ``blocks`` = (block of each rater, block of each condition, number of blocks): the
    connected parts of the design, each normalised to mean-zero bias on its own.
    ``weight`` (per rater, default 1): how many raters with exactly these observations
    the row stands for (:func:`_rater_types`). A rater's own sums (Δ, υ²) are not
    weighted; the sums over raters (ψ, the block means of Δ) count each one ``weight``
    times, so the estimates are those of the raters written out one by one.
    ``rating_var``: the variance of all ratings (default: of ``u``), which sets the floor
    of υ²; with weights, ``u`` holds each type's ratings once, so the caller passes it.
    """
    n_i = np.bincount(r, minlength=n_r).astype(np.float64)
    n_j = np.bincount(c, minlength=n_c).astype(np.float64)
    has_r, has_c = n_i > 0, n_j > 0
    block_r, block_c, n_blocks = blocks
    block_of_present = block_r[has_r]
    raters_in: np.ndarray[Any, Any]  # raters per block (whole numbers: exact as floats too)
    if weight is None:
        raters_in = np.maximum(np.bincount(block_of_present, minlength=n_blocks), 1)
        present_weight = obs_weight = None
        sum_u = np.bincount(c, u, n_c)
    else:
        present_weight = weight[has_r]
        raters_in = np.maximum(np.bincount(block_of_present, present_weight, n_blocks), 1.0)
        obs_weight = weight[r]
        n_j = np.bincount(c, obs_weight, n_c).astype(np.float64)
        sum_u = np.bincount(c, obs_weight * u, n_c)
    n_i, n_j = np.maximum(n_i, 1.0), np.maximum(n_j, 1.0)  # absent rows stay 0, never NaN

    def shift(delta: Array) -> Array:
        """Mean bias per block: L is invariant under (ψ + s, Δ − s) within a block."""
        present = delta[has_r] if present_weight is None else delta[has_r] * present_weight
        return np.bincount(block_of_present, present, n_blocks) / raters_in

    # Every sum over a rater's or a condition's ratings is a product with the sparse
    # rater × condition matrices of rating counts (A) and rating sums (B); the residual sum
    # of squares expands to Q − 2·Bψ − 2ΔS + A ψ² + 2Δ·Aψ + nΔ² (S, Q: Σu, Σu² per rater).
    shape = (n_r, n_c)
    from scipy import sparse  # type: ignore[import-untyped]

    a = sparse.csr_matrix((np.ones(r.size), (r, c)), shape=shape)
    b = sparse.csr_matrix((u, (r, c)), shape=shape)
    if obs_weight is None:
        a_t, b_t = a.T.tocsr(), b.T.tocsr()
    else:  # the sums over a condition's raters count each row ``weight`` times
        a_t = sparse.csr_matrix((obs_weight, (c, r)), shape=(n_c, n_r))
        b_t = sparse.csr_matrix((obs_weight * u, (c, r)), shape=(n_c, n_r))
    s_i = np.bincount(r, u, n_r)
    q_i = np.bincount(r, u * u, n_r)

    def bias_and_var(psi: Array) -> tuple[Array, Array]:
        a_psi = a @ psi
        delta = (s_i - a_psi) / n_i
        rss = q_i - 2 * (b @ psi) - 2 * delta * s_i + a @ (psi * psi)
        rss += 2 * delta * a_psi + n_i * delta * delta
        return delta, np.maximum(rss, 0.0) / n_i  # rounding can leave −1e-15

    # MOS is sureal's starting point; a refit after leaving raters out starts from the
    # previous solution
    psi = sum_u / n_j if start is None else start.copy()
    variance = float(np.var(u)) if rating_var is None else rating_var
    floor = _DEGENERATE_VAR * max(variance, 1e-12) * 1e-2
    change = np.inf
    converged = False
    iterations = 0
    tiny = np.finfo(float).tiny
    for iterations in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        delta, var = bias_and_var(psi)
        w = 1.0 / np.maximum(var, floor)
        new_psi = (b_t @ w - a_t @ (w * delta)) / np.maximum(a_t @ w, tiny)
        new_psi += shift(delta)[block_c]  # keep Δ mean-zero
        change = float(np.linalg.norm((new_psi - psi)[has_c]))
        psi = new_psi
        if change < tol:
            converged = True
            break
    # Δ and υ² consistent with the final ψ (their maximisers given ψ), then mean-zero Δ
    delta, var = bias_and_var(psi)
    s = shift(delta)
    return psi + s[block_c], delta - s[block_r], var, iterations, change, converged


def _blocks(
    r: IntArray, c: IntArray, n_r: int, n_c: int, weight: Array | None = None
) -> tuple[IntArray, IntArray, int]:
    """Connected parts of the bipartite rater–condition graph, 0 = most ratings (each
    rater's counted ``weight`` times, see :func:`_alternate`)."""
    n, label = connected_parts(r, n_r + c, n_r + n_c)
    ratings = np.bincount(label[r], None if weight is None else weight[r], n)
    order = np.argsort(-ratings, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    label = rank[label]
    return label[:n_r], label[n_r:], int(n)


@dataclass(frozen=True)
class _RaterTypes:
    """Raters grouped by their observations (:func:`_rater_types`)."""

    of_rater: IntArray  # the type of each rater, −1 for a rater without observations
    first_rater: IntArray  # the first rater of each type
    weight: Array  # raters of each type
    r: IntArray  # the first raters' observations, r = their type
    c: IntArray
    u: Array

    def expand(self, per_type: Array) -> Array:
        """A value per rater from one per type (NaN for raters without observations)."""
        return np.where(self.of_rater >= 0, per_type[self.of_rater], np.nan)


def _rater_types(r: IntArray, c: IntArray, u: Array, n_r: int) -> _RaterTypes | None:
    """The raters with the same multiset of (condition, rating) observations as one type,
    or ``None`` when every rater's is different.

    Raters of a type have the same terms in L, hence the same Δ and υ at every step of
    :func:`_alternate`: it updates each type once, weighting the sums over raters by the
    type's size. A study of a million ratings by 100,000 raters of 10 ratings on a
    5-point scale has about 25,000 types. Types are numbered in the order of their first
    raters, so the design's blocks keep their order. Each rater's observations become one
    padded row as wide as the most ratings of a rater: when that exceeds both 16 and 4× the
    mean, no rater is grouped (``None``; the padding would not pay)."""
    counts = np.bincount(r, minlength=n_r)
    present = np.flatnonzero(counts)
    width = int(counts.max(initial=0))
    if present.size < 2 or width > max(16, 4 * r.size // present.size):
        return None
    if np.any(r[1:] < r[:-1]):
        order = np.argsort(r, kind="stable")
        r, c, u = r[order], c[order], u[order]
    values, value_code = np.unique(u, return_inverse=True)
    observation = c * np.int64(values.size) + value_code.astype(np.int64)
    row = np.full(n_r, -1, dtype=np.int64)
    row[present] = np.arange(present.size)
    first = np.cumsum(counts) - counts
    padded = np.full((present.size, width), -1, dtype=np.int64)
    padded[row[r], np.arange(r.size) - first[r]] = observation
    padded.sort(axis=1)
    # each sorted row as one opaque value: equal rows, equal bytes
    rows = padded.view(np.dtype((np.void, padded.dtype.itemsize * width))).ravel()
    type_of_present, firsts = pd.factorize(rows)
    if len(firsts) == present.size:
        return None
    of_rater = np.full(n_r, -1, dtype=np.int64)
    of_rater[present] = type_of_present
    n_types = len(firsts)
    # type numbers follow the first appearance among the raters in order
    first_rater = present[first_positions(np.asarray(type_of_present))]
    is_first = np.zeros(n_r, dtype=bool)
    is_first[first_rater] = True
    mine = is_first[r]
    return _RaterTypes(
        of_rater=of_rater,
        first_rater=first_rater,
        weight=np.bincount(type_of_present, minlength=n_types).astype(np.float64),
        r=of_rater[r[mine]],
        c=c[mine],
        u=u[mine],
    )


def connected_parts(u: IntArray, v: IntArray, n_nodes: int) -> tuple[int, IntArray]:
    """Connected components of the undirected graph with edges u[i]–v[i] on nodes 0…n−1:
    (count, label per node), labels numbered by each part's smallest node, as
    ``scipy.sparse.csgraph.connected_components(directed=False)`` numbers them.

    Min-label hooking with pointer jumping (Shiloach–Vishkin style): every edge between two
    trees hangs the larger root under the smaller one, then each node jumps to its root; a
    part's root ends as its smallest node. NumPy only: importing ``csgraph`` costs more
    than this takes for a study's ratings.
    """
    parent = np.arange(n_nodes)
    while True:
        pu, pv = parent[u], parent[v]
        differ = pu != pv
        if not differ.any():
            break
        np.minimum.at(parent, np.maximum(pu, pv)[differ], np.minimum(pu, pv)[differ])
        while True:  # jump to the root
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
    roots, label = np.unique(parent, return_inverse=True)
    return int(roots.size), label.astype(np.int64)


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
    blocks: tuple[IntArray, IntArray, int] | None = None
    psi_s: Array | None = None
    total_iterations = 0
    obs = keep_rater[r_all]
    types = _rater_types(r_all[obs], c_all[obs], u_all[obs], n_raters)
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
            blocks = _blocks(r, c, n_raters, n_conditions)
            psi_s, delta_s, var_s, iterations, change, converged = _alternate(
                r, c, u, n_raters, n_conditions, blocks, tol, max_iter, start, None, rating_var
            )
        else:  # one row per type of rater: a rater's type is left out with the rater
            mine = keep_rater[types.first_rater][types.r]
            t_r, t_c, t_u = types.r[mine], types.c[mine], types.u[mine]
            n_types = types.first_rater.size
            t_blocks = _blocks(t_r, t_c, n_types, n_conditions, types.weight)
            psi_s, t_delta, t_var, iterations, change, converged = _alternate(
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
        exact = np.flatnonzero(keep_rater & (var_s <= _DEGENERATE_VAR * scale))
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
) -> SubjectModelFit:
    """Fit the subject model to a ratings table (conditions = scenario × game by default;
    ``conditions`` may pass ``group_codes(df, condition_columns)`` made already).

    ``conditions`` has the condition columns, n, mos, quality, quality_se, ci95_low/high;
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
    q_low, q_high = _ci(fit.quality, fit.quality_se)
    cond_table = conds[list(columns)].copy().reset_index(drop=True)
    cond_table["n"] = n_j
    cond_table["mos"] = np.bincount(cond_codes, u, n_c) / np.maximum(n_j, 1)
    cond_table["quality"] = fit.quality
    cond_table["quality_se"] = fit.quality_se
    cond_table["ci95_low"] = q_low
    cond_table["ci95_high"] = q_high
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
