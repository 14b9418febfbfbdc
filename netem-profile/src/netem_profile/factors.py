"""Impairment factors: the registry's fields seen as the factors of a study design.

A *factor* is one scalar of a direction's profile that a study can vary: a plain field
(``delay_ms``) or a part of the Gilbert–Elliott object (``ge_p_pct``). Every consumer that
tabulates impairments reads this table: the study editor (labels, units, limits), the tidy
CSV (one column ``<ds|us>_<key>`` per factor and direction, the unit in the name), the CSV
import (columns back to a profile), the analysis (weights, tree, thresholds, policy bounds)
and the docs. ``queue_limit_packets`` is a station setting, not a factor.

``kpi`` names the policy bound a factor yields (an upper bound: higher is worse); factors
without one are analysed (weights, tree) but give no threshold.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from netem_profile.fields import FIELDS, GILBERT_ELLIOTT_FIELDS, JITTER_DISTRIBUTIONS

__all__ = [
    "DIRECTION_PREFIXES",
    "FACTORS",
    "FACTORS_BY_KEY",
    "Factor",
    "catalog",
    "factor_columns",
    "flatten_direction",
    "parse_column",
    "tidy_column",
    "unflatten_direction",
]

#: Column prefix of each direction: ``ds`` = downstream (server→client), ``us`` = upstream.
DIRECTION_PREFIXES: Mapping[str, str] = MappingProxyType({"downstream": "ds", "upstream": "us"})
_GE_OBJECT = "gilbert_elliott"
_GE = {f.name: f for f in GILBERT_ELLIOTT_FIELDS}


@dataclass(frozen=True)
class Factor:
    """One impairment factor of a direction.

    ``path`` locates it in a direction profile (one key, or ``gilbert_elliott`` and a part).
    ``neutral`` is its value when the direction does not set it; for the Gilbert–Elliott
    parts that is the chain that never enters the bad state (p = 0, r = 100 %).
    """

    key: str
    path: tuple[str, ...]
    label: str
    kind: Literal["numeric", "nominal"]
    unit: str
    minimum: float | None
    maximum: float | None
    neutral: float | str
    kpi: str | None = None
    choices: tuple[str, ...] = ()


def _field(key: str, label: str, kpi: str | None = None) -> Factor:
    f = FIELDS[key]
    numeric = f.type in ("number", "integer")
    return Factor(
        key=key,
        path=(key,),
        label=label,
        kind="numeric" if numeric else "nominal",
        unit=f.unit,
        minimum=None if f.minimum is None else float(f.minimum),
        maximum=None if f.maximum is None else float(f.maximum),
        neutral=float(f.neutral or 0) if numeric else str(f.neutral),
        kpi=kpi,
        choices=f.choices,
    )


def _ge(part: str, label: str, neutral: float) -> Factor:
    f = _GE[part]
    return Factor(
        key=f"ge_{part}",
        path=(_GE_OBJECT, part),
        label=label,
        kind="numeric",
        unit=f.unit,
        minimum=float(f.minimum or 0),
        maximum=float(f.maximum or 100),
        neutral=neutral,
    )


#: Every factor, in the order of the tidy CSV's columns.
FACTORS: tuple[Factor, ...] = (
    _field("delay_ms", "Delay", kpi="max_delay_ms"),
    _field("jitter_ms", "Jitter", kpi="max_jitter_ms"),
    _field("jitter_distribution", "Jitter distribution"),
    _field("delay_correlation_pct", "Delay correlation"),
    _field("loss_pct", "Loss", kpi="max_loss_pct"),
    _field("loss_correlation_pct", "Loss correlation"),
    _ge("p_pct", "Burst loss: p (good→bad)", 0.0),
    _ge("r_pct", "Burst loss: r (bad→good)", 100.0),
    _ge("loss_bad_pct", "Burst loss: loss in bad state", 100.0),
    _ge("loss_good_pct", "Burst loss: loss in good state", 0.0),
    _field("rate_kbit", "Rate limit"),
    _field("reorder_pct", "Reordering"),
    _field("reorder_correlation_pct", "Reorder correlation"),
    _field("duplicate_pct", "Duplication"),
    _field("corrupt_pct", "Corruption"),
)
FACTORS_BY_KEY: Mapping[str, Factor] = MappingProxyType({f.key: f for f in FACTORS})
assert set(JITTER_DISTRIBUTIONS) == set(FACTORS_BY_KEY["jitter_distribution"].choices)


def tidy_column(direction: str, key: str) -> str:
    """The tidy CSV column of a factor in a direction, e.g. ``ds_jitter_ms``."""
    if key not in FACTORS_BY_KEY:
        raise KeyError(f"unknown impairment factor {key!r}")
    return f"{DIRECTION_PREFIXES[direction]}_{key}"


def factor_columns() -> tuple[str, ...]:
    """All factor columns, per factor downstream then upstream (``ds_delay_ms, us_delay_ms…``)."""
    return tuple(tidy_column(d, f.key) for f in FACTORS for d in ("downstream", "upstream"))


def parse_column(column: str) -> tuple[str, Factor] | None:
    """``(direction, factor)`` of a factor column, or None when it is not one."""
    prefix, _, key = column.partition("_")
    direction = {v: k for k, v in DIRECTION_PREFIXES.items()}.get(prefix)
    factor = FACTORS_BY_KEY.get(key)
    return None if direction is None or factor is None else (direction, factor)


def flatten_direction(profile: Mapping[str, Any] | None) -> dict[str, float | str]:
    """Every factor's value in one direction profile (its neutral value when unset).

    The profile is the agent's/web app's per-direction document (``{"delay_ms": 80, …,
    "gilbert_elliott": {"p_pct": …} | None}``); the result is keyed by factor key.
    """
    profile = profile or {}
    ge = profile.get(_GE_OBJECT) or None
    out: dict[str, float | str] = {}
    for f in FACTORS:
        if f.path[0] == _GE_OBJECT:
            value = ge.get(f.path[1], _GE[f.path[1]].neutral) if ge else f.neutral
        else:
            value = profile.get(f.key)
            if value is None:
                value = f.neutral
        out[f.key] = str(value) if f.kind == "nominal" else float(value)
    return out


def unflatten_direction(values: Mapping[str, Any]) -> dict[str, Any]:
    """A direction profile from factor values (the inverse of :func:`flatten_direction`).

    Factors at their neutral value are left out; the Gilbert–Elliott object is present
    only when ``ge_p_pct`` > 0. Integer fields become ints. Values are not range-checked
    here: :func:`netem_profile.parse_direction` does that with the agent's limits.
    """
    out: dict[str, Any] = {}
    ge: dict[str, float] = {}
    for f in FACTORS:
        if f.key not in values or values[f.key] in (None, ""):
            continue
        raw = values[f.key]
        value: Any = str(raw) if f.kind == "nominal" else float(raw)
        if f.path[0] == _GE_OBJECT:
            ge[f.path[1]] = value
        elif value != f.neutral:
            out[f.key] = int(value) if FIELDS[f.key].type == "integer" else value
    if ge.get("p_pct", 0.0) > 0:
        out[_GE_OBJECT] = {
            part: ge.get(part, float(FACTORS_BY_KEY[f"ge_{part}"].neutral)) for part in _GE
        }
    return out


def catalog() -> list[dict[str, Any]]:
    """The registry as JSON-ready records (served to the study editor by the web app)."""
    return [
        {
            "key": f.key,
            "label": f.label,
            "kind": f.kind,
            "unit": f.unit,
            "minimum": f.minimum,
            "maximum": f.maximum,
            "neutral": f.neutral,
            "kpi": f.kpi,
            "choices": list(f.choices),
            "columns": {d: tidy_column(d, f.key) for d in DIRECTION_PREFIXES},
        }
        for f in FACTORS
    ]
