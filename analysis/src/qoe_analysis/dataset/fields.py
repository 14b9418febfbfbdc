"""One field of a dataset descriptor: a column of the data files and its QoE Lab role.

A field follows the Frictionless Table Schema field descriptor (``name``, ``type``,
``format``, ``title``, ``description``, ``missingValues``, ``constraints``,
``decimalChar``, ``groupChar``, ``trueValues``, ``falseValues``); QoE Lab adds ``role``
and, per role, ``item``/``scale``/``acceptable_from`` (rating) and
``factor``/``direction``/``unit`` (factor). ``observed`` and ``why`` are the notes
``qoe-analysis describe`` writes; they are read as comments.

Types: ``string``, ``integer``, ``number``, ``boolean`` (the Table Schema types a ratings
file needs; the others are refused). A role without ``type`` reads ``number`` for a rating
or a numeric factor, ``integer`` for training, else ``string``. Constraints: ``required``
(a missing value is a problem whatever the role allows), ``minimum``, ``maximum``,
``enum``. ``format`` is not checked (the four types have only the default format).

Standard library only (:mod:`qoe_analysis.scales` for the rating scales).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from netem_profile.factors import Factor

from qoe_analysis.dataset.problems import Problems
from qoe_analysis.dataset.units import (
    DIRECTIONS,
    columns_of,
    conversion,
    factor_named,
    factor_names,
    units_of,
)
from qoe_analysis.scales import ITEM_KEY_PATTERN, parse_scale

__all__ = ["IDENTITY_ROLES", "ROLES", "TYPES", "FieldSpec", "parse_field"]

ROLES = (
    "rater",
    "session",
    "game",
    "pace",
    "scenario",
    "rating",
    "factor",
    "questionnaire",
    "covariate",
    "training",
    "ignore",
)
#: roles whose cells are identities, read as text whatever their type
IDENTITY_ROLES = ("rater", "session", "game", "pace", "scenario")
TYPES = ("string", "integer", "number", "boolean")
#: Table Schema's default boolean texts
TRUE_VALUES = ("true", "True", "TRUE", "1")
FALSE_VALUES = ("false", "False", "FALSE", "0")
_TABLE_SCHEMA_KEYS = {
    "name",
    "title",
    "description",
    "type",
    "format",
    "missingValues",
    "constraints",
    "example",
    "rdfType",
    "decimalChar",
    "groupChar",
    "trueValues",
    "falseValues",
}
_NOTE_KEYS = {"observed", "why"}
_ROLE_KEYS = {
    "rating": {"item", "scale", "acceptable_from"},
    "factor": {"factor", "direction", "unit"},
}
_CONSTRAINTS = {"required", "minimum", "maximum", "enum"}
_TYPES_OF_ROLE = {
    "rating": ("integer", "number"),
    "training": ("integer", "boolean"),
}


@dataclass(frozen=True)
class FieldSpec:
    """A parsed field: its column, role, how its cells read and what its role adds."""

    name: str
    role: str
    type: str
    missing_values: frozenset[str] | None = None  # None: the schema's
    decimal_char: str = "."
    group_char: str | None = None
    true_values: tuple[str, ...] = TRUE_VALUES
    false_values: tuple[str, ...] = FALSE_VALUES
    required: bool = False
    minimum: float | None = None
    maximum: float | None = None
    enum: tuple[str, ...] | None = None
    title: str | None = None
    # rating
    item: str | None = None
    scale: dict[str, Any] | None = None
    acceptable_from: float | None = None
    # factor
    factor: Factor | None = None
    direction: str | None = None
    unit: str | None = None
    multiplier: float = 1.0
    columns: tuple[str, ...] = ()

    @property
    def numeric(self) -> bool:
        return self.type in ("integer", "number", "boolean")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


class _Reader:
    """Reads one raw field, adding its problems (column = the field's name)."""

    def __init__(self, raw: Mapping[str, Any], label: str, source: str, problems: Problems):
        self.raw, self.label, self.source, self.problems = raw, label, source, problems

    def fail(self, rule: str, value: Any = None) -> None:
        self.problems.add(rule, file=self.source, column=self.label, value=value)

    def text(self, key: str) -> str | None:
        value = self.raw.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self.fail(f"{key} is a non-empty text", value)
            return None
        return value

    def texts(self, key: str) -> tuple[str, ...] | None:
        value = self.raw.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(f"{key} is a list of texts")
            return None
        return tuple(value)


def _item_key(name: str) -> str:
    """The default item key of a rating column: its name in lower case, runs of other
    characters as one '_' ("QoE" → "qoe", "Video quality" → "video_quality")."""
    out: list[str] = []
    gap = False
    for ch in name.strip().lower():
        if ch.isascii() and ch.isalnum():
            out.append("_" if gap and out else "")
            out.append(ch)
            gap = False
        else:
            gap = True
    return "".join(out)


def _labels(raw: Any) -> Any:
    """Scale labels as the items sidecar has them: ``{"0": "bad", …}`` (a text for both
    languages, or ``{"en", "de"}``) becomes ``[{"value": 0, "text": {"en", "de"}}]``."""
    if not isinstance(raw, Mapping):
        return raw
    out = []
    for key, text in raw.items():
        try:
            value: Any = float(key)
        except ValueError:
            value = key
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        out.append(
            {"value": value, "text": {"en": text, "de": text} if isinstance(text, str) else text}
        )
    return out


def _scale(reader: _Reader, kind_of_type: str) -> dict[str, Any] | None:
    raw = reader.raw.get("scale")
    if not isinstance(raw, Mapping) or raw.get("min") is None or raw.get("max") is None:
        reader.fail('a rating field gives its scale: {"min": …, "max": …}')
        return None
    scale = {"kind": kind_of_type, **raw}
    if "labels" in scale:
        scale["labels"] = _labels(scale["labels"])
    try:
        return parse_scale(scale)
    except ValueError as exc:
        reader.fail(str(exc))
        return None


def _rating(reader: _Reader, name: str, type_: str) -> dict[str, Any]:
    item = reader.text("item") or _item_key(name)
    if not ITEM_KEY_PATTERN.fullmatch(item):
        reader.fail("item is a lower-case key: a letter, then letters, digits, '_'", item)
    scale = _scale(reader, "discrete" if type_ == "integer" else "continuous")
    cut = reader.raw.get("acceptable_from")
    if cut is not None and _number(cut) is None:
        reader.fail("acceptable_from is a number on the scale", cut)
    return {
        "item": item,
        "scale": scale,
        "acceptable_from": _number(cut),
    }


def _factor(reader: _Reader) -> dict[str, Any]:
    name, direction, unit = reader.raw.get("factor"), reader.raw.get("direction"), None
    factor = factor_named(name) if isinstance(name, str) else None
    if factor is None:
        reader.fail(f"factor is one of the registry's: {', '.join(factor_names())}", name)
    if direction not in DIRECTIONS:
        reader.fail(f"direction is one of {', '.join(DIRECTIONS)}", direction)
        direction = None
    multiplier = 1.0
    if factor is not None:
        unit = reader.raw.get("unit")
        converted = conversion(factor, unit) if unit is None or isinstance(unit, str) else None
        if converted is None:
            units = [u or "no unit" for u in units_of(factor)]
            reader.fail(f"unit of {factor.key} is one of: {', '.join(units)}", unit)
        multiplier = converted or 1.0
    return {
        "factor": factor,
        "direction": direction,
        "unit": unit,
        "multiplier": multiplier,
        "columns": columns_of(factor, direction) if factor and direction else (),
    }


def _default_type(role: str, raw: Mapping[str, Any]) -> str:
    if role == "rating":
        return "number"
    if role == "training":
        return "integer"
    if role == "factor":
        factor = factor_named(str(raw.get("factor")))
        return "string" if factor is not None and factor.kind == "nominal" else "number"
    return "string"


def _type(reader: _Reader, role: str) -> str:
    type_ = reader.raw.get("type", _default_type(role, reader.raw))
    if type_ not in TYPES:
        reader.fail(f"type is one of {', '.join(TYPES)}", type_)
        return _default_type(role, reader.raw)
    allowed: tuple[str, ...] | None = _TYPES_OF_ROLE.get(role)
    if role == "factor":
        nominal = _default_type(role, reader.raw) == "string"
        allowed = ("string",) if nominal else ("integer", "number")
    if allowed is not None and type_ not in allowed:
        reader.fail(f"a {role} field has type {' or '.join(allowed)}", type_)
    return str(type_)


def _constraints(reader: _Reader) -> dict[str, Any]:
    raw = reader.raw.get("constraints") or {}
    if not isinstance(raw, Mapping):
        reader.fail("constraints is an object")
        return {}
    for key in sorted(set(raw) - _CONSTRAINTS):
        reader.fail(f"constraint not supported (use {', '.join(sorted(_CONSTRAINTS))})", key)
    out: dict[str, Any] = {"required": raw.get("required") is True}
    for bound in ("minimum", "maximum"):
        if raw.get(bound) is not None and _number(raw[bound]) is None:
            reader.fail(f"constraints.{bound} is a number", raw[bound])
        out[bound] = _number(raw.get(bound))
    enum = raw.get("enum")
    if enum is not None and not isinstance(enum, list):
        reader.fail("constraints.enum is a list")
    out["enum"] = tuple(str(v) for v in enum) if isinstance(enum, list) else None
    return out


def parse_field(raw: Any, index: int, source: str, problems: Problems) -> FieldSpec | None:
    """The field at ``schema.fields[index]``, or None when it is unusable (its problems
    added to ``problems``)."""
    if not isinstance(raw, Mapping):
        problems.add(
            "a field is an object with name and role", file=source, column=f"fields[{index}]"
        )
        return None
    name = raw.get("name")
    label = name if isinstance(name, str) and name else f"fields[{index}]"
    reader = _Reader(raw, label, source, problems)
    if not isinstance(name, str) or not name.strip():
        reader.fail("a field has a name: the column's header")
    role = raw.get("role")
    if role not in ROLES:
        reader.fail(f"role is one of {', '.join(ROLES)}", role)
        return None
    allowed = _TABLE_SCHEMA_KEYS | _NOTE_KEYS | {"role"} | _ROLE_KEYS.get(role, set())
    for key in sorted(set(raw) - allowed):
        owner = next((r for r, keys in _ROLE_KEYS.items() if key in keys), None)
        rule = f"only a {owner} field has {key}" if owner else "not a field property"
        reader.fail(rule, key)
    type_ = _type(reader, role)
    missing = reader.texts("missingValues")
    extra = _rating(reader, label, type_) if role == "rating" else {}
    if role == "factor":
        extra = _factor(reader)
    return FieldSpec(
        name=label,
        role=role,
        type=type_,
        missing_values=None if missing is None else frozenset(missing),
        decimal_char=reader.text("decimalChar") or ".",
        group_char=reader.text("groupChar"),
        true_values=reader.texts("trueValues") or TRUE_VALUES,
        false_values=reader.texts("falseValues") or FALSE_VALUES,
        title=reader.text("title"),
        **_constraints(reader),
        **extra,
    )
