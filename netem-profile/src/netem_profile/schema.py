"""The profile document's JSON Schema (draft 2020-12), generated from the field registry.

It states the structural rules (types, limits, allowed values, unknown fields rejected)
for clients in other languages and for documentation; :func:`netem_profile.parse_profile`
applies the same rules without a schema library, plus the rules a schema cannot express.
"""

from __future__ import annotations

from typing import Any

from netem_profile.fields import DIRECTION_FIELDS, Field
from netem_profile.model import DIRECTION_LABELS, DIRECTIONS

__all__ = ["SCHEMA_ID", "json_schema"]

SCHEMA_ID = "https://qoe-lab.example/schemas/netem-agent/profile.schema.json"


def _object(parts: tuple[Field, ...], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            part.name: field_schema(part, default=part.name not in required) for part in parts
        },
    }
    if required:
        schema["required"] = list(required)
    return schema


def field_schema(spec: Field, *, default: bool = True) -> dict[str, Any]:
    """The JSON Schema of one registry field, its neutral value as ``default`` unless the
    field is a required part of a record (it has none then)."""
    schema: dict[str, Any] = {"description": spec.description}
    if spec.type == "object":
        # null (absent model) or the nested record
        schema["oneOf"] = [{"type": "null"}, _object(spec.parts, spec.required)]
    elif spec.type == "choice":
        schema["enum"] = list(spec.choices)
    else:
        schema["type"] = spec.type
        if spec.minimum is not None:
            schema["minimum"] = spec.minimum
        if spec.maximum is not None:
            schema["maximum"] = spec.maximum
    if default:
        schema["default"] = spec.neutral
    if spec.unit:
        schema["x-unit"] = spec.unit
    return schema


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a whole profile document (a fresh dict on every call)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "QoE Lab impairment profile",
        "description": (
            "Per-direction network impairment applied by the netem agent. "
            "upstream = client→server, downstream = server→client. Every field is optional; "
            "an omitted field takes its neutral default (no impairment). "
            "Unknown fields are rejected."
        ),
        "type": "object",
        "additionalProperties": False,
        "properties": {
            name: {
                "description": f"{DIRECTION_LABELS[name]} direction",
                "$ref": "#/$defs/direction",
            }
            for name in DIRECTIONS
        },
        "$defs": {"direction": _object(DIRECTION_FIELDS)},
    }
