"""One direction of a scenario in the API: every field of the netem agent's registry.

The shape is the agent's profile document for one direction (``{"delay_ms", "jitter_ms",
…, "gilbert_elliott": {…}}``) without the station's ``queue_limit_packets``. Input is
checked by the agent's own validator (:func:`netem_profile.parse_profile`), so an error
names the field's path and the limit ("downstream.loss_pct: 150 is greater than the
maximum of 100").
"""

from __future__ import annotations

from typing import Any

from netem_profile import DIRECTIONS, FIELDS, ProfileError
from netem_profile.fields import Field as RegistryField
from rest_framework import serializers

from qoelab.studies.directions import SCENARIO_FIELDS, STATION_FIELDS, checked_direction


def _help(spec: RegistryField) -> str:
    unit = f" Unit: {spec.unit}." if spec.unit else ""
    return f"{spec.description}{unit}"


def _registry_field(spec: RegistryField) -> serializers.Field[Any, Any, Any, Any]:
    """The DRF field that documents a registry field in the OpenAPI schema."""
    limits: dict[str, Any] = {}
    if spec.minimum is not None:
        limits["min_value"] = spec.minimum
    if spec.maximum is not None:
        limits["max_value"] = spec.maximum
    if spec.type == "object":
        return GilbertElliottSerializer(allow_null=True, default=None, help_text=_help(spec))
    if spec.type == "choice":
        return serializers.ChoiceField(
            choices=list(spec.choices), default=str(spec.neutral), help_text=_help(spec)
        )
    if spec.type == "integer":
        return serializers.IntegerField(
            default=int(spec.neutral or 0), help_text=_help(spec), **limits
        )
    return serializers.FloatField(default=float(spec.neutral or 0), help_text=_help(spec), **limits)


class GilbertElliottSerializer(serializers.Serializer[dict[str, float]]):
    """Gilbert–Elliott bursty loss (two-state Markov chain), all in percent."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        spec = FIELDS["gilbert_elliott"]
        out: dict[str, serializers.Field[Any, Any, Any, Any]] = {}
        for part in spec.parts:
            kwargs: dict[str, Any] = {
                "min_value": part.minimum,
                "max_value": part.maximum,
                "help_text": _help(part),
            }
            if part.name in spec.required:
                kwargs["required"] = True
            else:
                kwargs["default"] = float(part.neutral or 0)
            out[part.name] = serializers.FloatField(**kwargs)
        return out


class DirectionSerializer(serializers.Serializer[dict[str, Any]]):
    """One direction's impairment: every agent field but the station's queue limit.

    Omitted fields are neutral. Validation is :func:`netem_profile.parse_profile`'s (types,
    limits, and netem's rules such as "reordering needs a delay"); the validated value is
    the complete direction (every field explicit).
    """

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {name: _registry_field(FIELDS[name]) for name in SCENARIO_FIELDS}

    def _direction(self) -> str:
        return self.field_name if self.field_name in DIRECTIONS else "upstream"

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        name = self._direction()
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(SCENARIO_FIELDS) - set(STATION_FIELDS))
            if unknown:
                raise serializers.ValidationError(
                    f"Unknown field(s) {', '.join(unknown)}; allowed: {', '.join(SCENARIO_FIELDS)}"
                )
        try:
            return checked_direction(name, data)
        except ProfileError as exc:
            raise serializers.ValidationError(_nested_errors(name, exc.errors)) from None

    def to_representation(self, instance: Any) -> dict[str, Any]:
        return dict(instance)


def _nested_errors(direction: str, errors: list[dict[str, str]]) -> Any:
    """Agent errors (``downstream.gilbert_elliott.p_pct``) as DRF's nested error dict.

    Each message starts with the full path, so it names the field and the limit even
    where a client shows only the text.
    """
    nested: dict[str, Any] = {}
    loose: list[str] = []
    for error in errors:
        parts = error["path"].split(".")
        text = f"{error['path']}: {error['message']}"
        if parts[0] != direction or len(parts) == 1:
            loose.append(text)
            continue
        node = nested
        for part in parts[1:-1]:
            child = node.setdefault(part, {})
            node = child if isinstance(child, dict) else node
        node.setdefault(parts[-1], []).append(text)
    if loose and not nested:
        return loose
    if loose:
        nested["non_field_errors"] = loose
    return nested
