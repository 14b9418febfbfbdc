"""Joint acceptability model: logistic regression on all varying factors at once, with
cluster-robust (rater) standard errors, and per pace class the corner of the joint region.

Model (population-averaged, Liang & Zeger 1986):

    logit P(acceptable | x, pace) = β₀ + Σ_k β_k x_k + Σ_{p ≠ ref} γ_p [pace = p]
                                    + Σ_{(d, l)} δ_dl x_d x_l

over the varying numeric network factors x_k (a merged ``both_X`` factor is one column),
pace indicators against the first pace class present (fast, medium, slow order), and the
delay × loss products admitted by :data:`INTERACTION_RULE`. Fitted by statsmodels
``GLM(family=Binomial())`` (logit link) on the distinct (profile, rater, outcome) rows with
``freq_weights`` = their counts: the same likelihood, score and per-rater score sums as the
per-rating fit. The covariance is the cluster-robust sandwich by rater (``cov_type=
"cluster"``) computed without statsmodels' small-sample factor, which with frequency weights
would count distinct rows instead of ratings; the per-rating factor G/(G−1)·(N−1)/(N−K)
(G raters, N ratings, K parameters) is applied instead, so the SEs equal those of the
per-rating fit (a test checks it). Wald intervals coef ± z₀.₉₇₅·se, two-sided normal p;
odds ratios exp(coef) with exp of the CI.

Not estimable (``status`` "not_estimable" with the reason): no varying numeric factor;
fewer raters than parameters + 1 (the cluster-robust covariance has rank ≤ G − 1);
fewer than 10 events (the rarer outcome) per predictor (Peduzzi et al. 1996); collinear
design columns; perfect or quasi-perfect separation (statsmodels' warning, or fitted
probabilities within 1e−8 of 0 or 1); no convergence.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.models.joint_corner import (
    ALL,
    CORNER_RULE,
    JointFit,
    Profiles,
    design_rows,
    pace_corner,
)
from qoe_analysis.schema.joint_types import JointModel, JointTerm
from qoe_analysis.tabular import group_codes
from qoe_analysis.tidy.design import PACE, PACE_CLASSES

# statsmodels and SciPy are imported inside the fit: importing the package stays cheap.

__all__ = [
    "INTERACTION_RULE",
    "MIN_EVENTS_PER_PREDICTOR",
    "JointFit",
    "design_rows",
    "fit_joint",
    "joint_model_section",
]

MIN_EVENTS_PER_PREDICTOR = 10
#: ratings with both factors > 0 that a delay × loss product needs
MIN_JOINT_RATINGS = 10
INTERACTION_RULE = (
    "a delay x loss product (every varying delay factor with every varying loss factor) "
    f"enters when at least {MIN_JOINT_RATINGS} ratings have both factors > 0, the product "
    "is not a linear combination of the other columns, and the model keeps "
    f">= {MIN_EVENTS_PER_PREDICTOR} events per predictor with it"
)
METHOD = (
    "statsmodels GLM Binomial (logit) of acceptable on all varying network factors, pace "
    "indicators and delay x loss products; fitted on distinct (profile, rater, outcome) rows "
    "with frequency weights; cluster-robust covariance by rater with the per-rating "
    "small-sample factor G/(G-1)*(N-1)/(N-K); Wald 95 % intervals"
)
Z95 = 1.959963984540054
_EXTREME = 1e-8


def _term_names(
    kpis: Sequence[str], paces: Sequence[str], interactions: Sequence[tuple[str, str]]
) -> tuple[str, ...]:
    pace_terms = [f"pace[{p}]" for p in paces[1:]]
    return ("intercept", *kpis, *pace_terms, *(f"{d}:{lo}" for d, lo in interactions))


def _kind(column: str) -> str:
    return column.split("_", 1)[1] if "_" in column else column


def _candidate_pairs(kpis: Sequence[str]) -> list[tuple[str, str]]:
    delays = [k for k in kpis if _kind(k) == "delay_ms"]
    losses = [k for k in kpis if _kind(k) == "loss_pct"]
    return [(d, lo) for d in delays for lo in losses]


def _rank(matrix: np.ndarray[Any, Any]) -> int:
    scale = np.abs(matrix).max(axis=0)
    return int(np.linalg.matrix_rank(matrix / np.where(scale > 0, scale, 1.0)))


def _interactions(
    profiles: Profiles, kpis: list[str], n_params: int, events: float
) -> list[tuple[str, str]]:
    """The delay × loss products admitted by :data:`INTERACTION_RULE`, in candidate order."""
    chosen: list[tuple[str, str]] = []
    index = {k: i for i, k in enumerate(kpis)}
    for d, lo in _candidate_pairs(kpis):
        both = (profiles.x[:, index[d]] > 0) & (profiles.x[:, index[lo]] > 0)
        if profiles.weight[both].sum() < MIN_JOINT_RATINGS:
            continue
        if events / (n_params + len(chosen)) < MIN_EVENTS_PER_PREDICTOR:
            break  # one more predictor would fall below the events-per-predictor rule
        # ranks on the distinct conditions: the same column space as every rating's rows
        x, pace = profiles.cond_x, profiles.cond_pace
        base = design_rows(x, pace, kpis, profiles.paces, chosen)
        trial = design_rows(x, pace, kpis, profiles.paces, [*chosen, (d, lo)])
        if _rank(trial) > _rank(base):
            chosen.append((d, lo))
    return chosen


def fit_weights(profiles: Profiles, equal_raters: bool) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Weight of each distinct row: its count, times (N/G)/n_r when every rater counts
    equally (n_r the rater's ratings), so that the weights still sum to N."""
    if not equal_raters:
        return profiles.weight
    per_rater = np.bincount(profiles.rater, weights=profiles.weight)
    g = np.count_nonzero(per_rater)
    share = per_rater.sum() / g / np.where(per_rater > 0, per_rater, 1.0)
    return np.asarray(profiles.weight * share[profiles.rater], dtype=np.float64)


def _irls(
    design: np.ndarray[Any, Any], profiles: Profiles, equal_raters: bool
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], str | None]:
    """(coef, cluster-robust covariance, problem) of the weighted GLM. ``design`` has one
    row per condition (``profiles.cond``); columns are scaled by their largest absolute
    value for the solver and mapped back.

    The point estimates come from statsmodels on the (condition, outcome) sums of the
    weights — the same likelihood as every rating. The covariance is the cluster-robust
    sandwich B·M·B that statsmodels' ``cov_type="cluster"`` computes, B = (XᵀWX)⁻¹ with
    W = w·μ(1 − μ), M = Σ_g s_g s_gᵀ, s_g = Σ_{i∈g} w_i (y_i − μ_i) x_i over rater g's
    rows, times G/(G−1)·(N−1)/(N−K); summed per rater with bincount, since a rater's rows
    do not collapse across raters."""
    # the GLM's own modules, not statsmodels.api (which imports every model it has)
    from statsmodels.genmod.families import Binomial  # type: ignore[import-untyped]
    from statsmodels.genmod.generalized_linear_model import GLM  # type: ignore[import-untyped]
    from statsmodels.tools.sm_exceptions import (  # type: ignore[import-untyped]
        ConvergenceWarning,
        PerfectSeparationWarning,
    )

    scale = np.abs(design).max(axis=0)
    scale[scale == 0] = 1.0
    x = design / scale
    w = fit_weights(profiles, equal_raters)
    n_cond = x.shape[0]
    sums = np.bincount(profiles.cond * 2 + profiles.y.astype(np.int64), w, minlength=2 * n_cond)
    cell = np.flatnonzero(sums > 0)
    model = GLM(
        (cell % 2).astype(np.float64),
        x[cell // 2],
        family=Binomial(),
        freq_weights=sums[cell],
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = model.fit(maxiter=100)
    kinds = {type(m.message) for m in caught}
    beta = np.asarray(res.params)
    mu = 0.5 * (1.0 + np.tanh(0.5 * (x @ beta)))  # per condition
    if PerfectSeparationWarning in kinds or bool(((mu < _EXTREME) | (mu > 1 - _EXTREME)).any()):
        return beta, np.zeros((beta.size, beta.size)), "perfect or quasi-perfect separation"
    if ConvergenceWarning in kinds or not res.converged:
        return beta, np.zeros((beta.size, beta.size)), "the fit did not converge"
    total = sums[0::2] + sums[1::2]
    bread = np.linalg.inv((x * (total * mu * (1 - mu))[:, None]).T @ x)
    resid = w * (profiles.y - mu[profiles.cond])
    g = int(profiles.rater.max()) + 1
    per_rater = np.column_stack(
        [
            np.bincount(profiles.rater, resid * x[profiles.cond, j], minlength=g)
            for j in range(x.shape[1])
        ]
    )
    meat = per_rater.T @ per_rater
    n, k = float(profiles.weight.sum()), x.shape[1]
    groups = int(np.count_nonzero(np.bincount(profiles.rater, minlength=g)))
    factor = groups / (groups - 1) * (n - 1) / (n - k)
    cov = bread @ meat @ bread * factor / np.outer(scale, scale)
    return beta / scale, cov, None


def _profiles(
    factors: pd.DataFrame, y: np.ndarray[Any, Any], raters: np.ndarray[Any, Any], kpis: list[str]
) -> Profiles:
    """The distinct (factors, pace, rater, outcome) rows and their counts."""
    rater_codes = pd.factorize(np.asarray(raters))[0]
    frame = factors[[*kpis, PACE]].copy(deep=False)
    frame["__rater"] = rater_codes
    frame["__y"] = np.asarray(y, dtype=np.int64)
    codes, table = group_codes(frame, [*kpis, PACE, "__rater", "__y"])
    cond, conditions = group_codes(table, [*kpis, PACE])
    pace = conditions[PACE].astype(str).to_numpy(dtype=object)
    present = set(pace.tolist())
    paces = tuple(p for p in PACE_CLASSES if p in present) + tuple(
        sorted(present - set(PACE_CLASSES))
    )
    return Profiles(
        x=table[kpis].to_numpy(dtype=np.float64),
        pace=table[PACE].astype(str).to_numpy(dtype=object),
        paces=paces,
        rater=table["__rater"].to_numpy(dtype=np.int64),
        y=table["__y"].to_numpy(dtype=np.float64),
        weight=np.bincount(codes, minlength=len(table)).astype(np.float64),
        cond=np.asarray(cond, dtype=np.int64),
        cond_x=conditions[kpis].to_numpy(dtype=np.float64),
        cond_pace=pace,
    )


def _not_estimable(
    reason: str, formula: str, n: int, g: int, k: int, events: int, inter: list[str]
) -> JointModel:
    return {
        "method": METHOD,
        "formula": formula,
        "status": "not_estimable",
        "reason": reason,
        "n_ratings": n,
        "n_raters": g,
        "n_parameters": k,
        "n_events": events,
        "interactions": inter,
        "interaction_rule": INTERACTION_RULE,
        "corner_rule": CORNER_RULE,
        "terms": [],
        "by_pace": {},
    }


def _formula(names: Sequence[str]) -> str:
    return "acceptable ~ " + " + ".join("1" if n == "intercept" else n for n in names)


def fit_joint(
    factors: pd.DataFrame,
    y: np.ndarray[Any, Any],
    raters: np.ndarray[Any, Any],
    kpis: list[str],
    *,
    equal_raters: bool = True,
) -> tuple[JointFit | None, Profiles, JointModel]:
    """Fit the model; (fit or None when not estimable, the distinct rows, the section
    without ``by_pace``). ``kpis``: the varying network factor columns of ``factors``
    (non-numeric ones are left out); ``factors`` also holds ``game_pace``."""
    kpis = [k for k in kpis if pd.api.types.is_numeric_dtype(factors[k].dtype)]
    profiles = _profiles(factors, y, raters, kpis)
    n, g = int(profiles.weight.sum()), int(np.unique(profiles.rater).size)
    positives = float(profiles.weight[profiles.y == 1].sum())
    events = int(min(positives, n - positives))
    predictors = len(kpis) + len(profiles.paces) - 1
    names = _term_names(kpis, profiles.paces, [])
    args = (n, g, len(names), events)
    if not kpis:
        return None, profiles, _not_estimable("no varying numeric network factor", "", *args, [])
    inter = _interactions(profiles, kpis, predictors, events) if events else []
    names = _term_names(kpis, profiles.paces, inter)
    formula, k = _formula(names), len(names)
    args = (n, g, k, events)
    labels = [f"{d}:{lo}" for d, lo in inter]
    if g < k + 1:
        why = f"{g} raters for {k} parameters: cluster-robust errors need at least {k + 1}"
        return None, profiles, _not_estimable(why, formula, *args, labels)
    if events < MIN_EVENTS_PER_PREDICTOR * (k - 1):
        why = (
            f"{events} events (the rarer outcome) for {k - 1} predictors: need at least "
            f"{MIN_EVENTS_PER_PREDICTOR * (k - 1)} ({MIN_EVENTS_PER_PREDICTOR} per predictor)"
        )
        return None, profiles, _not_estimable(why, formula, *args, labels)
    design = design_rows(profiles.cond_x, profiles.cond_pace, kpis, profiles.paces, inter)
    keep, null, scale = _identified(design)
    if len(keep) < k:  # the rules count the parameters the design identifies
        k = len(keep)
        args = (n, g, k, events)
        if g < k + 1 or events < MIN_EVENTS_PER_PREDICTOR * (k - 1):
            why = f"{g} raters, {events} events for the {k} identified parameters"
            return None, profiles, _not_estimable(why, formula, *args, labels)
    coef, cov, problem = _irls(design[:, keep], profiles, equal_raters)
    if problem is not None:
        return None, profiles, _not_estimable(problem, formula, *args, labels)
    full_coef = np.zeros(len(names))
    full_cov = np.zeros((len(names), len(names)))
    full_coef[keep] = coef
    full_cov[np.ix_(keep, keep)] = cov
    fit = JointFit(
        tuple(kpis), profiles.paces, tuple(inter), names, full_coef, full_cov, null, scale
    )
    section = _not_estimable("", formula, *args, labels)
    section["status"] = "ok"
    section["terms"] = _terms(fit)
    hidden = [t["term"] for t in section["terms"] if not t["identifiable"]]
    if hidden:
        section["reason"] = (
            f"the design varies {', '.join(hidden)} together: their separate effects are not "
            "identified, only combinations the design tested (predictions along them are)"
        )
    return fit, profiles, section


def _identified(
    design: np.ndarray[Any, Any],
) -> tuple[list[int], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(a maximal set of linearly independent columns, by pivoted QR; the null space of
    the design with columns scaled by their largest absolute value, one vector per
    column; that scale)."""
    from scipy import linalg  # type: ignore[import-untyped]

    scale = np.abs(design).max(axis=0)
    scale[scale == 0] = 1.0
    scaled = design / scale
    _, s, vt = np.linalg.svd(scaled, full_matrices=False)
    tol = s.max() * max(design.shape) * np.finfo(float).eps
    rank = int((s > tol).sum())
    null = vt[rank:].T
    if rank == design.shape[1]:
        return list(range(rank)), np.zeros((design.shape[1], 0)), scale
    _, _, piv = linalg.qr(scaled, mode="economic", pivoting=True)
    return sorted(int(i) for i in piv[:rank]), null, scale


def _terms(fit: JointFit) -> list[JointTerm]:
    """The coefficients; one the design does not identify (a component of a null-space
    vector) has null numbers and ``identifiable`` false."""
    from scipy import stats

    se = np.sqrt(np.clip(np.diag(fit.cov), 0.0, None))
    out: list[JointTerm] = []
    for i, (name, b, s) in enumerate(zip(fit.names, fit.coef, se, strict=True)):
        unit = np.zeros(len(fit.names))
        unit[i] = 1.0
        if not fit.estimable(unit):
            out.append(
                {
                    "term": name,
                    "identifiable": False,
                    "coef": None,
                    "se": None,
                    "ci95_low": None,
                    "ci95_high": None,
                    "odds_ratio": None,
                    "or_ci95_low": None,
                    "or_ci95_high": None,
                    "p": None,
                }
            )
            continue
        lo, hi = b - Z95 * s, b + Z95 * s
        out.append(
            {
                "term": name,
                "identifiable": True,
                "coef": float(b),
                "se": float(s),
                "ci95_low": float(lo),
                "ci95_high": float(hi),
                "odds_ratio": float(np.exp(b)),
                "or_ci95_low": float(np.exp(lo)),
                "or_ci95_high": float(np.exp(hi)),
                "p": float(2.0 * stats.norm.sf(abs(b) / s)) if s > 0 else None,
            }
        )
    return out


def joint_model_section(
    factors: pd.DataFrame,
    y: np.ndarray[Any, Any],
    raters: np.ndarray[Any, Any],
    kpis: list[str],
    target: float = 0.5,
    *,
    equal_raters: bool = True,
) -> JointModel:
    """The ``joint_model`` document section: the fit and the corner of every pace class
    (:func:`qoe_analysis.models.joint_corner.pace_corner`) and, with several classes, of
    "all" (every game: a corner that holds for each class)."""
    fit, profiles, section = fit_joint(factors, y, raters, kpis, equal_raters=equal_raters)
    classes = [*profiles.paces, *([ALL] if len(profiles.paces) > 1 else [])]
    section["by_pace"] = {
        pace: pace_corner(fit, profiles, pace, target, section["reason"]) for pace in classes
    }
    return section
