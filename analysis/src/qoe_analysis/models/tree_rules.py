"""A fitted decision tree as data: nested JSON, one rule per leaf, and rule matching.

A rule's conditions are the path from the root to its leaf, simplified to the tightest
numeric bound per feature and side (``x <= 3`` after ``x <= 5`` keeps ``x <= 3``); a
nominal ``=`` test subsumes the ``!=`` tests of the same feature above it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.models.tree_nodes import CLASS_NAMES, TreeNode

__all__ = ["rule_matches", "tree_rules", "tree_to_dict"]


def tree_to_dict(node: TreeNode) -> dict[str, Any]:
    """Nested JSON: leaves carry n, counts, p_acceptable, prediction; inner nodes a split."""
    out: dict[str, Any] = {
        "n": float(node.counts.sum()),
        "counts": {name: float(c) for name, c in zip(CLASS_NAMES, node.counts, strict=True)},
        "p_acceptable": node.p_acceptable,
        "prediction": CLASS_NAMES[node.prediction],
    }
    if not node.is_leaf:
        assert node.left is not None and node.right is not None
        if node.numeric:
            out["split"] = {"feature": node.feature, "type": "numeric", "threshold": node.threshold}
            out["left"] = {
                "condition": f"{node.feature} <= {node.threshold:g}",
                **tree_to_dict(node.left),
            }
            out["right"] = {
                "condition": f"{node.feature} > {node.threshold:g}",
                **tree_to_dict(node.right),
            }
        else:
            out["split"] = {"feature": node.feature, "type": "nominal", "category": node.category}
            out["left"] = {
                "condition": f"{node.feature} != {node.category}",
                **tree_to_dict(node.left),
            }
            out["right"] = {
                "condition": f"{node.feature} = {node.category}",
                **tree_to_dict(node.right),
            }
    return out


def _condition_text(cond: dict[str, Any]) -> str:
    return (
        f"{cond['feature']} {cond['op']} {cond['value']:g}"
        if isinstance(cond["value"], float)
        else f"{cond['feature']} {cond['op']} {cond['value']}"
    )


def _simplify(conditions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep the tightest numeric bounds per feature; nominal '=' subsumes '!=' tests."""
    out: list[dict[str, Any]] = []
    upper: dict[str, float] = {}
    lower: dict[str, float] = {}
    equal: dict[str, str] = {}
    not_equal: dict[str, list[str]] = {}
    order: list[str] = []
    for c in conditions:
        if c["feature"] not in order:
            order.append(c["feature"])
        if c["op"] == "<=":
            upper[c["feature"]] = min(upper.get(c["feature"], np.inf), c["value"])
        elif c["op"] == ">":
            lower[c["feature"]] = max(lower.get(c["feature"], -np.inf), c["value"])
        elif c["op"] == "=":
            equal[c["feature"]] = c["value"]
        else:
            not_equal.setdefault(c["feature"], []).append(c["value"])
    for f in order:
        if f in lower:
            out.append({"feature": f, "op": ">", "value": lower[f]})
        if f in upper:
            out.append({"feature": f, "op": "<=", "value": upper[f]})
        if f in equal:
            out.append({"feature": f, "op": "=", "value": equal[f]})
        elif f in not_equal:
            out.extend({"feature": f, "op": "!=", "value": v} for v in not_equal[f])
    return out


def tree_rules(root: TreeNode) -> list[dict[str, Any]]:
    """One rule per leaf: simplified conditions, prediction, n, p_acceptable, and text."""
    rules: list[dict[str, Any]] = []

    def walk(node: TreeNode, path: list[dict[str, Any]]) -> None:
        if node.is_leaf:
            conditions = _simplify(path)
            label = CLASS_NAMES[node.prediction]
            text = " AND ".join(_condition_text(c) for c in conditions) or "TRUE"
            rules.append(
                {
                    "conditions": conditions,
                    "prediction": label,
                    "n": float(node.counts.sum()),
                    "p_acceptable": node.p_acceptable,
                    "text": f"IF {text} THEN {label} "
                    f"(n={node.counts.sum():g}, P(acceptable)={node.p_acceptable:.3f})",
                }
            )
            return
        assert node.left is not None and node.right is not None
        if node.numeric:
            left = {"feature": node.feature, "op": "<=", "value": float(node.threshold or 0.0)}
            right = {"feature": node.feature, "op": ">", "value": float(node.threshold or 0.0)}
        else:
            left = {"feature": node.feature, "op": "!=", "value": node.category}
            right = {"feature": node.feature, "op": "=", "value": node.category}
        walk(node.left, [*path, left])
        walk(node.right, [*path, right])

    walk(root, [])
    return rules


def rule_matches(
    rule: dict[str, Any], factors: pd.DataFrame
) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """Rows of ``factors`` satisfying every condition of ``rule``."""
    mask = np.ones(len(factors), dtype=bool)
    for c in rule["conditions"]:
        values = factors[c["feature"]].to_numpy()
        if c["op"] == "<=":
            mask &= values.astype(np.float64) <= c["value"]
        elif c["op"] == ">":
            mask &= values.astype(np.float64) > c["value"]
        elif c["op"] == "=":
            mask &= values.astype(str) == c["value"]
        else:
            mask &= values.astype(str) != c["value"]
    return mask
