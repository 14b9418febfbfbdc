"""Policy 2.0 bounds: the joint corner of each class, and the dry-run rule.

A class's bounds are the corner of the joint acceptability model (``joint_model`` of the
analysis document, :mod:`qoe_analysis.models.joint_corner`): the values of delay, jitter
and loss at which, reached *all at once*, the lower 95 % bound of the predicted
P(acceptable) still meets the target. Per direction and metric the bound is the corner
value of that direction's factor (``ds_X`` downstream, ``us_X`` upstream); a factor set to
one level on both directions (``both_X``) is one factor, and its corner value bounds both
directions. ``basis`` is ``joint_logistic``; a class whose joint corner does not exist
(model not estimable, design not identifying the corner, or not acceptable even
unimpaired) has null bounds with ``basis`` ``no_joint_bound`` and the reason in its
``joint`` object. The marginal estimates of policy 1.0 (tree split or logistic threshold
with every other factor at 0, :func:`qoe_analysis.policy.bounds.metric_bound`) stay in
``estimates.marginal``: they are not bounds, since reached together they need not hold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from qoe_analysis.policy.bounds import finite, metric_bound
from qoe_analysis.policy.schema import PolicyError

__all__ = [
    "DRY_RUN_LIMIT",
    "JOINT_BASIS",
    "NO_JOINT_BASIS",
    "check_dry_run",
    "class_joint",
    "direction_bounds",
    "dry_run_share",
]

JOINT_BASIS: Final = "joint_logistic"
NO_JOINT_BASIS: Final = "no_joint_bound"
#: above this share of dry-run ratings a policy is built only when explicitly allowed
DRY_RUN_LIMIT: Final = 0.5
PREFIX: Final = {"downstream": "ds", "upstream": "us"}


def dry_run_share(meta: Mapping[str, Any]) -> float | None:
    """Share of the ratings taken on a dry-run agent (nothing applied to a kernel); None
    when the ratings carry no agent provenance."""
    dry, total = meta.get("n_ratings_dry_run"), int(meta.get("n_ratings") or 0)
    if dry is None or total <= 0:
        return None
    return int(dry) / total


def check_dry_run(meta: Mapping[str, Any], allow_dry_run: bool) -> None:
    """Refuse (:class:`PolicyError`) a policy learnt mostly from dry-run ratings."""
    share = dry_run_share(meta)
    if share is not None and share > DRY_RUN_LIMIT and not allow_dry_run:
        raise PolicyError(
            f"{meta.get('n_ratings_dry_run')} of {meta.get('n_ratings')} ratings "
            f"({share:.0%}) were taken on a dry-run agent, which applied no impairment: a "
            f"policy learnt from them (more than {DRY_RUN_LIMIT:.0%}) needs "
            "allow_dry_run (--allow-dry-run)"
        )


def class_joint(analysis_document: Mapping[str, Any], pace: str) -> dict[str, Any]:
    """The class's ``joint`` object from ``joint_model.by_pace[pace]``."""
    model = analysis_document.get("joint_model")
    entry = ((model or {}).get("by_pace") or {}).get(pace)
    if not entry:
        reason = (
            "the analysis document has no joint model (made before policy 2.0)"
            if model is None
            else f"the joint model has no corner for class {pace!r}: {model.get('reason')}"
        )
        return {
            "status": NO_JOINT_BASIS,
            "reason": reason,
            "target": 0.5,
            "corner": None,
            "scale": None,
            "tested_max": {},
            "predicted": None,
            "predicted_ci95": None,
            "observed_share": None,
            "observed_n": 0,
            "extrapolated": None,
        }
    ci = entry.get("predicted_ci95")
    ok = entry.get("status") == "ok" and entry.get("corner") is not None
    return {
        "status": "ok" if ok else NO_JOINT_BASIS,
        "reason": str(entry.get("reason") or ""),
        "target": float(entry.get("target", 0.5)),
        "corner": {k: float(v) for k, v in (entry.get("corner") or {}).items()} if ok else None,
        "scale": finite(entry.get("scale")),
        "tested_max": {k: float(v) for k, v in (entry.get("tested_max") or {}).items()},
        "predicted": finite(entry.get("predicted")),
        "predicted_ci95": [float(v) for v in ci] if ci else None,
        "observed_share": finite(entry.get("observed_share")),
        "observed_n": int(entry.get("observed_n") or 0),
        "extrapolated": entry.get("extrapolated"),
    }


def _column(direction: str, kind: str, factors: set[str]) -> str | None:
    own = f"{PREFIX[direction]}_{kind}"
    if own in factors:
        return own
    both = f"both_{kind}"
    return both if both in factors else None


def _marginal(
    per_direction: Mapping[str, Any], direction: str, key: str, column: str, mt: str, unit: str
) -> dict[str, Any] | None:
    mine, both = per_direction.get(direction) or {}, per_direction.get("both") or {}
    if key in mine and not column.startswith("both_"):
        return metric_bound(mine[key], both.get(key, {}), mt, unit)
    if key in both and column.startswith("both_"):
        return metric_bound(both[key], both[key], mt, unit)
    return None


def direction_bounds(
    joint: Mapping[str, Any],
    per_direction: Mapping[str, Any],
    direction: str,
    factors: set[str],
    metrics: tuple[tuple[str, str, str], ...],
) -> list[dict[str, Any]]:
    """The metric bounds of one direction: one per metric whose factor the study varied
    in this direction (its own ``ds_``/``us_`` factor, or the ``both_`` factor)."""
    out = []
    corner = joint.get("corner") or {}
    for key, metric_type, unit in metrics:
        column = _column(direction, key.split("_", 1)[1], factors)
        if column is None:
            continue
        value = finite(corner.get(column)) if joint["status"] == "ok" else None
        notes = []
        if column.startswith("both_"):
            notes.append(
                f"{column} was set to one level on both directions in every rating: one "
                "factor, whose corner value bounds each direction"
            )
        if value is None:
            notes.append(f"no joint bound: {joint['reason']}")
        else:
            notes.append(
                "reached together with every other bound of the class, the lower 95 % bound "
                f"of the predicted P(acceptable) is {joint['target']:g} (see the class's joint)"
            )
        out.append(
            {
                "metric_type": metric_type,
                "metric_unit": unit,
                "bound": value,
                "basis": JOINT_BASIS if value is not None else NO_JOINT_BASIS,
                "factor": column,
                "tested_max": finite((joint.get("tested_max") or {}).get(column)),
                "estimates": {
                    "marginal": _marginal(per_direction, direction, key, column, metric_type, unit)
                },
                "note": "; ".join(notes),
            }
        )
    return out
