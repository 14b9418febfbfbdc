"""One bound of the QoE policy: a class's limit on one metric in one direction, and the
interval that comes with it.

How a bound is chosen, per pace class p, direction d (downstream = server→client,
upstream = client→server) and metric (delay, loss, and jitter = one-way delay variation
when the study varied it; a metric whose factor did not vary in a direction has no
threshold and so no bound there) — the ``basis`` field says which rule applied:

1. ``tree_split``: the REP tree places a split on this direction's factor (the first
   split where P(acceptable) drops below ½). Its ``tested_bracket`` says between which
   tested levels the true threshold lies.
2. ``tree_tested_maximum``: the tree finds every tested level acceptable and the design
   varied this direction alone, so the bound is the largest tested level (all that the
   data supports; the true threshold lies beyond it).
3. ``symmetric_logistic`` / ``symmetric_tree`` / ``symmetric_tested_maximum``: otherwise
   — typically the table-4.1 design, where no condition varies one direction alone (A1/A2
   change delay *and* loss of one direction together) and the per-direction logistic
   threshold is not identifiable — the "both directions" estimate is applied to this
   direction alone (logistic if its Fieller CI is bounded, else the tree). Under monotone
   impairment this is conservative: a path with this value on one direction only is no
   worse than one with it on both.
4. ``not_acceptable_at_zero``: the class is not acceptable even without impairment; the
   bound is null.

Each bound carries an ``interval`` from the same estimator as the bound: for a tree bound
the bracket of tested levels around its split (or "beyond the largest tested level"), for
a logistic bound its Fieller 95 % CI, which is also ``ci95`` (null for tree bounds). The
other estimator's value and CI stay in ``estimates``, with their own basis. Intervals are
clipped to the physical range and marked ``extrapolated`` when they reach beyond the
tested levels. Bounds are *marginal*:
each holds with every other factor at its baseline (0 in table 4.1; see
``thresholds.baseline``); the evaluator checks combinations.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["finite", "metric_bound"]


def finite(value: Any) -> float | None:
    if value is None:
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def _ci(entry: Mapping[str, Any], source: str) -> dict[str, Any] | None:
    low, high = finite(entry.get("ci95_low")), finite(entry.get("ci95_high"))
    if entry.get("logistic_status") != "ok" or low is None or high is None:
        return None
    return {"low": low, "high": high, "source": source}


def _ci_pair(entry: Mapping[str, Any]) -> list[float] | None:
    ci = _ci(entry, "")
    return [ci["low"], ci["high"]] if ci else None


def _interval(
    low: float | None, high: float | None, kind: str, estimator: str, extrapolated: bool
) -> dict[str, Any]:
    return {
        "low": finite(low),
        "high": finite(high),
        "kind": kind,
        "estimator": estimator,
        "extrapolated": bool(extrapolated),
    }


def metric_bound(
    entry: Mapping[str, Any], symmetric: Mapping[str, Any], metric_type: str, unit: str
) -> dict[str, Any]:
    """One metric bound from the direction's and the symmetric threshold entries.

    The bound and its ``interval`` always come from one estimator: a tree bound carries
    the bracket of tested levels around its split (or "beyond the largest tested level"),
    a logistic bound its own Fieller 95 % CI (also in ``ci95``). The other estimator's
    value and CI are listed in ``estimates`` with their own basis, never as the bound's CI.
    """
    notes: list[str] = []
    tested = [float(v) for v in entry.get("tested_levels") or []]
    sym_tested = [float(v) for v in symmetric.get("tested_levels") or []]
    bound: float | None
    ci: dict[str, Any] | None = None
    interval: dict[str, Any] | None = None
    bracket = entry.get("tree_tested_bracket")
    status = entry.get("tree_status")
    alone = bool(entry.get("varied_alone_in_design", False))
    if status == "split" and entry.get("tree") is not None:
        bound, basis = float(entry["tree"]), "tree_split"
        if not alone:
            notes.append(
                "no tested condition varies this direction alone; the tree split extrapolates "
                "from conditions where it changes together with other factors"
            )
        lo, hi = bracket if bracket else (None, None)
        interval = _interval(lo, hi, "tested_bracket", "tree", not alone)
    elif status == "acceptable_at_all_tested_levels" and alone:
        bound, basis, bracket = max(tested), "tree_tested_maximum", None
        notes.append("acceptable at every tested level: the threshold lies beyond this bound")
        interval = _interval(bound, None, "beyond_tested_range", "tree", False)
    elif status == "not_acceptable_at_zero":
        bound, basis, bracket = None, "not_acceptable_at_zero", None
        notes.append("not acceptable even without impairment: no bound keeps the flow acceptable")
    else:
        bracket = None
        if symmetric.get("logistic_status") == "ok" and finite(symmetric.get("logistic")):
            bound, basis = finite(symmetric.get("logistic")), "symmetric_logistic"
            ci = _ci(symmetric, "logistic_symmetric")
            if ci is not None:
                interval = _interval(
                    ci["low"],
                    ci["high"],
                    "fieller_95",
                    "logistic",
                    bool(symmetric.get("logistic_extrapolated", False)),
                )
        elif symmetric.get("tree_status") == "split" and symmetric.get("tree") is not None:
            bound, basis = float(symmetric["tree"]), "symmetric_tree"
            bracket = symmetric.get("tree_tested_bracket")
            if bracket:
                interval = _interval(bracket[0], bracket[1], "tested_bracket", "tree", True)
        elif symmetric.get("tree_status") == "acceptable_at_all_tested_levels" and sym_tested:
            bound, basis = max(sym_tested), "symmetric_tested_maximum"
            interval = _interval(bound, None, "beyond_tested_range", "tree", False)
        else:
            bound, basis = None, "not_acceptable_at_zero"
        notes.append(
            "this direction's own threshold is not estimable from the design ("
            f"tree: {status}, logistic: {entry.get('logistic_status')}); the estimate for the "
            "same value on both directions is applied to this direction alone, which is "
            "conservative under monotone impairment"
        )
    if interval is not None and interval["extrapolated"]:
        notes.append("the interval extrapolates beyond what the design tested")
    if ci is None and basis != "not_acceptable_at_zero":
        alternative = _ci(entry, "logistic_direction") or _ci(symmetric, "logistic_symmetric")
        if alternative is None:
            notes.append("no bounded logistic 95 % CI for this quantity")
        else:
            notes.append(
                f"the logistic estimate has its own 95 % CI [{alternative['low']:.4g}, "
                f"{alternative['high']:.4g}] ({alternative['source']}, see estimates); it is "
                "not an interval around this tree bound"
            )
    return {
        "metric_type": metric_type,
        "metric_unit": unit,
        "bound": bound,
        "basis": basis,
        "ci95": ci,
        "interval": interval,
        "tested_bracket": [finite(v) for v in bracket] if bracket else None,
        "estimates": {
            "tree": finite(entry.get("tree")),
            "tree_status": status,
            "tree_tested_bracket": entry.get("tree_tested_bracket"),
            "logistic": finite(entry.get("logistic")),
            "logistic_status": entry.get("logistic_status"),
            "logistic_ci95": _ci_pair(entry),
            "symmetric_tree": finite(symmetric.get("tree")),
            "symmetric_tree_status": symmetric.get("tree_status"),
            "symmetric_logistic": finite(symmetric.get("logistic")),
            "symmetric_logistic_status": symmetric.get("logistic_status"),
            "symmetric_logistic_ci95": _ci_pair(symmetric),
            "varied_alone_in_design": alone,
            "tested_levels": tested,
        },
        "note": "; ".join(notes),
    }
