"""The policy's published JSON Schemas and validation against them.

The schemas ship in ``qoe_analysis/policy/schemas/`` (``qoe-policy.schema.json`` for the
document, one per controller format for the exports); validation reports the first
violation by JSON path, so a message names the field (JSON Schema draft 2020-12).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["PolicyError", "load_schema", "validate_against", "validate_policy"]


class PolicyError(ValueError):
    """Input that cannot become (or is not) a valid policy; the message is one line."""


@cache
def load_schema(name: str = "qoe-policy") -> dict[str, Any]:
    """A JSON Schema shipped in ``qoe_analysis/policy/schemas/`` (without ``.schema.json``)."""
    text = (
        resources.files("qoe_analysis.policy")
        .joinpath("schemas", f"{name}.schema.json")
        .read_text(encoding="utf-8")
    )
    schema: dict[str, Any] = json.loads(text)
    return schema


def validate_against(instance: Any, schema_name: str, what: str) -> None:
    """Raise :class:`PolicyError` naming the first schema violation (JSON path + message)."""
    import jsonschema  # type: ignore[import-untyped]

    schema = load_schema(schema_name)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))
    if errors:
        error = errors[0]
        path = "/".join(str(p) for p in error.absolute_path) or "(root)"
        message = " ".join(error.message.split())
        if len(message) > 200:
            message = message[:197] + "..."
        raise PolicyError(f"{what}: {path}: {message}")


def validate_policy(policy: Any) -> None:
    """Validate a policy against the published schema (raises :class:`PolicyError`)."""
    validate_against(policy, "qoe-policy", "invalid policy")
