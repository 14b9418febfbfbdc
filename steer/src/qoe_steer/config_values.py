"""Configuration values every part checks the same way: the error type and typed readers.

Kept apart from :mod:`qoe_steer.config` so that the actuators, whose kind-specific keys the
configuration validates through :mod:`qoe_steer.actuators.registry`, can use them without an
import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class ConfigError(ValueError):
    """A configuration problem; the message is one line naming the key."""


@dataclass(frozen=True)
class ActuatorConfig:
    kind: str
    deadline_s: float = 1.0
    retries: int = 2
    options: Mapping[str, Any] = field(default_factory=dict)


def number(
    table: Mapping[str, Any], key: str, where: str, default: float, low: float, high: float = 1e9
) -> float:
    """A number in [low, high] (or ``default`` when absent), else :class:`ConfigError`."""
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where}.{key}: {value!r} is not a number")
    if not low <= float(value) <= high:
        raise ConfigError(f"{where}.{key}: {value!r} is outside {low:g}..{high:g}")
    return float(value)


def integer(
    table: Mapping[str, Any], key: str, where: str, default: int | None, low: int, high: int
) -> int:
    """An integer in [low, high]; required when ``default`` is None."""
    value = table.get(key, default)
    if value is None:
        raise ConfigError(f"{where}.{key}: missing")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{where}.{key}: {value!r} is not an integer")
    if not low <= value <= high:
        raise ConfigError(f"{where}.{key}: {value!r} is outside {low}..{high}")
    return value


def text(table: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    """A non-empty string; required when ``default`` is None."""
    value = table.get(key, default)
    if value is None:
        raise ConfigError(f"{where}.{key}: missing")
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{where}.{key}: {value!r} is not a non-empty string")
    return value
