"""Validating and parsing a profile document, with the standard library only.

Two passes, every problem reported at once with the JSON path of the offending field:

1. structure, from the field registry — the rules of :func:`netem_profile.json_schema`
   worded as a JSON Schema validator words them ("150 is greater than the maximum of
   100"), so a message does not depend on which side checked the document;
2. the rules a schema cannot express, from how netem works (``tc-netem(8)``):
   correlations need the value they correlate, one loss model per direction, reordering
   needs a delay. Jitter may exceed the delay (e.g. 0 ms ± 10 ms, a common grid level):
   netem then sends the packets whose draw falls below zero without delay, so the added
   delay is the draw clipped at zero; docs/methods.md says so.
"""

from __future__ import annotations

import math
from typing import Any

from netem_profile.fields import DIRECTION_FIELDS, FIELDS, Field
from netem_profile.model import (
    DIRECTION_LABELS,
    DIRECTIONS,
    DirectionProfile,
    GilbertElliott,
    Profile,
)

__all__ = ["ProfileError", "parse_direction", "parse_profile"]

Problems = list[tuple[list[str], str]]  # (JSON path, message)


class ProfileError(ValueError):
    """A profile document is invalid. ``errors`` lists ``{"path", "message"}`` items."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{e['path']}: {e['message']}" for e in errors))


def _path(parts: list[str]) -> str:
    return ".".join(parts) or "(profile)"


def _non_finite(value: Any, path: list[str], problems: Problems) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        problems.append((path, f"{value} is not a finite number"))
    elif isinstance(value, dict):
        for key, item in value.items():
            _non_finite(item, [*path, str(key)], problems)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    """JSON Schema's integer: a number with no fractional part (``2.0`` counts)."""
    return _is_number(value) and (isinstance(value, int) or float(value).is_integer())


def _check_object(
    value: Any,
    parts: tuple[Field, ...],
    path: list[str],
    problems: Problems,
    required: tuple[str, ...] = (),
) -> None:
    if not isinstance(value, dict):
        problems.append((path, f"{value!r} is not of type 'object'"))
        return
    known = {part.name for part in parts}
    unknown = [key for key in value if key not in known]
    if unknown:
        names = ", ".join(repr(key) for key in unknown)
        verb = "was" if len(unknown) == 1 else "were"
        problems.append((path, f"unknown field ({names} {verb} unexpected)"))
    for part in parts:
        if part.name in value:
            _check_field(part, value[part.name], [*path, part.name], problems)
    problems.extend(
        (path, f"{name!r} is a required property") for name in required if name not in value
    )


def _check_field(spec: Field, value: Any, path: list[str], problems: Problems) -> None:
    if spec.type == "object":
        if value is None:
            return
        if isinstance(value, dict):
            _check_object(value, spec.parts, path, problems, spec.required)
        else:
            problems.append((path, f"{value!r} is not valid under any of the given schemas"))
        return
    if spec.type == "choice":
        if value not in spec.choices:
            problems.append((path, f"{value!r} is not one of {list(spec.choices)!r}"))
        return
    if not (_is_integer(value) if spec.type == "integer" else _is_number(value)):
        problems.append((path, f"{value!r} is not of type {spec.type!r}"))
    if not _is_number(value):
        return  # the limits apply to any number, as in JSON Schema (-0.5 for an integer)
    if spec.minimum is not None and value < spec.minimum:
        problems.append((path, f"{value!r} is less than the minimum of {spec.minimum!r}"))
    if spec.maximum is not None and value > spec.maximum:
        problems.append((path, f"{value!r} is greater than the maximum of {spec.maximum!r}"))


def _check_structure(doc: dict[str, Any], problems: Problems) -> None:
    unknown = [key for key in doc if key not in DIRECTIONS]
    if unknown:
        names = ", ".join(repr(key) for key in unknown)
        verb = "was" if len(unknown) == 1 else "were"
        problems.append(([], f"unknown field ({names} {verb} unexpected)"))
    for name in DIRECTIONS:
        if name in doc:
            _check_object(doc[name], DIRECTION_FIELDS, [name], problems)


def _check_semantics(name: str, d: DirectionProfile, problems: Problems) -> None:
    label = f"{name} ({DIRECTION_LABELS[name]})"

    def err(fieldname: str, message: str) -> None:
        problems.append(([name, fieldname], f"{label}: {message}"))

    if d.delay_correlation_pct > 0 and d.jitter_ms == 0:
        err("delay_correlation_pct", "delay correlation needs jitter_ms > 0")
    if d.loss_correlation_pct > 0 and d.loss_pct == 0:
        err("loss_correlation_pct", "loss correlation needs loss_pct > 0")
    if d.gilbert_elliott is not None and (d.loss_pct > 0 or d.loss_correlation_pct > 0):
        err(
            "gilbert_elliott",
            "netem applies one loss model per direction: use either loss_pct "
            "(random loss, optionally correlated) or gilbert_elliott, not both",
        )
    if d.reorder_pct > 0 and d.delay_ms == 0:
        err(
            "reorder_pct",
            "netem reorders by sending some packets without the configured delay, "
            "so reordering needs delay_ms > 0",
        )
    if d.reorder_correlation_pct > 0 and d.reorder_pct == 0:
        err("reorder_correlation_pct", "reorder correlation needs reorder_pct > 0")
    # netem keeps time in signed 64-bit nanoseconds and the jitter in a signed 32-bit value
    if d.jitter_ms * 1e6 > 2**31 - 1:
        err("jitter_ms", "netem supports at most 2147 ms of jitter")


def _raise_if_any(problems: Problems) -> None:
    if problems:
        raise ProfileError([{"path": _path(path), "message": text} for path, text in problems])


def parse_direction(name: str, doc: dict[str, Any]) -> DirectionProfile:
    """Build a DirectionProfile from an already structurally valid dict (no validation)."""
    kwargs: dict[str, Any] = {}
    for key, value in doc.items():
        kind = FIELDS[key].type
        if kind == "object":
            kwargs[key] = (
                None if value is None else GilbertElliott(**{k: float(v) for k, v in value.items()})
            )
        elif kind == "integer":
            kwargs[key] = int(value)
        elif kind == "choice":
            kwargs[key] = str(value)
        else:
            kwargs[key] = float(value)
    return DirectionProfile(**kwargs)


def parse_profile(doc: Any) -> Profile:
    """Validate a profile document and return a :class:`Profile`.

    Raises :class:`ProfileError` (a ``ValueError``) listing every problem found, each with
    the JSON path of the offending field.
    """
    if not isinstance(doc, dict):
        raise ProfileError([{"path": "(profile)", "message": "a profile must be a JSON object"}])
    problems: Problems = []
    _non_finite(doc, [], problems)
    _raise_if_any(problems)
    _check_structure(doc, problems)
    # By field (direction.field); a record field's own problems stay in checking order.
    problems.sort(key=lambda problem: problem[0][:2])
    _raise_if_any(problems)
    directions = {name: parse_direction(name, doc.get(name, {})) for name in DIRECTIONS}
    for name, direction in directions.items():
        _check_semantics(name, direction, problems)
    _raise_if_any(problems)
    return Profile(**directions)
