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
    OrderPolicy,
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


class GameWriteSerializer(serializers.ModelSerializer[Game]):
    """Games through /api/v1/games/: ``study`` is set on creation and never changes."""

    class Meta:
        model = Game
        fields = ["id", "study", "name", "pace", "genre"]
        validators: list[Any] = []

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        study = attrs.get("study") or (self.instance.study if self.instance else None)
        name = attrs.get("name", self.instance.name if self.instance else None)
        if self.instance is not None and "study" in attrs and attrs["study"] != self.instance.study:
            raise serializers.ValidationError({"study": "a game cannot move to another study"})
        clash = Game.objects.filter(study=study, name=name)
        if self.instance is not None:
            clash = clash.exclude(pk=self.instance.pk)
        if clash.exists():
            raise serializers.ValidationError({"name": f"the study already has a game {name!r}"})
        return attrs


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


class ScenarioWriteSerializer(serializers.ModelSerializer[Scenario]):
    """Scenarios through /api/v1/scenarios/ (versioned once the study has sessions)."""

    upstream = DirectionSerializer(help_text="client→server impairment", required=False)
    downstream = DirectionSerializer(help_text="server→client impairment", required=False)

    class Meta:
        model = Scenario
        fields = [
            "id",
            "study",
            "code",
            "label",
            "position",
            "is_baseline",
            "upstream",
            "downstream",
            "version",
            "retired_in_version",
        ]
        read_only_fields = ["version", "retired_in_version"]
        extra_kwargs = {
            "code": {"validators": [scenario_code_validator]},
            "position": {"required": False},
        }
        validators: list[Any] = []

    def to_representation(self, instance: Scenario) -> dict[str, Any]:
        return {
            **ScenarioSerializer(instance).data,
            "study": instance.study_id,
            "version": instance.version,
            "retired_in_version": instance.retired_in_version,
        }

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        from qoelab.stations.agent_client import validate_profile

        instance: Scenario | None = self.instance
        if instance is not None:
            if instance.retired_in_version is not None:
                raise serializers.ValidationError(
                    f"this scenario row was retired in study version "
                    f"{instance.retired_in_version}; edit the current row instead"
                )
            if "study" in attrs and attrs["study"] != instance.study:
                raise serializers.ValidationError(
                    {"study": "a scenario cannot move to another study"}
                )
        study = attrs.get("study") or (instance.study if instance else None)
        code = attrs.get("code", instance.code if instance else None)
        active = Scenario.objects.filter(study=study, retired_in_version__isnull=True)
        if instance is not None:
            active = active.exclude(pk=instance.pk)
        if active.filter(code=code).exists():
            raise serializers.ValidationError({"code": f"the study already has a scenario {code}"})
        if attrs.get("is_baseline") and active.filter(is_baseline=True).exists():
            raise serializers.ValidationError(
                {"is_baseline": "the study already has a baseline scenario"}
            )
        directions = {}
        for direction, prefix in DIRECTION_PREFIXES.items():
            current = instance.direction(prefix) if instance else {}
            directions[direction] = {
                **DirectionSerializer().to_internal_value({}),
                **current,
                **attrs.get(direction, {}),
            }
        problems = validate_profile(directions)
        if problems:
            raise serializers.ValidationError(
                {"profile": [f"{p['path']}: {p['message']}" for p in problems]}
            )
        return attrs


def flatten_directions(data: dict[str, Any]) -> dict[str, Any]:
    """Turn validated ``{"upstream": {...}, "downstream": {...}}`` into model field values."""
    flat = {key: value for key, value in data.items() if key not in DIRECTION_PREFIXES}
    for direction, prefix in DIRECTION_PREFIXES.items():
        for field, value in (data.get(direction) or {}).items():
            flat[f"{prefix}_{field}"] = value
    return flat


QUESTION_KINDS = ("choice", "text", "integer", "boolean")


class QuestionSerializer(serializers.Serializer[dict[str, Any]]):
    key = serializers.RegexField(r"^[a-z][a-z0-9_]{0,59}$", help_text="snake_case identifier")
    phase = serializers.ChoiceField(choices=["pre", "post"])
    kind = serializers.ChoiceField(choices=QUESTION_KINDS)
    text = serializers.CharField(max_length=500)
    choices = serializers.ListField(
        child=serializers.CharField(max_length=100), required=False, max_length=20
    )
    min = serializers.IntegerField(required=False)
    max = serializers.IntegerField(required=False)
    required = serializers.BooleanField(default=False)  # type: ignore[assignment]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["kind"] == "choice" and len(attrs.get("choices") or []) < 2:
            raise serializers.ValidationError({"choices": "a choice question needs 2+ choices"})
        return attrs


RESERVED_QUESTION_KEYS = {"consent", "age", "skill", "genre_preference"}


class StudySummarySerializer(serializers.ModelSerializer[Study]):
    game_count = serializers.IntegerField(read_only=True)
    scenario_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Study
        fields = ["id", "slug", "title", "description", "game_count", "scenario_count"]


class StudyDetailSerializer(serializers.ModelSerializer[Study]):
    """A study with its settings, games and current scenarios; writable settings."""

    games = GameSerializer(many=True, read_only=True)
    scenarios = ScenarioSerializer(many=True, read_only=True, source="current_scenarios")
    owner: serializers.SlugRelatedField[Any] = serializers.SlugRelatedField(
        slug_field="username", read_only=True
    )
    scale_labels = serializers.ListField(
        child=serializers.CharField(max_length=40),
        min_length=2,
        max_length=11,
        required=False,
        help_text="Rating scale labels, lowest first; scores are 1..len(labels).",
    )
    questionnaire = QuestionSerializer(many=True, required=False)
    order_policy = serializers.ChoiceField(choices=OrderPolicy.choices, required=False)

    class Meta:
        model = Study
        fields = [
            "id",
            "slug",
            "title",
            "description",
            "games",
            "scenarios",
            "owner",
            "version",
            "scale_labels",
            "seconds_per_scenario",
            "free_play_minutes",
            "order_policy",
            "retest_round",
            "questionnaire",
            "language",
        ]
        read_only_fields = ["version"]

    def validate_questionnaire(self, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
        keys = [q["key"] for q in questions]
        duplicated = sorted({k for k in keys if keys.count(k) > 1})
        if duplicated:
            raise serializers.ValidationError(f"duplicate question key(s): {duplicated}")
        reserved = sorted(set(keys) & RESERVED_QUESTION_KEYS)
        if reserved:
            raise serializers.ValidationError(
                f"{reserved} are asked by the built-in questionnaire; choose other keys"
            )
        return [dict(q) for q in questions]

    def validate_scale_labels(self, labels: list[str]) -> list[str]:
        study: Study | None = self.instance
        if study is not None and labels != study.scale_labels:
            from qoelab.studies.versioning import study_is_locked

            if study_is_locked(study):
                raise serializers.ValidationError(
                    "the study has sessions; changing the rating scale would relabel their "
                    "ratings (create a new study instead)"
                )
        return labels
