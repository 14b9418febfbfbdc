"""Unpenalised binary logistic regression by damped Newton steps, without scikit-learn.

Rule: the returned coefficients and iteration count are, bit for bit, those of
``LogisticRegression(C=np.inf, solver="newton-cholesky", max_iter=M, tol=T,
fit_intercept=False).fit(X, y, sample_weight=w)`` in scikit-learn 1.9 (the installed
version; sources ``linear_model/_glm/_newton_solver.py`` ``NewtonSolver`` /
``NewtonCholeskySolver``, ``linear_model/_linear_loss.py`` ``LinearModelLoss`` and the
``HalfBinomialLoss`` kernels of ``_loss/_loss.pyx.tp``), for the one case the analysis
needs: dense float64 ``X`` without an intercept column added, ``y`` in {0, 1} with both
values present, positive weights, no penalty (C = inf gives an L2 strength of exactly 0).

Importing scikit-learn costs ~1.2 s (it imports scipy.stats); this module needs numpy and,
for the Newton step, ``scipy.linalg.solve`` (the LAPACK symmetric solver scikit-learn calls,
so the step is the same to the last bit). The objective is scikit-learn's: the weighted
mean of the half binomial deviance, ``Σ wᵢ ℓ(yᵢ, xᵢᵀβ) / Σ wᵢ``.

The iteration (Newton's method with Armijo backtracking, Nocedal & Wright 2006, ch. 3;
stop when max |gradient| ≤ tol and half the squared Newton decrement ≤ tol, Boyd &
Vandenberghe 2004, §9.5.1) repeats scikit-learn's floating-point operations in the same
order: the same branch cut-offs for log(1 + eˣ) and the logistic gradient/Hessian, exp,
log and log1p from the C library (Python's ``math`` calls it, as the compiled loss
does; numpy's vectorised exp/log may differ in the last bit), the same numpy reductions
and BLAS products on equally laid-out arrays.

Where scikit-learn gives up on Newton and finishes with L-BFGS (pointwise Hessian ≤ 0
for more than a quarter of the weight, a singular or ill-conditioned Hessian, a step
that is not a descent direction, a line search that fails in 21 halvings, or a
non-finite gradient where it would compute a norm), this module does not imitate L-BFGS:
it returns ``needs_fallback=True`` and the caller must fit with scikit-learn itself.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["NewtonLogisticFit", "NewtonNotConvergedWarning", "newton_logistic"]

Array = np.ndarray[Any, np.dtype[np.float64]]

# Line search constants of scikit-learn's NewtonSolver: halve the step, Armijo slope 2⁻¹¹,
# at most 21 trial steps (down to t = 2⁻²⁰), "no change" = within 16 ulp of the loss.
_BETA = 0.5
_SIGMA = 0.00048828125
_MAX_HALVINGS = 21
_EPS16 = 16 * np.finfo(np.float64).eps
# Share of the weight with a non-positive pointwise Hessian above which scikit-learn
# switches to L-BFGS (LinearModelLoss.gradient_hessian, "hessian_warning").
_HESSIAN_WARNING_SHARE = 0.25


class NewtonNotConvergedWarning(UserWarning):
    """Newton's method used up ``max_iter`` steps (scikit-learn warns likewise)."""


@dataclass(frozen=True)
class NewtonLogisticFit:
    """Result of :func:`newton_logistic`.

    ``coef`` and ``n_iter`` equal scikit-learn's ``coef_[0]`` and ``n_iter_[0]`` unless
    ``needs_fallback`` is set; then they are the Newton iterate where scikit-learn would
    have switched to L-BFGS, and are not its answer.
    """

    coef: Array
    n_iter: int
    converged: bool
    needs_fallback: bool


def _libm(fn: Callable[[float], float], values: Array) -> Array:
    """``fn`` (a ``math`` function, i.e. the C library's) applied elementwise."""
    out: Iterable[float] = map(fn, values.tolist())
    return np.fromiter(out, dtype=np.float64, count=values.size)


def _log1pexp(x: Array) -> Array:
    """log(1 + eˣ) with the cut-offs of scikit-learn's ``log1pexp`` (-37, -2, 18, 33.3).

    Beyond 33.3 (and for NaN, which fails every comparison) the value is x itself.
    """
    out = x.copy()
    low = x <= -37
    mid = ~low & (x <= -2)
    centre = ~low & ~mid & (x <= 18)
    high = ~low & ~mid & ~centre & (x <= 33.3)
    out[low] = _libm(math.exp, x[low])
    out[mid] = _libm(math.log1p, _libm(math.exp, x[mid]))
    out[centre] = _libm(math.log, 1.0 + _libm(math.exp, x[centre]))
    out[high] = x[high] + _libm(math.exp, -x[high])
    return out


def _pointwise_loss(y: Array, raw: Array, sw: Array) -> Array:
    """wᵢ · (log(1 + e^rawᵢ) − yᵢ rawᵢ): scikit-learn's ``closs_half_binomial``."""
    return sw * (_log1pexp(raw) - y * raw)


def _pointwise_loss_gradient(y: Array, raw: Array, sw: Array) -> tuple[Array, Array]:
    """Weighted loss and d loss / d raw: scikit-learn's ``closs_grad_half_binomial``.

    Four branches at raw ≤ -37, ≤ -2, ≤ 18, else (NaN goes to the last); the exponential
    is taken of raw in the first two and of −raw in the others, so it never overflows.
    """
    loss = np.empty_like(raw)
    grad = np.empty_like(raw)
    low = raw <= -37
    mid = ~low & (raw <= -2)
    rest = ~low & ~mid
    centre = rest & (raw <= 18)
    high = rest & ~centre

    r, t = raw[low], y[low]
    e = _libm(math.exp, r)
    loss[low] = e - t * r
    grad[low] = e - t

    r, t = raw[mid], y[mid]
    e = _libm(math.exp, r)
    loss[mid] = _libm(math.log1p, e) - t * r
    grad[mid] = ((1.0 - t) * e - t) / (1.0 + e)

    r, t = raw[rest], y[rest]
    e = _libm(math.exp, -r)
    grad[rest] = ((1.0 - t) - t * e) / (1.0 + e)
    e_centre, e_high = e[centre[rest]], e[high[rest]]
    loss[centre] = _libm(math.log1p, e_centre) + (1.0 - y[centre]) * raw[centre]
    loss[high] = e_high + (1.0 - y[high]) * raw[high]
    return sw * loss, sw * grad


def _pointwise_gradient_hessian(y: Array, raw: Array, sw: Array) -> tuple[Array, Array]:
    """Weighted d/d raw and d²/d raw²: scikit-learn's ``cgrad_hess_half_binomial``.

    For raw > -37: e = e^−raw, gradient ((1 − y) − y e)/(1 + e), Hessian e/(1 + e)²;
    otherwise (and for NaN) e = e^raw, gradient e − y, Hessian e.
    """
    grad = np.empty_like(raw)
    hess = np.empty_like(raw)
    upper = raw > -37
    lower = ~upper

    r, t = raw[upper], y[upper]
    e = _libm(math.exp, -r)
    grad[upper] = ((1.0 - t) - t * e) / (1.0 + e)
    d = 1.0 + e
    hess[upper] = e / (d * d)

    e = _libm(math.exp, raw[lower])
    grad[lower] = e - y[lower]
    hess[lower] = e
    return sw * grad, sw * hess


def _check_inputs(x: Any, y: Any, sample_weight: Any) -> tuple[Array, Array, Array]:
    """The arrays as scikit-learn's validation leaves them (C-ordered float64 copies)."""
    design = np.ascontiguousarray(x, dtype=np.float64)
    target = np.ascontiguousarray(y, dtype=np.float64)
    sw = np.array(sample_weight, dtype=np.float64, order="C", copy=True)
    if design.ndim != 2 or design.shape[1] == 0:
        raise ValueError(f"x must be a 2-D array with at least one column, got {design.shape}")
    n = design.shape[0]
    if target.shape != (n,) or sw.shape != (n,):
        raise ValueError(
            f"y and sample_weight must have one entry per row of x ({n}), "
            f"got {target.shape} and {sw.shape}"
        )
    if not np.all(np.isfinite(design)):
        raise ValueError("x must be finite")
    if not np.all((target == 0.0) | (target == 1.0)) or np.unique(target).size != 2:
        raise ValueError("y must contain 0 and 1 and nothing else")
    if not np.all(np.isfinite(sw) & (sw > 0)):
        raise ValueError("sample_weight must be finite and > 0")
    return design, target, sw


def newton_logistic(
    x: Any, y: Any, sample_weight: Any, *, max_iter: int = 200, tol: float = 1e-10
) -> NewtonLogisticFit:
    """Weighted MLE of logit P(y = 1 | x) = xᵀβ, bit-identical to scikit-learn's
    newton-cholesky solver with C = inf and ``fit_intercept=False`` (module docstring).

    Raises ValueError for input outside that case (y not binary with both classes,
    weights not positive, x not a finite 2-D array). Warns
    :class:`NewtonNotConvergedWarning` when ``max_iter`` steps do not converge.
    """
    from numpy.linalg import LinAlgError
    from scipy.linalg import LinAlgWarning, solve  # type: ignore[import-untyped]

    design, target, sw = _check_inputs(x, y, sample_weight)
    xt = design.T
    sw_sum = np.sum(sw)
    coef: Array = np.zeros(design.shape[1], dtype=np.float64)

    def raw_of(c: Array) -> Array:
        # scikit-learn adds the (zero) intercept to X @ coef; adding 0.0 is kept because
        # it turns a -0.0 into +0.0 exactly as there.
        result: Array = design @ c + 0.0
        return result

    def loss_gradient(c: Array, raw: Array) -> tuple[float, Array]:
        point_loss, point_grad = _pointwise_loss_gradient(target, raw, sw)
        value = float(np.sum(point_loss) / sw_sum)
        # the L2 term with strength 0: 0.0, or NaN when ‖c‖² overflows, as there
        value += float(0.5 * 0.0 * (c @ c))
        point_grad /= sw_sum
        grad: Array = xt @ point_grad + 0.0 * c
        return value, grad

    def norm1(v: Array) -> float | None:
        # scipy.linalg.norm(v, ord=1) (check_finite) raises on inf/NaN: report None
        if not np.all(np.isfinite(v)):
            return None
        return float(np.add.reduce(np.abs(v)))

    with np.errstate(all="ignore"):
        raw = raw_of(coef)
        loss_value = float(np.sum(_pointwise_loss(target, raw, sw)) / sw_sum)
        iteration = 1
        converged = False
        fallback = False
        while iteration <= max_iter and not converged:
            # 1. gradient and Hessian at coef (pointwise parts scaled by 1 / Σw)
            point_grad, point_hess = _pointwise_gradient_hessian(target, raw, sw)
            point_grad /= sw_sum
            point_hess /= sw_sum
            if np.average(point_hess <= 0, weights=sw) > _HESSIAN_WARNING_SHARE:
                fallback = True
                break
            point_hess = np.abs(point_hess)
            gradient: Array = xt @ point_grad + 0.0 * coef
            hessian: Array = xt @ (point_hess[:, None] * design)

            # 2. Newton step H s = −g by LAPACK's symmetric solver; an ill-conditioned H
            # (LinAlgWarning) counts as failure, as in scikit-learn
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("error", LinAlgWarning)
                    step: Array = solve(hessian, -gradient, check_finite=False, assume_a="sym")
            except (LinAlgError, LinAlgWarning):
                fallback = True
                break
            slope = gradient @ step
            if slope > 0:  # not a descent direction
                fallback = True
                break

            # 3. backtracking line search from t = 1
            armijo = _SIGMA * slope
            raw_step = raw_of(step)
            coef_old, loss_old, gradient_old = coef, loss_value, gradient
            sum_abs_old: float | None = -1.0
            t = 1.0
            accepted = False
            for _ in range(_MAX_HALVINGS):
                coef = coef_old + t * step
                raw_t = raw + t * raw_step
                loss_value, gradient = loss_gradient(coef, raw_t)
                improvement = loss_value - loss_old
                if improvement <= t * armijo:  # sufficient decrease
                    accepted = True
                    break
                if np.abs(improvement) <= np.abs(loss_old * _EPS16):
                    # no measurable change in the loss: accept a smaller |gradient|₁
                    if sum_abs_old is not None and sum_abs_old < 0:
                        sum_abs_old = norm1(gradient_old)
                    sum_abs = norm1(gradient)
                    if sum_abs_old is None or sum_abs is None:
                        fallback = True
                        break
                    if sum_abs < sum_abs_old:
                        accepted = True
                        break
                t *= _BETA
            if not accepted:
                fallback = True
                break
            raw = raw_t

            # 4. convergence: max |g| ≤ tol and ½ sᵀ H s ≤ tol (H, s of this iteration)
            if np.max(np.abs(gradient)) <= tol and 0.5 * (step @ hessian @ step) <= tol:
                converged = True
            iteration += 1

    if not converged and not fallback:
        warnings.warn(
            f"Newton solver did not converge after {iteration - 1} iterations.",
            NewtonNotConvergedWarning,
            stacklevel=2,
        )
    return NewtonLogisticFit(
        coef=coef, n_iter=iteration - 1, converged=converged, needs_fallback=fallback
    )
