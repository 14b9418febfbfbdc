"""Helpers around the one evaluator, ``qoe_analysis.policy.evaluate.evaluate_policy``.

:func:`evaluate_with_hysteresis` evaluates the measured and the inflated paths (delay, loss
and jitter × 1/(1 − h)) in one call; :func:`worst_ratio` reads how far a path is from
acceptable off the evaluator's violations; :func:`class_bounds` lists a class's bounds.
No bound is compared here: every acceptable/violation comes from the evaluator.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from qoe_analysis.policy.evaluate import evaluate_policy

_HELD = "\x00held"  # suffix of the inflated copies' path ids
_METRICS = {
    "one-way-delay-maximum": "delay_ms",
    "one-way-packet-loss": "loss_pct",
    "one-way-delay-variation-maximum": "jitter_ms",
}


def class_bounds(cls: Mapping[str, Any]) -> dict[str, dict[str, float | None]]:
    """A policy class's bounds as {direction: {delay_ms, loss_pct, jitter_ms}} (None: none)."""
    out: dict[str, dict[str, float | None]] = {}
    for direction in ("upstream", "downstream"):
        entry: dict[str, float | None] = {"delay_ms": None, "loss_pct": None, "jitter_ms": None}
        for b in cls["directions"][direction]["metric_bounds"]:
            key = _METRICS.get(b["metric_type"])
            if key is not None and b["bound"] is not None:
                entry[key] = float(b["bound"])
        out[direction] = entry
    return out


def inflate(path: Mapping[str, Any], hysteresis: float) -> dict[str, Any]:
    """A policy-check path with delay, loss and jitter multiplied by 1/(1 − h) (loss ≤ 100)."""
    factor = 1.0 / (1.0 - hysteresis)
    out: dict[str, Any] = {"id": path["id"]}
    for direction in ("upstream", "downstream"):
        d = dict(path[direction])
        d["delay_ms"] = d["delay_ms"] * factor
        d["loss_pct"] = min(100.0, d["loss_pct"] * factor)
        if "jitter_ms" in d:
            d["jitter_ms"] = d["jitter_ms"] * factor
        out[direction] = d
    return out


def evaluate_with_hysteresis(
    policy: Mapping[str, Any], paths: list[dict[str, Any]], hysteresis: float
) -> tuple[dict[str, Any], dict[str, dict[str, dict[str, Any]]]]:
    """``evaluate_policy`` on the paths as measured and inflated, in one call.

    Returns the evaluation of the measured paths (exactly ``policy check``'s: every path is
    evaluated on its own, the ranking is by margin then id) and, per class and path, the
    evaluator's row for the inflated measurements. One call halves the cost of validating
    the policy, which ``evaluate_policy`` does every time.
    """
    inflated = [{**inflate(p, hysteresis), "id": p["id"] + _HELD} for p in paths]
    both = evaluate_policy(policy, {"paths": paths + inflated})
    plain = dict(both)
    plain["classes"] = []
    held: dict[str, dict[str, dict[str, Any]]] = {}
    for c in both["classes"]:
        rows = [r for r in c["paths"] if not r["path"].endswith(_HELD)]
        ranked = [p for p in c["acceptable_paths"] if not p.endswith(_HELD)]
        plain["classes"].append(
            {
                **c,
                "acceptable_paths": ranked,
                "preferred_path": ranked[0] if ranked else None,
                "paths": rows,
            }
        )
        held[c["class"]] = {
            r["path"].removesuffix(_HELD): r for r in c["paths"] if r["path"].endswith(_HELD)
        }
    return plain, held


def worst_ratio(row: Mapping[str, Any]) -> float:
    """Largest measured/bound over the evaluator's violations (1.0 when only the tree objects)."""
    if row["acceptable"]:
        return 0.0
    ratio = 1.0
    for v in row["violations"]:
        bound = v.get("bound")
        if bound is None or float(bound) <= 0:
            return math.inf
        ratio = max(ratio, float(v["measured"]) / float(bound))
    return ratio
