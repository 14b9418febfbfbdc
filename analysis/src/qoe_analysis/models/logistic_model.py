"""Logistic model of acceptability and thresholds with Fieller confidence intervals.

Model: logit P(acceptable | x) = β₀ + Σⱼ βⱼ xⱼ over the numeric network factors, fitted by
unpenalised maximum likelihood with scikit-learn's ``LogisticRegression(C=inf,
solver="newton-cholesky")`` on the distinct conditions with their acceptable / not
acceptable counts as sample weights (identical likelihood to the per-rating fit).
Columns are scaled by their largest absolute value for the solver and mapped back.

Covariance: the inverse observed Fisher information (Xᵀ W X)⁻¹, W = diag(nᵢ pᵢ (1 − pᵢ)).

Threshold: along a direction in which the factor vector is x = v·b (other factors 0), the
largest acceptable value solves P = ½, i.e. θ = −aᵀβ / bᵀβ with a = (1, 0, …). Its CI is
Fieller's: all θ with (aᵀβ + θ bᵀβ)² ≤ z² (aᵀΣa + 2θ aᵀΣb + θ² bᵀΣb), z the normal
quantile; bounded only if (bᵀβ)² > z² bᵀΣb (the slope differs significantly from 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# scikit-learn and SciPy are imported by the functions that use them, so that importing
# the package (and the CLI's argument parsing) does not load them.

__all__ = [
    "LogisticFit",
    "fieller_ratio_interval",
    "fit_logistic",
    "linear_threshold",
    "row_space_design",
    "stacked_binary_rows",
]


@dataclass(frozen=True)
class LogisticFit:
    """Coefficients (intercept first), their covariance and diagnostics.

    ``null_space`` spans the coefficient directions the design cannot identify (columns,
    in original units); a combination cᵀβ is estimable iff c is orthogonal to it.
    """

    coef: np.ndarray[Any, np.dtype[np.float64]]
    cov: np.ndarray[Any, np.dtype[np.float64]]
    names: tuple[str, ...]
    n: float
    converged: bool
    null_space: np.ndarray[Any, np.dtype[np.float64]]

    def estimable(self, c: np.ndarray[Any, Any], tol: float = 1e-8) -> bool:
        """Whether cᵀβ is identified by the design (c ⟂ null space)."""
        if self.null_space.size == 0:
            return True
        c = np.asarray(c, dtype=np.float64)
        scale = max(float(np.linalg.norm(c)), 1.0)
        return bool(float(np.linalg.norm(self.null_space.T @ c)) <= tol * scale)

    def to_dict(self) -> dict[str, Any]:
        se = np.sqrt(np.clip(np.diag(self.cov), 0.0, None))
        terms = {}
        for i, name in enumerate(("intercept", *self.names)):
            unit = np.zeros(self.coef.size)
            unit[i] = 1.0
            ok = self.estimable(unit)
            terms[name] = {
                "coef": float(self.coef[i]) if ok else None,
                "se": float(se[i]) if ok else None,
                "identifiable": ok,
            }
        return {"terms": terms, "n": self.n, "converged": self.converged}


# The solver's iteration limit and tolerance (scikit-learn's defaults are 100 and 1e-4).
_MAX_ITER = 200
_TOL = 1e-10


def row_space_design(
    x: np.ndarray[Any, Any],
) -> tuple[
    np.ndarray[Any, np.dtype[np.float64]],
    np.ndarray[Any, np.dtype[np.float64]],
    np.ndarray[Any, np.dtype[np.float64]],
    np.ndarray[Any, np.dtype[np.float64]],
]:
    """(basis, null_orig, back, z) of the scaled design [1, X / scale] (see fit_logistic).

    ``basis`` spans its row space (SVD, singular values > 1e-10 × the largest), ``z`` is
    the design in that basis (the solver's columns), ``back`` maps scaled coefficients to
    original units and ``null_orig`` spans the non-identified directions in those units.
    """
    x = np.asarray(x, dtype=np.float64)
    scale = np.max(np.abs(x), axis=0) if x.size else np.ones(x.shape[1])
    scale = np.where(scale > 0, scale, 1.0)
    design = np.column_stack([np.ones(len(x)), x / scale])
    _, sing, vt = np.linalg.svd(design, full_matrices=True)
    rank = int(np.sum(sing > 1e-10 * sing[0])) if sing.size else 0
    basis, null_scaled = vt[:rank].T, vt[rank:].T
    back = np.concatenate([[1.0], 1.0 / scale])
    # β_orig = back ⊙ β_scaled, so a non-identified direction n_s of β_scaled is the
    # direction back ⊙ n_s of β_orig.
    null_orig = null_scaled * back[:, None]
    return basis, null_orig, back, design @ basis


def stacked_binary_rows(
    z: np.ndarray[Any, Any], k: np.ndarray[Any, Any], n: np.ndarray[Any, Any]
) -> tuple[
    np.ndarray[Any, np.dtype[np.float64]],
    np.ndarray[Any, np.dtype[np.float64]],
    np.ndarray[Any, np.dtype[np.float64]],
]:
    """Grouped binomial rows as weighted 0/1 rows: each row of ``z`` once with y = 1 and
    weight k, once with y = 0 and weight n − k (the same likelihood as the single ratings).
    """
    z_fit = np.vstack([z, z])
    y_fit = np.concatenate([np.ones(len(z)), np.zeros(len(z))])
    w_fit = np.concatenate([k, n - k])
    return z_fit, y_fit, w_fit


def _fit_unpenalised(
    z: np.ndarray[Any, Any], y: np.ndarray[Any, Any], w: np.ndarray[Any, Any]
) -> tuple[np.ndarray[Any, np.dtype[np.float64]], int]:
    """Coefficients and solver iterations of the unpenalised weighted fit (no intercept
    added: ``z`` carries it). Where Newton's method fails (e.g. a singular Hessian under
    separation) scikit-learn finishes with L-BFGS and warns; a fit that uses up
    ``_MAX_ITER`` iterations warns ``ConvergenceWarning`` and is reported not converged."""
    from sklearn.linear_model import LogisticRegression  # type: ignore[import-untyped]

    clf = LogisticRegression(
        C=np.inf, solver="newton-cholesky", max_iter=_MAX_ITER, tol=_TOL, fit_intercept=False
    )
    clf.fit(z, y, sample_weight=w)
    coef: np.ndarray[Any, np.dtype[np.float64]] = clf.coef_[0]
    return coef, int(np.max(clf.n_iter_))


def fit_logistic(
    x: np.ndarray[Any, Any],
    successes: np.ndarray[Any, Any],
    trials: np.ndarray[Any, Any],
    names: tuple[str, ...],
) -> LogisticFit:
    """Binomial logistic regression on grouped data (rows of ``x`` = distinct conditions).

    A rank-deficient design (e.g. table 4.1, where downstream delay and downstream loss
    only change together, in A1/A2) is fitted in the basis of its row space (SVD of the
    scaled design [1, X]); β is then the minimum-norm MLE and only combinations orthogonal
    to ``null_space`` are reported as estimable.
    """
    x = np.asarray(x, dtype=np.float64)
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    p_cols = x.shape[1] + 1
    basis, null_orig, back, z = row_space_design(x)
    z_fit, y_fit, w_fit = stacked_binary_rows(z, k, n)
    keep = w_fit > 0
    if np.unique(y_fit[keep]).size < 2 or basis.shape[1] == 0:
        nan = np.full(p_cols, np.nan)
        return LogisticFit(
            nan, np.full((p_cols, p_cols), np.nan), names, float(n.sum()), False, null_orig
        )
    gamma, n_iter = _fit_unpenalised(z_fit[keep], y_fit[keep], w_fit[keep])
    p = 1.0 / (1.0 + np.exp(-(z @ gamma)))
    info = z.T @ (z * (n * p * (1.0 - p))[:, None])
    try:
        cov_gamma = np.linalg.inv(info)
        ok = bool(np.all(np.isfinite(cov_gamma)))
    except np.linalg.LinAlgError:
        cov_gamma = np.full_like(info, np.nan)
        ok = False
    beta_scaled = basis @ gamma
    cov_scaled = basis @ cov_gamma @ basis.T
    converged = ok and n_iter < _MAX_ITER
    return LogisticFit(
        coef=beta_scaled * back,
        cov=cov_scaled * np.outer(back, back),
        names=names,
        n=float(n.sum()),
        converged=converged,
        null_space=null_orig,
    )


def fieller_ratio_interval(
    num: float, den: float, var_num: float, var_den: float, cov: float, level: float = 0.95
) -> tuple[float, float] | None:
    """Fieller CI for θ = −num/den (θ solves num + θ·den = 0); None if unbounded."""
    from scipy import stats  # type: ignore[import-untyped]

    z2 = float(stats.norm.ppf((1.0 + level) / 2.0)) ** 2
    a = den**2 - z2 * var_den
    b = 2.0 * (num * den - z2 * cov)
    c = num**2 - z2 * var_num
    if not np.isfinite([a, b, c]).all() or a <= 0:
        return None
    disc = b * b - 4.0 * a * c
    if disc < 0:
        return None
    root = np.sqrt(disc)
    lo, hi = sorted(((-b - root) / (2.0 * a), (-b + root) / (2.0 * a)))
    return float(lo), float(hi)


def linear_threshold(
    fit: LogisticFit,
    direction: np.ndarray[Any, Any],
    level: float = 0.95,
) -> dict[str, Any]:
    """Value v where P(acceptable | x = v·direction) = ½, with its Fieller CI.

    ``direction`` has one entry per factor (e.g. [1, 1, 0, 0] = same delay both ways).
    status: "ok", "no_decreasing_effect" (slope ≥ 0: acceptability does not fall with
    the factor), "not_acceptable_at_zero" (P < ½ already at v = 0), "ci_unbounded" (slope
    not significantly ≠ 0; the point estimate is still given), "not_identifiable" (the
    design confounds this direction with another factor) or "not_estimable".
    """
    a = np.zeros(fit.coef.size)
    a[0] = 1.0
    b = np.concatenate([[0.0], np.asarray(direction, dtype=np.float64)])
    num = float(a @ fit.coef)
    den = float(b @ fit.coef)
    out: dict[str, Any] = {"value": None, "ci95_low": None, "ci95_high": None}
    if not (fit.estimable(a) and fit.estimable(b)):
        return {**out, "status": "not_identifiable"}
    if not (np.isfinite(num) and np.isfinite(den)) or not np.all(np.isfinite(fit.cov)):
        return {**out, "status": "not_estimable"}
    if den >= 0:
        return {**out, "status": "no_decreasing_effect"}
    if num < 0:  # P(acceptable) < 1/2 already at v = 0
        return {**out, "status": "not_acceptable_at_zero"}
    out["value"] = -num / den
    ci = fieller_ratio_interval(
        num, den, float(a @ fit.cov @ a), float(b @ fit.cov @ b), float(a @ fit.cov @ b), level
    )
    if ci is None:
        return {**out, "status": "ci_unbounded"}
    out["ci95_low"], out["ci95_high"] = ci
    return {**out, "status": "ok"}
