"""API representations of the factor catalog, the design generator and study cloning.

The catalog lists every impairment factor of the registry (:mod:`netem_profile.factors`);
a design names factors and their levels and is expanded by
:mod:`qoelab.studies.design_generator`. Profiles reuse the study serializers' direction
shape, so a generated scenario reads like a stored one.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from netem_profile import FACTORS
from rest_framework import serializers

from qoelab.core.labels import validate_label
from qoelab.studies.design_generator import DESIGN_KINDS, FACTOR_DIRECTION_NAMES, FACTOR_KEYS
from qoelab.studies.direction_serializers import DirectionSerializer
from qoelab.studies.models import Study


class FactorColumnsSerializer(serializers.Serializer[dict[str, str]]):
    downstream = serializers.CharField(help_text="tidy CSV column, e.g. ds_delay_ms")
    upstream = serializers.CharField(help_text="tidy CSV column, e.g. us_delay_ms")


@extend_schema_field({"oneOf": [{"type": "number"}, {"type": "string"}]})
class LevelField(serializers.JSONField):
    """A factor level: a number, or one of the choices of a nominal factor."""


class FactorSerializer(serializers.Serializer[dict[str, Any]]):
    """One impairment factor of the registry (``netem_profile.factors.catalog()``)."""

    key = serializers.CharField()
    # A field named "label" shadows Field.label in the stubs; DRF handles it at run time.
    label = serializers.CharField()  # type: ignore[assignment]
    kind = serializers.ChoiceField(choices=["numeric", "nominal"])
    unit = serializers.CharField(allow_blank=True)
    minimum = serializers.FloatField(allow_null=True)
    maximum = serializers.FloatField(allow_null=True)
    neutral = LevelField()
    kpi = serializers.CharField(allow_null=True, help_text="policy bound it yields, if any")
    choices = serializers.ListField(child=serializers.CharField())
    columns = FactorColumnsSerializer()


class DirectionNamesSerializer(serializers.Serializer[dict[str, str]]):
    downstream = serializers.CharField()
    upstream = serializers.CharField()


class FactorsSerializer(serializers.Serializer[dict[str, Any]]):
    factors = FactorSerializer(many=True)
    directions = DirectionNamesSerializer()
    max_scenarios = serializers.IntegerField(help_text="setting QOELAB_MAX_SCENARIOS")


class DesignFactorSerializer(serializers.Serializer[dict[str, Any]]):
    key = serializers.ChoiceField(choices=list(FACTOR_KEYS))
    direction = serializers.ChoiceField(choices=list(FACTOR_DIRECTION_NAMES))
    levels = serializers.ListField(
        child=LevelField(),
        min_length=1,
        max_length=1000,
        help_text="the first level is the baseline's",
    )


class ProfileSerializer(serializers.Serializer[dict[str, Any]]):
    """A profile document; an omitted direction (or field) is neutral."""

    upstream = DirectionSerializer(required=False, help_text="client→server impairment")
    downstream = DirectionSerializer(required=False, help_text="server→client impairment")


class DesignSerializer(serializers.Serializer[dict[str, Any]]):
    kind = serializers.ChoiceField(choices=list(DESIGN_KINDS))
    # ListSerializer takes max_length (DRF ≥ 3.14); the stubs do not know it yet.
    factors = DesignFactorSerializer(  # type: ignore[call-arg]
        many=True, allow_empty=False, max_length=2 * len(FACTORS)
    )
    base = ProfileSerializer(
        required=False, help_text="applied to every scenario below the design's factors"
    )
    dry_run = serializers.BooleanField(default=False, help_text="preview only, change nothing")


class DesignScenarioSerializer(serializers.Serializer[dict[str, Any]]):
    code = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]
    is_baseline = serializers.BooleanField()
    upstream = DirectionSerializer()
    downstream = DirectionSerializer()


class DesignResultSerializer(serializers.Serializer[dict[str, Any]]):
    count = serializers.IntegerField()
    session_minutes = serializers.FloatField()
    scenarios = DesignScenarioSerializer(many=True)


class StudyCloneSerializer(serializers.Serializer[dict[str, Any]]):
    slug = serializers.SlugField(max_length=80)
    title = serializers.CharField(max_length=200, validators=[validate_label])

    def validate_slug(self, slug: str) -> str:
        if Study.objects.filter(slug=slug).exists():
            raise serializers.ValidationError(f"a study {slug!r} exists already")
        return slug
