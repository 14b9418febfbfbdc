"""Warnings about what the intervals and models can claim: MOS intervals clipped to the
scale or missing, thresholds and joint bounds beyond the tested levels, collinear or merged
factors, a tree no better than the majority class, marginal thresholds, classes without a
joint bound (the rules are listed in docs/methods.md, "Warnings").

Pure functions of the analysis document; sections or keys it does not have are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.evidence.warning_text import (
    as_map,
    count_range,
    counted,
    listed,
    make,
    num,
    rows,
)
from qoe_analysis.schema.document import DocWarning

__all__ = [
    "collinear_factors",
    "extrapolated",
    "interval_warnings",
    "marginal_thresholds",
    "merged_factors",
    "model_weak",
    "no_joint_bound",
]

_KPIS = ("max_delay_ms", "max_jitter_ms", "max_loss_pct")
_DIRECTIONS = ("downstream", "upstream", "both")


def _interval_status(row: Mapping[str, Any], scale: tuple[float, float] | None) -> str:
    """The row's ``ci95_status``; a document without it: "n_too_small" for n < 2,
    "clipped" for bounds beyond the scale (what the clipping step would have flagged)."""
    status = row.get("ci95_status")
    if isinstance(status, str):
        return status
    if row.get("n", 0) < 2:
        return "n_too_small"
    low, high = row.get("ci95_low"), row.get("ci95_high")
    if scale is None or low is None or high is None:
        return "ok"
    return "clipped" if low < scale[0] or high > scale[1] else "ok"


def _scale_of(value: Any) -> tuple[float, float] | None:
    scale = as_map(value)
    low, high = scale.get("min"), scale.get("max")
    return (float(low), float(high)) if low is not None and high is not None else None


def _interval_rows(
    doc: Mapping[str, Any],
) -> Iterator[tuple[str, str, Any, list[Mapping[str, Any]]]]:
    """(where, what, scale, rows with an interval) of every section that has them."""
    meta = as_map(doc.get("meta"))
    per_item = as_map(doc.get("per_item"))
    primary = as_map(per_item.get(str(meta.get("primary_item")))).get("scale")
    if primary is None:
        items = {str(i.get("key")): i.get("scale") for i in rows(doc.get("items"))}
        primary = items.get(str(meta.get("primary_item")))
    yield "conditions", "MOS", primary, rows(doc.get("conditions"))
    by_factor = as_map(doc.get("mos_by_factor"))
    points = [p for s in rows(by_factor.get("single")) for p in rows(s.get("points"))]
    cells = [c for g in rows(by_factor.get("pairs")) for c in rows(g.get("cells"))]
    yield "mos_by_factor", "MOS", primary, points + cells
    for key, entry in per_item.items():
        yield (
            f"per_item.{key}.mos",
            "MOS",
            as_map(entry).get("scale"),
            rows(as_map(entry).get("mos")),
        )
    yield (
        "subject_model",
        "condition-quality",
        primary,
        rows(as_map(doc.get("subject_model")).get("conditions")),
    )


def interval_warnings(doc: Mapping[str, Any]) -> list[DocWarning]:
    """Per section: how many MOS intervals are clipped to the scale (``interval_clipped``)
    and how many rated conditions have n < 2, hence no interval (``no_interval``). Untested
    levels and cells (n = 0) have no interval by design and are not counted."""
    out: list[DocWarning] = []
    for where, what, scale_value, section in _interval_rows(doc):
        scale = _scale_of(scale_value)
        rated = [r for r in section if isinstance(r.get("n"), int) and r["n"] > 0]
        status = [_interval_status(r, scale) for r in rated]
        clipped = [r["n"] for r, s in zip(rated, status, strict=True) if s == "clipped"]
        too_few = [r["n"] for r, s in zip(rated, status, strict=True) if s == "n_too_small"]
        span = f"[{num(scale[0])}, {num(scale[1])}]" if scale else "the scale"
        if clipped:
            out.append(
                make(
                    "interval_clipped",
                    where,
                    f"{len(clipped)} of {len(rated)} {what} intervals reach beyond the scale "
                    f"{span} and are clipped to it ({count_range(clipped)}): the "
                    "symmetric interval does not fit there (few ratings or a value near a "
                    "scale end)",
                )
            )
        if too_few:
            out.append(
                make(
                    "no_interval",
                    where,
                    f"{len(too_few)} of {len(rated)} {what} values rest on one rating: no "
                    "interval (need n >= 2)",
                )
            )
    return out


def _estimate_text(t: Mapping[str, Any]) -> str:
    """ " = 301.7 (95 % CI 250–420; tested 0–300)" of a threshold entry (raw CI: unclipped)."""
    value = t.get("logistic_raw", t.get("logistic"))
    ci = t.get("ci95_raw") or [t.get("ci95_low"), t.get("ci95_high")]
    levels = [v for v in t.get("tested_levels") or [] if v is not None]
    parts = []
    if len(ci) == 2 and None not in ci:
        parts.append(f"95 % CI {num(ci[0])}–{num(ci[1])}")
    if levels:
        parts.append(f"tested {num(min(levels))}–{num(max(levels))}")
    shown = f" = {num(value)}" if value is not None else ""
    return shown + (f" ({'; '.join(parts)})" if parts else "")


def extrapolated(doc: Mapping[str, Any]) -> list[DocWarning]:
    """Logistic thresholds beyond the tested levels (``logistic_extrapolated``) and joint
    corners beyond them (``joint_model.by_pace[*].extrapolated``)."""
    out: list[DocWarning] = []
    named = [
        f"{pace} {direction} {kpi}{_estimate_text(as_map(t))}"
        for pace, entry in as_map(as_map(doc.get("thresholds")).get("by_pace")).items()
        for direction in _DIRECTIONS
        for kpi, t in as_map(as_map(entry).get(direction)).items()
        if kpi in _KPIS and as_map(t).get("logistic_extrapolated")
    ]
    if named:
        out.append(
            make(
                "extrapolated",
                "thresholds",
                f"{counted(len(named), 'logistic threshold', 'logistic thresholds')} "
                f"{'lies' if len(named) == 1 else 'lie'} beyond the tested levels (the "
                f"estimate or an end of its 95 % CI): {listed(named)}",
            )
        )
    joint = as_map(as_map(doc.get("joint_model")).get("by_pace"))
    paces = sorted(p for p, e in joint.items() if as_map(e).get("extrapolated"))
    if paces:
        out.append(
            make(
                "extrapolated",
                "joint_model",
                f"for {len(paces)} of {len(joint)} paces no tested condition reaches the "
                "joint corner in every factor at once: the corner's P(acceptable) is the "
                f"model's extrapolation ({listed(paces)})",
            )
        )
    return out


def _merged_pairs(meta: Mapping[str, Any]) -> set[frozenset[str]]:
    """Pairs of columns that are one factor already (a merged factor and its parts)."""
    pairs: set[frozenset[str]] = set()
    for name, parts in as_map(meta.get("merged_factors")).items():
        group = [name, *(parts if isinstance(parts, list) else [])]
        pairs.update(frozenset(p) for p in combinations(group, 2))
    return pairs


def _confounded(a: pd.Series, b: pd.Series) -> bool:
    """Each level of ``a`` goes with exactly one level of ``b`` and back (a one-to-one map
    of levels; both vary)."""
    ca, na = pd.factorize(a)[0], a.nunique()
    cb, nb = pd.factorize(b)[0], b.nunique()
    if na < 2 or na != nb:
        return False
    return int(np.unique(ca.astype(np.int64) * nb + cb).size) == na


def collinear_factors(doc: Mapping[str, Any]) -> list[DocWarning]:
    """Varying factor columns that never move independently over the rated conditions:
    |r| = 1 (numeric) or a one-to-one map of their levels (confounded). Computed on the
    distinct conditions, which equals the check over every rating (each condition has
    ratings, and weights do not change either property). Merged factors are skipped."""
    meta = as_map(doc.get("meta"))
    factors = [str(f) for f in meta.get("network_factors") or []]
    table = pd.DataFrame([r for r in rows(doc.get("conditions")) if r.get("n", 0) > 0])
    factors = [f for f in factors if f in table.columns]
    if len(factors) < 2:
        return []
    distinct = table[factors].drop_duplicates()
    merged = _merged_pairs(meta)
    found: list[str] = []
    for a, b in combinations(factors, 2):
        if frozenset((a, b)) in merged or not _confounded(distinct[a], distinct[b]):
            continue
        x, y = distinct[a], distinct[b]
        if pd.api.types.is_numeric_dtype(x) and pd.api.types.is_numeric_dtype(y):
            r = float(np.corrcoef(x.to_numpy(float), y.to_numpy(float))[0, 1])
            found.append(f"{a} and {b} (r = {r:.3f})" if abs(r) > 1 - 1e-9 else f"{a} and {b}")
        else:
            found.append(f"{a} and {b}")
    if not found:
        return []
    pairs = counted(len(found), "pair of factors always changes", "pairs of factors always change")
    return [
        make(
            "collinear_factors",
            "meta",
            f"{pairs} together over the {len(distinct)} tested network conditions, so "
            "their effects cannot be told apart (weights, tree and thresholds may credit "
            f"either): {listed(found)}",
        )
    ]


def merged_factors(doc: Mapping[str, Any]) -> list[DocWarning]:
    """Factor columns equal in every rating, analysed as one factor (``meta.merged_factors``)."""
    merged = as_map(as_map(doc.get("meta")).get("merged_factors"))
    if not merged:
        return []
    named = [
        f"{name} = {' = '.join(str(p) for p in parts)}"
        for name, parts in sorted(merged.items())
        if isinstance(parts, list)
    ]
    return [
        make(
            "merged_factors",
            "meta",
            f"{counted(len(named), 'factor was', 'factors were')} set equal in both "
            f"directions in every rating and analysed as one factor each: {listed(named)}",
        )
    ]


def model_weak(doc: Mapping[str, Any]) -> list[DocWarning]:
    """The tree's cross-validated accuracy is not above the majority-class accuracy plus
    one SD of the folds' accuracies, or there is no cross-validated accuracy."""
    tree = as_map(doc.get("tree"))
    if "cv_accuracy" not in tree:
        return []
    cv, majority = tree.get("cv_accuracy"), tree.get("majority_accuracy")
    if cv is None:
        note = tree.get("cv_note") or "too few ratings in a class"
        return [
            make(
                "model_weak",
                "tree",
                f"the tree has no cross-validated accuracy ({note}); its training accuracy "
                "says nothing about new ratings",
            )
        ]
    if majority is None:
        return []
    sd = tree.get("cv_accuracy_sd") or 0.0
    if cv > majority + sd:
        return []
    folds = tree.get("cv_folds")
    over = f" over {folds} folds" if folds else ""
    return [
        make(
            "model_weak",
            "tree",
            f"the tree's cross-validated accuracy {cv:.3f} (SD {sd:.3f}{over}) is not above "
            f"always predicting {tree.get('majority_class', 'the majority class')} "
            f"({majority:.3f}) by one SD: its splits are not shown to predict",
        )
    ]


def _threshold_values(thresholds: Mapping[str, Any]) -> Sequence[str]:
    """The KPI columns that got a threshold value (tree or logistic) in some pace."""
    found: set[str] = set()
    for entry in as_map(thresholds.get("by_pace")).values():
        for direction in _DIRECTIONS:
            for kpi, t in as_map(as_map(entry).get(direction)).items():
                t = as_map(t)
                if t.get("tree") is not None or t.get("logistic") is not None:
                    found.add(f"{direction} {kpi}")
    return sorted(found)


def marginal_thresholds(doc: Mapping[str, Any]) -> list[DocWarning]:
    """With >= 2 varying network factors the thresholds are marginal: each is located with
    every other factor at its baseline, so bounds reached together are not covered."""
    meta = as_map(doc.get("meta"))
    varying = list(meta.get("network_factors") or [])
    thresholds = as_map(doc.get("thresholds"))
    located = _threshold_values(thresholds)
    if len(varying) < 2 or not located:
        return []
    criterion = thresholds.get("criterion") or "P(acceptable) >= 0.5 with the others at 0"
    return [
        make(
            "marginal_thresholds",
            "thresholds",
            f"the KPI thresholds ({len(located)} direction x KPI) are marginal "
            f"({criterion}) while {len(varying)} network factors vary: reached together "
            "they need not be acceptable; the policy's bounds come from the joint model "
            "(joint_model)",
        )
    ]


def no_joint_bound(doc: Mapping[str, Any]) -> list[DocWarning]:
    """The joint model is not estimable, or paces without a joint bound (with the reason)."""
    joint = as_map(doc.get("joint_model"))
    if not joint:
        return []
    if joint.get("status") not in (None, "ok"):
        return [
            make(
                "no_joint_bound",
                "joint_model",
                f"the joint model is {str(joint.get('status')).replace('_', ' ')}: "
                f"{joint.get('reason') or 'no reason given'}; no pace gets a joint bound",
            )
        ]
    by_pace = as_map(joint.get("by_pace"))
    missing = sorted(p for p, e in by_pace.items() if as_map(e).get("status") != "ok")
    if not missing:
        return []
    named = [f"{p} ({as_map(by_pace[p]).get('reason') or 'no reason given'})" for p in missing]
    return [
        make(
            "no_joint_bound",
            "joint_model",
            f"{len(missing)} of {len(by_pace)} paces get no joint bound: {listed(named)}",
        )
    ]
