"""The subject model's estimation: block-coordinate ascent on its log-likelihood.

For the model u_ij = ψ_j + Δ_i + υ_i·ε (:mod:`qoe_analysis.stats.subject_model_mle`), with
L = Σ_obs [ −½·log(2π υ_i²) − (u_ij − ψ_j − Δ_i)² / (2 υ_i²) ]: alternating updates of the
three blocks (Δ, υ, ψ), each the maximiser of L given the others, as sureal's
Newton–Raphson steps converge to: Δ_i = mean of (u − ψ_j) over rater i's ratings, υ_i² =
mean squared residual of rater i, ψ_j = Σ w_i (u − Δ_i) / Σ w_i with w_i = 1/υ_i² over
condition j's ratings. L is quadratic in Δ and ψ, so the Newton step there is exact; for υ
the update is the root of the score equation. Unlike sureal no damping (sureal mixes in
10 % of each new value) is needed: every block update increases L. The model is invariant
under (ψ + c, Δ − c); as in sureal (``force_subjbias_zeromean``) the solution is shifted
so that the raters' biases have mean zero within each connected block of the design.
Stopping rule (sureal): ‖ψ⁽ᵏ⁾ − ψ⁽ᵏ⁻¹⁾‖₂ < tol.

The sums over a rater's or a condition's ratings are products with sparse rater ×
condition matrices of rating counts and sums (scipy.sparse; never a dense matrix): memory
and time per iteration are linear in the number of ratings.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from qoe_analysis.stats.design_blocks import Array, Blocks, IntArray

__all__ = ["DEGENERATE_VAR", "maximise_likelihood"]

# υ² below this (relative to the rating variance) means a rater's ratings are fitted exactly.
DEGENERATE_VAR = 1e-10


def maximise_likelihood(
    r: IntArray,
    c: IntArray,
    u: Array,
    n_r: int,
    n_c: int,
    blocks: Blocks,
    tol: float,
    max_iter: int,
    start: Array | None = None,
    weight: Array | None = None,
    rating_var: float | None = None,
) -> tuple[Array, Array, Array, int, float, bool]:
    """Block-coordinate ascent on L for the observations (r, c, u) (module doc); returns
    ψ, Δ, υ², the iterations, the final change and whether it fell below ``tol``.

    ``blocks`` = (block of each rater, block of each condition, number of blocks): the
    connected parts of the design, each normalised to mean-zero bias on its own.
    ``weight`` (per rater, default 1): how many raters with exactly these observations
    the row stands for (:mod:`qoe_analysis.stats.rater_types`). A rater's own sums (Δ, υ²)
    are not weighted; the sums over raters (ψ, the block means of Δ) count each one
    ``weight`` times, so the estimates are those of the raters written out one by one.
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
    # imported on the first fit: importing qoe_analysis stays free of SciPy
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
    floor = DEGENERATE_VAR * max(variance, 1e-12) * 1e-2
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
