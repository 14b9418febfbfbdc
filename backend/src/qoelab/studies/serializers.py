"""API representations of studies, games and scenarios.

Scenarios are shown with one object per direction, the same shape as the netem agent's
profile document: ``{"upstream": {"delay_ms", "jitter_ms", "jitter_distribution", …,
"gilbert_elliott", …}, "downstream": …}`` with every field of the agent's registry
(:mod:`netem_profile.fields`) except the station's ``queue_limit_packets``. Input is
checked by the agent's own validator, so a value outside its limits is refused with the
field's path and the limit ("downstream.loss_pct: 150 is greater than the maximum of 100").
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from qoelab.core.labels import validate_label
from qoelab.ratings.provenance import ratings_by_backend
from qoelab.studies.data_version import analysis_settings, bump_data_version
from qoelab.studies.design_generator import RATING_ALLOWANCE_SECONDS
from qoelab.studies.direction_serializers import DirectionSerializer
from qoelab.studies.directions import split_direction
from qoelab.studies.models import (
    STUDY_SETTINGS,
    Game,
    OrderPolicy,
    Scenario,
    Study,
    scenario_code_validator,
)
from qoelab.studies.pace import PACE_ERRORS
from qoelab.studies.private_fields import PRIVATE_DETAIL_FIELDS, shows_private_fields
from qoelab.studies.quality_control_field import QualityControlField, checked_quality_control
from qoelab.studies.rating_item_fields import AcceptanceField, RatingItemsField, TrainingField
from qoelab.studies.rating_items import (
    default_rating_items,
    legacy_items,
    validate_acceptance,
    validate_items,
    validate_min_response_ms,
    validate_training,
)
from qoelab.studies.scenario_warnings import (
    WARNINGS_HELP,
    ScenarioWarningSerializer,
    scenario_warnings,
)
from qoelab.studies.versioning import study_is_locked

DIRECTION_PREFIXES = {"upstream": "us", "downstream": "ds"}


class GameSerializer(serializers.ModelSerializer[Game]):
    class Meta:
        model = Game
        fields = ["id", "name", "pace", "genre"]


class GameWriteSerializer(serializers.ModelSerializer[Game]):
    """Games through /api/v1/games/: ``study`` is set on creation and never changes."""

    class Meta:
        model = Game
        fields = ["id", "study", "name", "pace", "genre"]
        extra_kwargs = {
            "name": {"validators": [validate_label]},
            "genre": {"validators": [validate_label]},
            "pace": {"error_messages": PACE_ERRORS},
        }
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
    warnings = ScenarioWarningSerializer(many=True, read_only=True, help_text=WARNINGS_HELP)

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
            "warnings",
        ]
        read_only_fields = ["version", "retired_in_version"]
        extra_kwargs = {
            "code": {"validators": [scenario_code_validator]},
            "label": {"validators": [validate_label]},
            "position": {"required": False},
        }
        validators: list[Any] = []

    def to_representation(self, instance: Scenario) -> dict[str, Any]:
        return {
            **ScenarioSerializer(instance).data,
            "study": instance.study_id,
            "version": instance.version,
            "retired_in_version": instance.retired_in_version,
            "warnings": scenario_warnings(instance),
        }

    def to_internal_value(self, data: Any) -> Any:
        """A direction given for an existing row changes only the fields it names."""
        instance: Scenario | None = self.instance
        if instance is not None and isinstance(data, dict):
            data = dict(data)
            for direction, prefix in DIRECTION_PREFIXES.items():
                if isinstance(data.get(direction), dict):
                    data[direction] = {**instance.direction(prefix), **data[direction]}
        return super().to_internal_value(data)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
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
        return attrs


def flatten_directions(data: dict[str, Any]) -> dict[str, Any]:
    """Validated ``{"upstream": {...}, "downstream": {...}}`` → model field values.

    Delay, jitter and loss go to their columns, the other fields (only the non-neutral
    ones) to ``us_extra``/``ds_extra``; a direction not in ``data`` is left untouched.
    """
    flat = {key: value for key, value in data.items() if key not in DIRECTION_PREFIXES}
    for direction, prefix in DIRECTION_PREFIXES.items():
        if data.get(direction) is None:
            continue
        columns, extra = split_direction(data[direction])
        for field, value in columns.items():
            flat[f"{prefix}_{field}"] = value
        flat[f"{prefix}_extra"] = extra
    return flat


QUESTION_KINDS = ("choice", "text", "integer", "boolean")
QUESTION_PHASES = ["pre", "post"]


class QuestionSerializer(serializers.Serializer[dict[str, Any]]):
    key = serializers.RegexField(r"^[a-z][a-z0-9_]{0,59}$", help_text="snake_case identifier")
    phase = serializers.ChoiceField(choices=QUESTION_PHASES)
    kind = serializers.ChoiceField(choices=QUESTION_KINDS)
    text = serializers.CharField(max_length=500)
    choices = serializers.ListField(
        child=serializers.CharField(max_length=100, validators=[validate_label]),
        required=False,
        max_length=20,
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
        slug_field="username",
        read_only=True,
        help_text="The owner's user name; only for the owner, members and staff.",
    )
    scale_labels = serializers.ListField(
        child=serializers.CharField(max_length=40),
        min_length=2,
        max_length=11,
        required=False,
        help_text="Rating scale labels, lowest first; scores are 1..len(labels).",
    )
    questionnaire = QuestionSerializer(many=True, required=False)
    rating_items = RatingItemsField(
        required=False,
        help_text="The items rated after each scenario, in screen order: [{key, question "
        "{en, de}, scale {kind, min, max, step, labels}, required}] (1..8); frozen once the "
        "study has sessions.",
    )
    acceptance = AcceptanceField(
        required=False,
        help_text='"Acceptable": {"item": key} for a yes/no item, or {"item": key, "min": v}.',
    )
    training = TrainingField(
        required=False,
        help_text='Training first: {"enabled", "scenarios": [codes; empty = baseline and the '
        'most impaired], "seconds": 10..600}.',
    )
    quality_control = QualityControlField(
        required=False,
        help_text='ITU-T P.808 checks: {"traps": [{"after": n or null (random), "value", '
        '"text": {"en", "de"}}] (0..3), "hidden_reference": null or {"scenario": code or null '
        "(baseline)}}; failed raters are flagged; refused for analysis-only studies.",
    )
    order_policy = serializers.ChoiceField(choices=OrderPolicy.choices, required=False)
    ratings_by_backend = serializers.SerializerMethodField(
        help_text='Ratings per agent backend of their provenance ({"netlink": n, "dry-run": '
        'n, "import": n, "": not recorded}), training ratings excluded (they count nowhere); '
        "a dry-run agent applied nothing to a kernel. Only for the owner, members and staff."
    )
    analysis_only = serializers.BooleanField(
        read_only=True,
        help_text="Imported from a dataset (POST /api/v1/datasets/import/): analysed like any "
        "study, never run at a station (creating or starting a session is refused, 409).",
    )
    session_minutes = serializers.FloatField(
        read_only=True,
        help_text="Estimated minutes per session: free play + plays × (seconds per scenario "
        f"+ {RATING_ALLOWANCE_SECONDS} s to rate) / 60, plays = scenarios (+ all but the "
        "baseline again with the retest round); questionnaires not included.",
    )

    class Meta:
        model = Study
        fields = [
            "id",
            "slug",
            "title",
            "games",
            "scenarios",
            "owner",
            "version",
            *STUDY_SETTINGS,
            "ratings_by_backend",
            "session_minutes",
            "analysis_only",
        ]
        read_only_fields = ["version", "session_minutes", "analysis_only"]
        extra_kwargs = {"title": {"validators": [validate_label]}}

    def update(self, instance: Study, validated_data: dict[str, Any]) -> Study:
        """Save the change; one that changes the analysis' input bumps the data version
        in the same transaction (:mod:`qoelab.studies.data_version`)."""
        before = analysis_settings(instance)
        with transaction.atomic():
            study = super().update(instance, validated_data)
            if analysis_settings(study) != before:
                bump_data_version(study)
        return study

    @extend_schema_field(
        {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
    )
    def get_ratings_by_backend(self, study: Study) -> dict[str, int]:
        # Not counted for a caller who will not see it (to_representation drops it).
        return ratings_by_backend(study) if self._shows_private else {}

    _shows_private = True

    def to_representation(self, instance: Study) -> dict[str, Any]:
        """The study; ``owner`` and ``ratings_by_backend`` only for those who may see them
        (:func:`shows_private_fields`)."""
        self._shows_private = shows_private_fields(self.context.get("request"), instance)
        data: dict[str, Any] = super().to_representation(instance)
        if not self._shows_private:
            for name in PRIVATE_DETAIL_FIELDS:
                data.pop(name, None)
        return data

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

    def validate_rating_items(self, items: Any) -> list[dict[str, Any]]:
        try:
            parsed = validate_items(items)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from None
        study: Study | None = self.instance
        if study is not None and parsed != study.rating_items and study_is_locked(study):
            raise serializers.ValidationError(
                "the study has sessions; changing the rating items would relabel their "
                "ratings (create a new study instead)"
            )
        return parsed

    def validate_min_response_ms(self, value: Any) -> int:
        try:
            return validate_min_response_ms(value)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from None

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """Acceptance against the items, training against the scenarios; a new scale_labels
        list carries over to the overall item while the study still uses the legacy one."""
        study: Study | None = self.instance
        if (
            study is not None
            and "scale_labels" in attrs
            and "rating_items" not in attrs
            and study.rating_items == legacy_items(study.scale_labels)
        ):
            attrs["rating_items"] = legacy_items(attrs["scale_labels"])
        items = attrs.get("rating_items", study.rating_items if study else None)
        items = items if items is not None else default_rating_items()
        acceptance = attrs.get("acceptance", study.acceptance if study else None)
        if acceptance is not None and ("acceptance" in attrs or "rating_items" in attrs):
            try:
                attrs["acceptance"] = validate_acceptance(acceptance, items)
            except ValueError as exc:
                raise serializers.ValidationError({"acceptance": str(exc)}) from None
        if "training" in attrs:
            codes = {s.code for s in study.active_scenarios()} if study else set()
            try:
                attrs["training"] = validate_training(attrs["training"], codes)
            except ValueError as exc:
                raise serializers.ValidationError({"training": str(exc)}) from None
        if "quality_control" in attrs or ("rating_items" in attrs and study is not None):
            attrs["quality_control"] = checked_quality_control(attrs, study, items)
        return attrs

    def validate_scale_labels(self, labels: list[str]) -> list[str]:
        study: Study | None = self.instance
        if study is not None and labels != study.scale_labels and study_is_locked(study):
            raise serializers.ValidationError(
                "the study has sessions; changing the rating scale would relabel their "
                "ratings (create a new study instead)"
            )
        return labels
