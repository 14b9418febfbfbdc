"""The API field of a study's quality-control settings (:mod:`qoelab.studies.quality_control`):
its exact shape in the OpenAPI schema, so the frontend's generated types know it."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from qoelab.studies.models import Study
from qoelab.studies.quality_control import validate_quality_control
from qoelab.studies.rating_item_fields import LOCALISED_TEXT_SCHEMA

TRAP_SCHEMA = {
    "type": "object",
    "properties": {
        "after": {
            "type": "integer",
            "minimum": 1,
            "nullable": True,
            "description": "test scenario number after which the trap is shown; null: random",
        },
        "value": {"type": "number", "description": "the instructed value (first item's scale)"},
        "text": LOCALISED_TEXT_SCHEMA,
    },
    "required": ["after", "value", "text"],
}
QUALITY_CONTROL_SCHEMA = {
    "type": "object",
    "properties": {
        "traps": {"type": "array", "items": TRAP_SCHEMA, "maxItems": 3},
        "hidden_reference": {
            "type": "object",
            "nullable": True,
            "properties": {
                "scenario": {
                    "type": "string",
                    "nullable": True,
                    "description": "scenario code; null: the baseline",
                }
            },
            "required": ["scenario"],
        },
    },
    "required": ["traps", "hidden_reference"],
}


@extend_schema_field(QUALITY_CONTROL_SCHEMA)
class QualityControlField(serializers.JSONField):
    """Trapping items and a hidden reference."""


def checked_quality_control(
    attrs: dict[str, Any], study: Study | None, items: list[dict[str, Any]]
) -> dict[str, Any]:
    """The study serializer's QC settings (new, or the stored ones when the items change)
    checked against the items (a trap's value on the first item's scale), the scenarios and
    an analysis-only study; a 400 naming the field otherwise."""
    qc = attrs.get("quality_control", study.quality_control if study else None)
    codes = {s.code for s in study.active_scenarios()} if study else set()
    try:
        return validate_quality_control(
            qc, items=items, codes=codes, analysis_only=bool(study and study.analysis_only)
        )
    except ValueError as exc:
        raise serializers.ValidationError({"quality_control": str(exc)}) from None
