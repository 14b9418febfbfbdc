"""The field registry is the one source of the direction's fields, units and limits."""

from __future__ import annotations

from dataclasses import fields

from netem_profile import DIRECTION_FIELDS, FIELDS, DirectionProfile, GilbertElliott
from netem_profile.fields import GILBERT_ELLIOTT_FIELDS


def test_the_profile_objects_have_the_registry_fields_in_registry_order() -> None:
    assert [f.name for f in fields(DirectionProfile)] == [f.name for f in DIRECTION_FIELDS]
    assert [f.name for f in fields(GilbertElliott)] == [f.name for f in GILBERT_ELLIOTT_FIELDS]
    assert list(FIELDS) == [f.name for f in DIRECTION_FIELDS]


def test_defaults_are_the_registry_neutral_values_and_within_the_limits() -> None:
    neutral = DirectionProfile().to_dict()
    for spec in DIRECTION_FIELDS:
        assert neutral[spec.name] == spec.neutral, spec.name
        if spec.type in ("number", "integer"):
            assert spec.minimum is not None and spec.maximum is not None, spec.name
            assert spec.minimum <= spec.neutral <= spec.maximum, spec.name  # type: ignore[operator]
            assert spec.unit, f"{spec.name} has no unit"
        if spec.type == "choice":
            assert spec.neutral in spec.choices
    assert GilbertElliott(1, 2).to_dict() == {
        "p_pct": 1,
        "r_pct": 2,
        "loss_bad_pct": 100,
        "loss_good_pct": 0,
    }


def test_units_match_the_name_suffix() -> None:
    suffix_unit = {"_ms": "ms", "_pct": "%", "_kbit": "kbit/s", "_packets": "packets"}
    for spec in (*DIRECTION_FIELDS, *GILBERT_ELLIOTT_FIELDS):
        expected = [unit for suffix, unit in suffix_unit.items() if spec.name.endswith(suffix)]
        assert [spec.unit] == expected or (not expected and not spec.unit), spec.name
