"""API representations of studies, games and scenarios.

Scenarios are shown with one object per direction, the same shape as the netem agent's
profile document: ``{"upstream": {"delay_ms", "jitter_ms", "loss_pct"}, "downstream": …}``.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from qoelab.studies.models import (
    MAX_DELAY_MS,
    MAX_JITTER_MS,
    Game,
    Scenario,
    Study,
    scenario_code_validator,
)

DIRECTION_PREFIXES = {"upstream": "us", "downstream": "ds"}


class DirectionSerializer(serializers.Serializer[dict[str, float]]):
    delay_ms = serializers.FloatField(min_value=0.0, max_value=MAX_DELAY_MS, default=0.0)
    jitter_ms = serializers.FloatField(min_value=0.0, max_value=MAX_JITTER_MS, default=0.0)
    loss_pct = serializers.FloatField(min_value=0.0, max_value=100.0, default=0.0)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                allowed = ", ".join(self.fields)
                raise serializers.ValidationError(
                    f"Unknown field(s) {', '.join(unknown)}; allowed: {allowed}."
                )
        return super().to_internal_value(data)


class GameSerializer(serializers.ModelSerializer[Game]):
    class Meta:
        model = Game
        fields = ["id", "name", "pace", "genre"]


class ScenarioSerializer(serializers.ModelSerializer[Scenario]):
    upstream = DirectionSerializer(help_text="client→server impairment")
    downstream = DirectionSerializer(help_text="server→client impairment")

    class Meta:
        model = Scenario
        fields = ["id", "code", "label", "position", "is_baseline", "upstream", "downstream"]
        extra_kwargs = {"code": {"validators": [scenario_code_validator]}}

    def to_representation(self, instance: Scenario) -> dict[str, Any]:
        return {
            "id": instance.pk,
            "code": instance.code,
            "label": instance.label,
            "position": instance.position,
            "is_baseline": instance.is_baseline,
            "upstream": instance.direction("us"),
            "downstream": instance.direction("ds"),
        }


def flatten_directions(data: dict[str, Any]) -> dict[str, Any]:
    """Turn validated ``{"upstream": {...}, "downstream": {...}}`` into model field values."""
    flat = {key: value for key, value in data.items() if key not in DIRECTION_PREFIXES}
    for direction, prefix in DIRECTION_PREFIXES.items():
        for field, value in (data.get(direction) or {}).items():
            flat[f"{prefix}_{field}"] = value
    return flat


class StudySummarySerializer(serializers.ModelSerializer[Study]):
    game_count = serializers.IntegerField(read_only=True)
    scenario_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Study
        fields = ["id", "slug", "title", "description", "game_count", "scenario_count"]


class StudyDetailSerializer(serializers.ModelSerializer[Study]):
    games = GameSerializer(many=True, read_only=True)
    scenarios = ScenarioSerializer(many=True, read_only=True)

    class Meta:
        model = Study
        fields = ["id", "slug", "title", "description", "games", "scenarios"]
