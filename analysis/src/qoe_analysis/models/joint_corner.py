"""The joint corner of a pace class: where every bound is reached at once.

Rule (:data:`CORNER_RULE`): the class's tested maxima M of the factors a policy bounds
(delay, jitter, loss; per direction or ``both_``) are shrunk along one ray, x(t) = t·M,
t ∈ (0, 1]. Any other varying factor (Gilbert–Elliott parameters, rate…) is no policy
metric, and its zero need not be "unimpaired": the corner must hold at each of its tested
levels (combinations) in the class, so L below is the smallest over them (and, for the
class "all", over the pace classes). With the joint model's linear predictor
η(t) = r(t)ᵀβ, r(t) the design row of x(t) and the class,
its delta-method standard error se(t) = √(r(t)ᵀ V r(t)) (V the cluster-robust covariance)
and the lower 95 % bound L(t) = logistic(η(t) − z₀.₉₇₅·se(t)), the corner is x(t*) with t*
the largest t such that L ≥ target on the whole segment (0, t] (the first crossing from
the unimpaired end, found on a grid of 1000 steps and refined by bisection). There is no
bound when L(0) < target (even the unimpaired play is not acceptable with 95 % confidence)
or when the model is not estimable, or when the design does not identify r(t)ᵀβ (its
factors always varied together in other proportions: r(t) not orthogonal to the null
space of the design).

Beside it: ``predicted`` = logistic(η(t*)) with its Wald interval; ``observed_share`` /
``observed_n`` = the share acceptable among the class's ratings near the corner, i.e.
every factor ≤ its corner value and at least one factor ≥ half its corner value;
``extrapolated`` = no tested condition of the class reaches the corner in every factor at
once (none has x ≥ corner componentwise), so the model, not the data, speaks for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from qoe_analysis.schema.joint_types import JointCorner

__all__ = [
    "ALL",
    "CORNER_RULE",
    "METRIC_KINDS",
    "JointFit",
    "Profiles",
    "corner_search",
    "design_rows",
    "is_metric",
    "pace_corner",
]

CORNER_RULE = (
    "tested maxima of the class's delay, jitter and loss factors scaled by t in (0, 1] (any "
    "other varying factor at each of its tested levels in turn): the largest t with the lower 95 % "
    "bound of the predicted P(acceptable) (delta method, cluster-robust covariance) >= "
    "target on the whole segment (0, t]; observed = ratings of the class with every factor "
    "<= the corner and at least one factor >= half its corner value; extrapolated = no "
    "tested condition of the class reaches the corner in every factor at once"
)
Z95 = 1.959963984540054
_GRID = 1000
#: the class of every game: its corner must hold for each pace class
ALL = "all"
#: the factor kinds a policy bounds (netem_profile.factors keys with their unit)
METRIC_KINDS = ("delay_ms", "jitter_ms", "loss_pct")
_BISECTIONS = 60


@dataclass(frozen=True)
class Profiles:
    """Distinct (factors, pace, rater, outcome) rows with their counts (``weight``)."""

    x: np.ndarray[Any, np.dtype[np.float64]]  # rows × kpis
    pace: np.ndarray[Any, Any]
    paces: tuple[str, ...]  # reference class first
    rater: np.ndarray[Any, np.dtype[np.int64]]
    y: np.ndarray[Any, np.dtype[np.float64]]
    weight: np.ndarray[Any, np.dtype[np.float64]]
    #: condition (distinct factors and pace) of each row, and the conditions' values
    cond: np.ndarray[Any, np.dtype[np.int64]]
    cond_x: np.ndarray[Any, np.dtype[np.float64]]
    cond_pace: np.ndarray[Any, Any]


@dataclass(frozen=True)
class JointFit:
    """The fitted model: design column names (intercept first), coefficients and the
    cluster-robust covariance in the factors' own units."""

    kpis: tuple[str, ...]
    paces: tuple[str, ...]  # reference class first
    interactions: tuple[tuple[str, str], ...]
    names: tuple[str, ...]
    coef: np.ndarray[Any, np.dtype[np.float64]]
    cov: np.ndarray[Any, np.dtype[np.float64]]
    #: null space of the design (columns scaled by ``scale``), one vector per column
    null_space: np.ndarray[Any, np.dtype[np.float64]]
    scale: np.ndarray[Any, np.dtype[np.float64]]

    def estimable(self, row: np.ndarray[Any, Any]) -> bool:
        """Whether rowᵀβ is identified by the design (row ⟂ null space; a coefficient
        the design does not identify is 0 in ``coef``, so only such rows are meaningful)."""
        if self.null_space.size == 0:
            return True
        scaled = np.asarray(row, dtype=np.float64) / self.scale
        size = max(float(np.linalg.norm(scaled)), 1.0)
        return bool(np.abs(scaled @ self.null_space).max() <= 1e-8 * size)


def design_rows(
    x: np.ndarray[Any, Any],
    pace: Sequence[str] | np.ndarray[Any, Any],
    kpis: Sequence[str],
    paces: Sequence[str],
    interactions: Sequence[tuple[str, str]],
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Design matrix [1, x_k…, pace indicators (all but the first class)…, x_d·x_l…]
    for factor rows ``x`` (columns in ``kpis`` order) and their pace classes."""
    x = np.asarray(x, dtype=np.float64).reshape(-1, len(kpis))
    pace_arr = np.asarray(pace, dtype=object)
    cols = [np.ones(x.shape[0]), *x.T]
    cols += [(pace_arr == p).astype(np.float64) for p in paces[1:]]
    index = {k: i for i, k in enumerate(kpis)}
    cols += [x[:, index[d]] * x[:, index[lo]] for d, lo in interactions]
    return np.column_stack(cols)


def _expit(z: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.float64]]:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=np.float64))))


#: (pace class, factor values added to t·M: the fixed levels of the non-metric factors)
Setting = tuple[str, np.ndarray[Any, Any]]


def is_metric(column: str) -> bool:
    """Whether a factor column is a policy metric (delay, jitter, loss of a direction or
    both): the factors the ray scales."""
    return column.split("_", 1)[-1] in METRIC_KINDS


def _rows(
    fit: JointFit, setting: Setting, maxima: np.ndarray[Any, Any], t: np.ndarray[Any, Any]
) -> np.ndarray[Any, np.dtype[np.float64]]:
    pace, fixed = setting
    x = fixed[None, :] + t[:, None] * maxima[None, :]
    return design_rows(x, [pace] * t.size, fit.kpis, fit.paces, fit.interactions)


def _eta_se(
    fit: JointFit, setting: Setting, maxima: np.ndarray[Any, Any], t: np.ndarray[Any, Any]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    rows = _rows(fit, setting, maxima, t)
    se = np.sqrt(np.clip(np.einsum("ij,jk,ik->i", rows, fit.cov, rows), 0.0, None))
    return rows @ fit.coef, se


def corner_search(
    fit: JointFit,
    settings: Sequence[Setting] | Sequence[str],
    maxima: np.ndarray[Any, Any],
    target: float,
) -> tuple[float | None, float]:
    """(t*, L(0)) of :data:`CORNER_RULE` (t* None when L(0) < target); with several
    settings (pace classes, levels of the non-metric factors) L is the smallest lower
    bound over them (the corner must hold for each). A bare pace name is the setting
    with every non-metric factor at 0."""
    fixed = [
        (s, np.zeros(len(fit.kpis))) if isinstance(s, str) else (s[0], np.asarray(s[1]))
        for s in settings
    ]

    def lower(t: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        bounds = []
        for setting in fixed:
            eta, se = _eta_se(fit, setting, maxima, t)
            bounds.append(_expit(eta - Z95 * se))
        return np.asarray(np.min(np.vstack(bounds), axis=0), dtype=np.float64)

    grid = np.linspace(0.0, 1.0, _GRID + 1)
    low = lower(grid)
    if low[0] < target:
        return None, float(low[0])
    fails = np.flatnonzero(low < target)
    if fails.size == 0:
        return 1.0, float(low[0])
    a, b = float(grid[fails[0] - 1]), float(grid[fails[0]])
    for _ in range(_BISECTIONS):  # L(a) >= target > L(b)
        mid = 0.5 * (a + b)
        if lower(np.array([mid]))[0] >= target:
            a = mid
        else:
            b = mid
    return (a if a > 0 else None), float(low[0])


def _empty(status: str, reason: str, target: float, maxima: dict[str, float]) -> JointCorner:
    return {
        "status": "no_bound" if status != "ok" else "ok",
        "reason": reason,
        "target": target,
        "corner": None,
        "tested_max": maxima,
        "scale": None,
        "predicted": None,
        "predicted_ci95": None,
        "observed_share": None,
        "observed_n": 0,
        "extrapolated": None,
    }


def _hidden(fit: JointFit) -> str:
    involved = np.flatnonzero(np.abs(fit.null_space).max(axis=1) > 1e-8)
    return ", ".join(fit.names[i] for i in involved)


def _settings(fit: JointFit, paces: Sequence[str], x: np.ndarray[Any, Any]) -> list[Setting]:
    """Every (pace, tested combination of the non-metric factors) of the class."""
    other = np.array([not is_metric(k) for k in fit.kpis])
    combos = np.unique(x[:, other], axis=0) if other.any() else np.zeros((1, 0))
    out: list[Setting] = []
    for pace in paces:
        for combo in combos:
            fixed = np.zeros(len(fit.kpis))
            fixed[other] = combo
            out.append((pace, fixed))
    return out


def pace_corner(
    fit: JointFit | None, profiles: Profiles, pace: str, target: float, model_reason: str
) -> JointCorner:
    """The corner of class ``pace`` (:data:`CORNER_RULE`); ``fit`` None: not estimable.

    ``pace`` "all" (every game): the ratings of every class, and the corner must hold for
    each pace class. ``predicted`` and its interval are those of the setting (class,
    levels of the non-metric factors) with the smallest lower bound at the corner."""
    paces = tuple(profiles.paces) if pace == ALL else (pace,)
    mine = np.isin(profiles.pace, paces) & (profiles.weight > 0)
    x, y, w = profiles.x[mine], profiles.y[mine], profiles.weight[mine]
    if fit is None:
        why = f"the joint model is not estimable: {model_reason}"
        return _empty("no_bound", why, target, {})
    kpis = fit.kpis
    metric = np.array([is_metric(k) for k in kpis], dtype=bool)
    maxima = (x.max(axis=0) if x.size else np.zeros(x.shape[1])) * metric
    tested = {k: float(v) for k, v in zip(kpis, maxima, strict=True) if is_metric(k)}
    if not (maxima > 0).any():
        return _empty("no_bound", "no delay, jitter or loss was tested here", target, tested)
    settings = _settings(fit, paces, x)
    probes = np.array([0.0, 0.5, 1.0])  # r(t)·v is a quadratic in t: zero at 3 points
    if not all(fit.estimable(r) for s in settings for r in _rows(fit, s, maxima, probes)):
        why = (
            "the design does not identify P(acceptable) along the tested maxima of this "
            "class (factors varied together in other proportions: " + _hidden(fit) + ")"
        )
        return _empty("no_bound", why, target, tested)
    t, low0 = corner_search(fit, settings, maxima, target)
    if t is None:
        why = (
            f"even unimpaired (t -> 0) the lower 95 % bound of P(acceptable) is {low0:.3f} "
            f"< target {target:g}"
        )
        return _empty("no_bound", why, target, tested)
    corner = t * maxima
    fits = [_eta_se(fit, s, maxima, np.array([t])) for s in settings]
    eta, se = min(fits, key=lambda f: float(f[0][0] - Z95 * f[1][0]))
    xm, cm = x[:, metric], corner[metric]
    tol = 1e-9 * np.maximum(np.abs(cm), 1.0)
    positive = cm > 0
    near = (xm <= cm + tol).all(axis=1)
    near &= (xm[:, positive] >= cm[positive] / 2.0 - tol[positive]).any(axis=1)
    n_near = float(w[near].sum())
    reach = (xm >= cm - tol).all(axis=1).any()
    out = _empty("ok", "", target, tested)
    out.update(
        {
            "reason": "at every tested maximum" if t == 1.0 else f"tested maxima scaled by {t:.4g}",
            "corner": {k: float(v) for k, v in zip(kpis, corner, strict=True) if is_metric(k)},
            "scale": float(t),
            "predicted": float(_expit(eta)[0]),
            "predicted_ci95": [
                float(_expit(eta - Z95 * se)[0]),
                float(_expit(eta + Z95 * se)[0]),
            ],
            "observed_share": float((w[near] * y[near]).sum() / n_near) if n_near else None,
            "observed_n": round(n_near),
            "extrapolated": not bool(reach),
        }
    )
    return out
