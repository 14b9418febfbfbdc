"""The JSON Schema of the analysis document, from its ``TypedDict``s (pydantic).

Every object is closed (``additionalProperties: false``), so a key the types do not list
fails validation, except the open objects of :data:`OPEN_OBJECTS`, whose further keys are
data-dependent columns with values of the given schema. A ``dict[str, X]`` stays a map.
The schema is deterministic: ``scripts/analysis-types.sh`` generates the frontend's
types from it and fails ``make lint`` on drift.
"""

from __future__ import annotations

import json
from typing import Any

from qoe_analysis.schema.document import AnalysisDocument

__all__ = ["OPEN_OBJECTS", "SCHEMA_ID", "document_schema", "main"]

SCHEMA_ID = "https://qoelab.invalid/schemas/analysis-document.schema.json"

_NUMBER_OR_TEXT: dict[str, Any] = {
    "anyOf": [{"type": "number"}, {"type": "string"}, {"type": "null"}]
}

#: Objects with data-dependent keys: a condition's factor columns (``ds_*``/``us_*``) and
#: an intra-rater row's ρ per scenario group (``rho_<group>``).
OPEN_OBJECTS: dict[str, dict[str, Any]] = {
    "Condition": _NUMBER_OR_TEXT,
    "IntraRater": {"anyOf": [{"type": "number"}, {"type": "null"}]},
}


_TS_SCALARS = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean"}


def _tuple_ts_type(node: dict[str, Any]) -> str | None:
    """``[string, string]`` for a tuple of scalars (``prefixItems``, draft 2020-12), which
    json-schema-to-typescript reads only through its ``tsType`` keyword (validators ignore it)."""
    items = node.get("prefixItems")
    if not isinstance(items, list) or not all(i.get("type") in _TS_SCALARS for i in items):
        return None
    return "[" + ", ".join(_TS_SCALARS[i["type"]] for i in items) + "]"


def _tidy(node: Any, *, named: bool = False) -> None:
    """Close every object schema that lists properties (``additionalProperties: false``),
    name tuples for the TypeScript generator, and drop the titles pydantic gives to
    properties ("Ci95 Low"): only the definitions keep theirs, so the generated TypeScript
    names types, not fields."""
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node:
            node.setdefault("additionalProperties", False)
        tuple_type = _tuple_ts_type(node)
        if tuple_type is not None:
            node["tsType"] = tuple_type
        if not named:
            node.pop("title", None)
        for key, value in node.items():
            if key == "$defs":
                for definition in value.values():
                    _tidy(definition, named=True)
            elif key == "properties":
                for field in value.values():
                    _tidy(field)
            else:
                _tidy(value)
    elif isinstance(node, list):
        for value in node:
            _tidy(value)


def document_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of :class:`~qoe_analysis.schema.AnalysisDocument`."""
    from pydantic import TypeAdapter

    schema: dict[str, Any] = TypeAdapter(AnalysisDocument).json_schema(mode="serialization")
    for name, extra in OPEN_OBJECTS.items():
        schema["$defs"][name]["additionalProperties"] = extra
    _tidy(schema, named=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
    }


def main() -> None:
    """Print the schema (``python -m qoe_analysis.schema``)."""
    print(json.dumps(document_schema(), indent=2, ensure_ascii=False))
