"""Evaluator: which measured paths keep each game class acceptable (``policy check``).

Input: the policy and measurements ``{"paths": [{"id", "downstream": {"delay_ms",
"loss_pct", "jitter_ms"?}, "upstream": {…}}]}`` (``schemas/measurements.schema.json``).
Per class and path it reports:

* ``violations``: every bound of the policy the path exceeds (direction, metric,
  measured, bound, basis) — what a controller's path selection compares;
* ``p_acceptable``: the decision tree's P(rating ≥ target) at the path's four network
  values. The tree's rules also test per-rater factors (age, skill, …) that a path does
  not have: every rule consistent with the path's network values (and the class's pace)
  is used, weighted by its number of ratings n, i.e. the leaf probabilities averaged
  over the raters of the study: a second opinion on the *combination* of the path's
  values, beside the bounds (the joint corner of policy 2.0);
* ``mos_band``: the MOS interval implied by the tested conditions under monotone
  impairment: the MOS of the path is at most the lowest MOS among tested conditions that
  are no worse in every factor, and at least the highest MOS among those that are no
  better in every factor (1 when none is). ``meets_target`` is ``yes`` when the band's low
  end reaches the target, ``no`` when its high end is below it, else ``uncertain``;
* ``acceptable`` = no violation and (``p_acceptable`` ≥ ½ or no tree rule applies).
* ``unchecked_bounds`` (only when non-empty): bounds the path's measurements cannot be
  compared with — a jitter bound when the path gives no ``jitter_ms``.

Acceptable paths are ranked by ``margin``: the smallest relative slack
(bound − measured)/bound over the four bounds; ``preferred_path`` is the first.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from qoe_analysis.policy.schema import PolicyError, validate_against, validate_policy

__all__ = ["evaluate_policy", "mos_band", "tree_p_acceptable"]

_FIELDS = {
    ("downstream", "one-way-delay-maximum"): ("ds_delay_ms", "delay_ms"),
    ("downstream", "one-way-packet-loss"): ("ds_loss_pct", "loss_pct"),
    ("upstream", "one-way-delay-maximum"): ("us_delay_ms", "delay_ms"),
    ("upstream", "one-way-packet-loss"): ("us_loss_pct", "loss_pct"),
}
# optional measurements: bounds on them are checked only when the path reports them
_OPTIONAL_FIELDS = {
    ("downstream", "one-way-delay-variation-maximum"): ("ds_jitter_ms", "jitter_ms"),
    ("upstream", "one-way-delay-variation-maximum"): ("us_jitter_ms", "jitter_ms"),
}


def _holds(condition: Mapping[str, Any], value: Any) -> bool:
    op, ref = condition["op"], condition["value"]
    if op == "<=":
        return float(value) <= float(ref)
    if op == ">":
        return float(value) > float(ref)
    if op == "=":
        return str(value) == str(ref)
    return str(value) != str(ref)


def tree_p_acceptable(rules: Sequence[Mapping[str, Any]], known: Mapping[str, Any]) -> float | None:
    """n-weighted mean P(acceptable) of the rules consistent with ``known`` features.

    Conditions on features absent from ``known`` are treated as satisfiable.
    """
    total = weighted = 0.0
    for rule in rules:
        p, n = rule.get("p_acceptable"), float(rule.get("n", 0.0))
        if p is None or n <= 0:
            continue
        if all(_holds(c, known[c["feature"]]) for c in rule["conditions"] if c["feature"] in known):
            total += n
            weighted += n * float(p)
    return weighted / total if total > 0 else None


def mos_band(
    conditions: Sequence[Mapping[str, Any]], point: Mapping[str, float], target: float
) -> dict[str, Any]:
    """MOS interval from the tested conditions that bracket ``point`` (see module doc).

    Compared on the factors both the path and every tested condition give as numbers
    (delay and loss of each direction; jitter when measured and in the study).
    """
    keys = [
        k
        for k in point
        if all(
            isinstance(c.get(k), int | float) and not isinstance(c.get(k), bool) for c in conditions
        )
    ]
    x = [float(point[k]) for k in keys]
    high, high_from = 5.0, None
    low, low_from = 1.0, None
    for c in conditions:
        v = [float(c[k]) for k in keys]
        label = f"{c['scenario']}/{c['game']}"
        mos = float(c["mos"])
        if all(a <= b for a, b in zip(v, x, strict=True)) and mos < high:
            high, high_from = mos, label
        if all(a >= b for a, b in zip(v, x, strict=True)) and mos > low:
            low, low_from = mos, label
    consistent = low <= high
    if not consistent:
        low, high = high, low
    meets = "yes" if low >= target else "no" if high < target else "uncertain"
    return {
        "low": low,
        "high": high,
        "low_from": low_from,
        "high_from": high_from,
        "monotone_consistent": consistent,
        "meets_target": meets,
    }


def _slack(bound: float, measured: float) -> float:
    if bound > 0:
        return (bound - measured) / bound
    return 0.0 if measured <= 0 else -1.0


def evaluate_policy(policy: Mapping[str, Any], measurements: Any) -> dict[str, Any]:
    """Per game class and path: acceptable, violations, P(acceptable), MOS band, ranking.

    Raises :class:`PolicyError` (one-line message) on an invalid policy or measurements.
    """
    validate_policy(policy)
    validate_against(measurements, "measurements", "invalid measurements")
    ids = [p["id"] for p in measurements["paths"]]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise PolicyError(f"invalid measurements: duplicate path id {duplicates[0]!r}")
    target = float(policy["target"]["acceptable_from"])
    rules = policy["tree"]["rules"]
    classes = []
    for cls in policy["classes"]:
        rows = []
        for path in measurements["paths"]:
            point = {
                name: float(path[direction][key]) for (direction, _), (name, key) in _FIELDS.items()
            }
            for (direction, _), (name, key) in _OPTIONAL_FIELDS.items():
                if key in path[direction]:
                    point[name] = float(path[direction][key])
            violations: list[dict[str, Any]] = []
            unchecked: list[dict[str, Any]] = []
            slacks: list[float] = []
            for direction in ("downstream", "upstream"):
                for b in cls["directions"][direction]["metric_bounds"]:
                    field = (direction, b["metric_type"])
                    _, key = _FIELDS.get(field) or _OPTIONAL_FIELDS[field]
                    if key not in path[direction]:
                        unchecked.append(
                            {
                                "direction": direction,
                                "metric_type": b["metric_type"],
                                "bound": b["bound"],
                                "reason": f"the path has no measured {key}",
                            }
                        )
                        continue
                    measured = float(path[direction][key])
                    entry = {
                        "direction": direction,
                        "metric_type": b["metric_type"],
                        "measured": measured,
                        "bound": b["bound"],
                        "basis": b["basis"],
                    }
                    if b["bound"] is None:
                        violations.append({**entry, "reason": "class has no acceptable bound"})
                        continue
                    slacks.append(_slack(float(b["bound"]), measured))
                    if measured > float(b["bound"]):
                        violations.append(entry)
            known: dict[str, Any] = dict(point)
            if cls["pace"] != "all":
                known["game_pace"] = cls["pace"]
            p = tree_p_acceptable(rules, known)
            acceptable = not violations and (p is None or p >= 0.5)
            rows.append(
                {
                    "path": path["id"],
                    "acceptable": acceptable,
                    "within_bounds": not violations,
                    "violations": violations,
                    "p_acceptable": p,
                    "margin": min(slacks) if slacks else None,
                    "mos_band": mos_band(cls["tested_conditions"], point, target),
                    **({"unchecked_bounds": unchecked} if unchecked else {}),
                }
            )
        ranked = sorted(
            (r for r in rows if r["acceptable"]),
            key=lambda r: (-(r["margin"] if r["margin"] is not None else -math.inf), r["path"]),
        )
        classes.append(
            {
                "class": cls["id"],
                "pace": cls["pace"],
                "acceptable_paths": [r["path"] for r in ranked],
                "preferred_path": ranked[0]["path"] if ranked else None,
                "paths": rows,
            }
        )
    return {
        "target": policy["target"]["label"],
        "policy_generated_at": policy["provenance"]["generated_at"],
        "method": "bounds per direction; tree P(acceptable) for the combination; MOS band "
        "from bracketing tested conditions (docs/policy.md, 'Evaluator')",
        "classes": classes,
    }
