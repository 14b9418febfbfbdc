"""A scenario's direction profiles: the agent's fields, stored as columns plus a JSON rest.

A scenario sets, per direction, every field of the netem agent's profile
(:mod:`netem_profile.fields`) except ``queue_limit_packets`` (a station setting, not a
condition of the study). Delay, jitter and loss have their own database columns (with
check constraints, and because every existing query and export reads them); the other
fields live in one JSON object per direction (``us_extra``/``ds_extra``) that holds only
the fields whose value differs from the registry's neutral one, so two equal profiles are
stored identically (the versioning compares stored values).

Validation is the agent's own (:func:`netem_profile.parse_profile`): limits, types and the
rules netem imposes, with the JSON path of every problem.
"""

from __future__ import annotations

from typing import Any

from netem_profile import DIRECTION_FIELDS, DirectionProfile, ProfileError, parse_profile

__all__ = [
    "COLUMN_FIELDS",
    "EXTRA_FIELDS",
    "SCENARIO_FIELDS",
    "STATION_FIELDS",
    "checked_direction",
    "compact_direction",
    "full_direction",
    "neutral_direction",
    "split_direction",
]

#: Fields a station sets, never a scenario.
STATION_FIELDS: tuple[str, ...] = ("queue_limit_packets",)
#: Every field a scenario sets per direction, in registry order.
SCENARIO_FIELDS: tuple[str, ...] = tuple(
    f.name for f in DIRECTION_FIELDS if f.name not in STATION_FIELDS
)
#: The fields stored in their own columns (``us_delay_ms`` …).
COLUMN_FIELDS: tuple[str, ...] = ("delay_ms", "jitter_ms", "loss_pct")
#: The fields stored in the per-direction JSON (``us_extra`` …).
EXTRA_FIELDS: tuple[str, ...] = tuple(f for f in SCENARIO_FIELDS if f not in COLUMN_FIELDS)


def neutral_direction() -> dict[str, Any]:
    """Every scenario field at its neutral value (no impairment)."""
    full = DirectionProfile().to_dict()
    return {name: full[name] for name in SCENARIO_FIELDS}


def full_direction(columns: dict[str, Any], extra: dict[str, Any] | None) -> dict[str, Any]:
    """The complete direction profile from the column values and the stored JSON rest."""
    out = neutral_direction()
    out.update({name: float(columns[name]) for name in COLUMN_FIELDS if name in columns})
    out.update({k: v for k, v in (extra or {}).items() if k in EXTRA_FIELDS})
    return out


def split_direction(profile: dict[str, Any]) -> tuple[dict[str, float], dict[str, Any]]:
    """``(columns, extra)`` of a checked direction: extra keeps non-neutral fields only."""
    neutral = neutral_direction()
    columns = {name: float(profile.get(name, neutral[name])) for name in COLUMN_FIELDS}
    extra = {
        name: profile[name]
        for name in EXTRA_FIELDS
        if name in profile and profile[name] != neutral[name]
    }
    return columns, extra


def compact_direction(profile: dict[str, Any]) -> dict[str, Any]:
    """Delay, jitter and loss always, the other fields only when not neutral.

    The form of the study document (``qoelab.study/v1``): a study that uses only delay,
    jitter and loss exports exactly as before these fields existed.
    """
    columns, extra = split_direction(profile)
    return {**columns, **extra}


def checked_direction(name: str, doc: Any) -> dict[str, Any]:
    """Validate one direction with the agent's rules; return it complete and canonical.

    ``name`` is ``upstream`` or ``downstream`` (it appears in the error paths). Fields not
    given are neutral. Raises :class:`netem_profile.ProfileError` with ``{path, message}``
    per problem, e.g. ``downstream.loss_pct``: "150 is greater than the maximum of 100".
    """
    if isinstance(doc, dict):
        station = [key for key in doc if key in STATION_FIELDS]
        if station:
            raise ProfileError(
                [
                    {
                        "path": f"{name}.{key}",
                        "message": f"{key} is a setting of the station, not of a scenario",
                    }
                    for key in station
                ]
            )
    profile = parse_profile({name: doc}).direction(name).to_dict()
    return {key: profile[key] for key in SCENARIO_FIELDS}
