"""API fields of the rating instrument (issue 15): rating items, scales, acceptance, training.

The values are plain JSON validated by :mod:`qoelab.studies.rating_items` (which uses
:mod:`qoe_analysis.scales`); these fields give the OpenAPI schema their exact shape, so the
frontend's generated types know an item's question and scale.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

LOCALISED_TEXT_SCHEMA = {
    "type": "object",
    "properties": {"en": {"type": "string"}, "de": {"type": "string"}},
    "required": ["en", "de"],
}
#: A rating scale (qoe_analysis.scales): its kind, bounds, step (null: any real) and labels.
SCALE_SCHEMA = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["acr5", "dcr5", "discrete", "continuous", "binary"]},
        "min": {"type": "number"},
        "max": {"type": "number"},
        "step": {"type": "number", "nullable": True},
        "labels": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"value": {"type": "number"}, "text": LOCALISED_TEXT_SCHEMA},
                "required": ["value", "text"],
            },
        },
    },
    "required": ["kind", "min", "max", "step", "labels"],
}
RATING_ITEM_SCHEMA = {
    "type": "object",
    "properties": {
        "key": {"type": "string"},
        "question": LOCALISED_TEXT_SCHEMA,
        "scale": SCALE_SCHEMA,
        "required": {"type": "boolean"},
    },
    "required": ["key", "question", "scale", "required"],
}


@extend_schema_field({"type": "array", "items": RATING_ITEM_SCHEMA})
class RatingItemsField(serializers.JSONField):
    """The study's rating items (validated by :mod:`qoe_analysis.scales`)."""


@extend_schema_field(
    {
        "type": "object",
        "properties": {"item": {"type": "string"}, "min": {"type": "number"}},
        "required": ["item"],
    }
)
class AcceptanceField(serializers.JSONField):
    """Which item (and cut) makes a rating acceptable."""


@extend_schema_field(
    {
        "type": "object",
        "properties": {
            "enabled": {"type": "boolean"},
            "scenarios": {"type": "array", "items": {"type": "string"}},
            "seconds": {"type": "integer", "minimum": 10, "maximum": 600},
        },
        "required": ["enabled", "scenarios", "seconds"],
    }
)
class TrainingField(serializers.JSONField):
    """The training phase's settings."""


@extend_schema_field(SCALE_SCHEMA)
class ScaleField(serializers.JSONField):
    """A rating scale (:mod:`qoe_analysis.scales`)."""


class RatingPresetsSerializer(serializers.Serializer[dict[str, Any]]):
    acr5 = RatingItemsField(help_text="the default: one item overall on ACR-5")
    gaming = RatingItemsField(help_text="GAMING_PRESET (ITU-T P.809)")
    scales = serializers.DictField(child=ScaleField(), help_text="{kind: default scale}")


class SidecarSerializer(serializers.Serializer[dict[str, Any]]):
    """The tidy CSV's sidecar (``qoe-analysis --items``)."""

    items = RatingItemsField()
    acceptance = AcceptanceField()
    min_response_ms = serializers.IntegerField()
