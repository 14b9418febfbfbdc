"""A descriptor's factor names, directions and units against the factor registry.

A factor field names a factor of :mod:`netem_profile.factors` by its registry key
(``delay_ms``, ``loss_pct``, ``ge_p_pct``…) or by that key without its unit suffix
(``delay``, ``loss``, ``ge_p``). Its ``direction`` is ``downstream`` (server→client, the
tidy column ``ds_<key>``), ``upstream`` (``us_<key>``) or ``both`` (the same value in both
columns; the analysis then models one factor ``both_<key>``).

Its ``unit`` is the registry's unit of the factor or one that converts to it exactly by a
factor of ten (the table :data:`CONVERSIONS`): delay and jitter in ms (s ×1000, us ×0.001),
the percentages in % (``fraction`` ×100: 0.01 is 1 %), the rate in kbit/s (bit/s ×0.001,
Mbit/s ×1000). A nominal factor (``jitter_distribution``) has no unit. Any other unit is
refused: a value in an unknown unit would be analysed as if it were in the registry's.

Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from netem_profile.factors import FACTORS, FACTORS_BY_KEY, Factor

__all__ = [
    "CONVERSIONS",
    "DIRECTIONS",
    "columns_of",
    "conversion",
    "factor_named",
    "factor_names",
    "units_of",
]

DIRECTIONS = ("downstream", "upstream", "both")
_PREFIX = {"downstream": ("ds",), "upstream": ("us",), "both": ("ds", "us")}
_SUFFIXES = ("_ms", "_pct", "_kbit")

#: registry unit → {unit a descriptor may give: multiplier to the registry unit}
CONVERSIONS: Mapping[str, Mapping[str, float]] = MappingProxyType(
    {
        "ms": MappingProxyType({"ms": 1.0, "s": 1000.0, "us": 0.001}),
        "%": MappingProxyType({"%": 1.0, "fraction": 100.0}),
        "kbit/s": MappingProxyType({"kbit/s": 1.0, "bit/s": 0.001, "Mbit/s": 1000.0}),
        "": MappingProxyType({"": 1.0}),
    }
)


def _short(key: str) -> str:
    for suffix in _SUFFIXES:
        if key.endswith(suffix):
            return key[: -len(suffix)]
    return key


_BY_NAME: Mapping[str, Factor] = MappingProxyType(
    {**{_short(f.key): f for f in FACTORS}, **FACTORS_BY_KEY}
)


def factor_named(name: str) -> Factor | None:
    """The registry factor a descriptor names (its key, or the key without unit suffix)."""
    return _BY_NAME.get(name)


def factor_names() -> list[str]:
    """The names a descriptor may use, short ones (``delay``) first."""
    return [_short(f.key) for f in FACTORS]


def units_of(factor: Factor) -> list[str]:
    """The units a descriptor may give for ``factor`` (its registry unit first)."""
    return list(CONVERSIONS.get(factor.unit, {factor.unit: 1.0}))


def conversion(factor: Factor, unit: str | None) -> float | None:
    """The multiplier from ``unit`` to the registry unit of ``factor`` (no unit: the
    registry's own, 1), or None for a unit that does not convert."""
    if unit is None:
        return 1.0
    return CONVERSIONS.get(factor.unit, {factor.unit: 1.0}).get(unit)


def columns_of(factor: Factor, direction: str) -> tuple[str, ...]:
    """The tidy columns a factor field sets: ``ds_<key>``, ``us_<key>`` or both."""
    return tuple(f"{prefix}_{factor.key}" for prefix in _PREFIX[direction])
