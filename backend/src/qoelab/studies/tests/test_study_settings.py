"""The study's settings are listed once (``STUDY_SETTINGS``) and used by the serializer,
the clone and the data version (issue 30: ``rehearsal`` was not cloned)."""

from __future__ import annotations

from typing import Any

import pytest

from qoelab.studies.cloning import clone_study
from qoelab.studies.models import (
    ANALYSIS_SETTINGS,
    NOT_SETTINGS,
    STUDY_SETTINGS,
    Language,
    OrderPolicy,
    Study,
)
from qoelab.studies.serializers import StudyDetailSerializer


def study_fields() -> list[str]:
    """Every field of a study: its columns and many-to-many fields, not reverse relations."""
    return [f.name for f in Study._meta.get_fields() if f.concrete or not f.auto_created]


def test_every_study_field_is_classified_as_a_setting_or_not() -> None:
    fields = study_fields()
    unclassified = sorted(set(fields) - set(STUDY_SETTINGS) - set(NOT_SETTINGS))
    assert not unclassified, f"add {unclassified} to STUDY_SETTINGS or NOT_SETTINGS"
    assert not set(STUDY_SETTINGS) & set(NOT_SETTINGS)
    assert set(STUDY_SETTINGS) | set(NOT_SETTINGS) == set(fields)  # no stale name either
    assert set(ANALYSIS_SETTINGS) <= set(STUDY_SETTINGS)


def test_the_serializer_writes_every_setting() -> None:
    serializer = StudyDetailSerializer()
    writable = {name for name, field in serializer.fields.items() if not field.read_only}
    assert set(STUDY_SETTINGS) <= writable


#: A value for every setting that differs from a new study's default.
CHANGED: dict[str, Any] = {
    "description": "a changed description",
    "scale_labels": ["worst", "bad", "middle", "good", "best"],
    "seconds_per_scenario": 45,
    "free_play_minutes": 3,
    "order_policy": OrderPolicy.LATIN_SQUARE,
    "retest_round": True,
    "questionnaire": [{"key": "mood", "phase": "pre", "kind": "text", "text": "Mood?"}],
    "rating_items": [
        {
            "key": "overall",
            "question": {"en": "How was it?"},
            "scale": {"kind": "discrete", "min": 1, "max": 7, "step": 1, "labels": []},
            "required": True,
        }
    ],
    "acceptance": {"item": "overall", "min": 4},
    "training": {"enabled": True, "scenarios": [], "seconds": 20},
    "quality_control": {
        "traps": [{"after": 2, "value": 6, "text": {"en": "Pick 6", "de": "Wähle 6"}}],
        "hidden_reference": {"scenario": None},
    },
    "min_response_ms": 900,
    "language": Language.DE,
    "rehearsal": True,
}


@pytest.mark.django_db
def test_a_clone_copies_every_setting(researcher: Any) -> None:
    assert set(CHANGED) == set(STUDY_SETTINGS), "give the new setting a changed value here"
    fresh = Study(slug="fresh", title="Fresh")
    for name, value in CHANGED.items():
        assert getattr(fresh, name) != value, f"{name}: the value is the default"
    source = Study.objects.create(slug="source", title="Source", **CHANGED)

    clone = clone_study(source, slug="copy", title="Copy", owner=researcher)

    clone.refresh_from_db()
    assert {name: getattr(clone, name) for name in STUDY_SETTINGS} == CHANGED
    assert (clone.slug, clone.title, clone.owner, clone.version) == ("copy", "Copy", researcher, 1)
