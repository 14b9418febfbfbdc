"""Scales, items, acceptance rule and sidecar parsing (qoe_analysis.scales)."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from qoe_analysis import scales


def _sidecar(**over: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "items": copy.deepcopy(list(scales.GAMING_PRESET)),
        "acceptance": {"item": "acceptance"},
        "min_response_ms": 800,
    }
    doc.update(over)
    return doc


def test_defaults_per_kind() -> None:
    acr = scales.default_scale("acr5")
    assert (acr["min"], acr["max"], acr["step"]) == (1, 5, 1)
    assert [label["text"]["en"] for label in acr["labels"]] == [
        "Bad",
        "Poor",
        "Fair",
        "Good",
        "Excellent",
    ]
    assert scales.default_scale("dcr5")["labels"][-1]["text"]["en"] == "Imperceptible"
    binary = scales.default_scale("binary")
    assert (binary["min"], binary["max"]) == (0, 1)
    assert scales.default_scale("continuous")["step"] is None
    with pytest.raises(ValueError, match="kind"):
        scales.default_scale("likert")


def test_parse_scale_fills_defaults_and_keeps_a_declared_range() -> None:
    assert scales.parse_scale({"kind": "acr5"}) == scales.default_scale("acr5")
    zero_six = scales.parse_scale({"kind": "discrete", "min": 0, "max": 6, "step": 1})
    assert (zero_six["min"], zero_six["max"], zero_six["labels"]) == (0, 6, [])
    assert scales.scale_points(zero_six) == [0, 1, 2, 3, 4, 5, 6]
    slider = scales.parse_scale({"kind": "continuous", "min": 0, "max": 100, "step": 0.5})
    assert slider["step"] == 0.5 and scales.scale_points(slider) is None


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"kind": "likert"}, "scale.kind"),
        ({"kind": "acr5", "min": 0}, "scale.min"),
        ({"kind": "discrete", "min": 3, "max": 3}, "scale.max"),
        ({"kind": "discrete", "min": 0, "max": 11}, "scale.max"),  # 12 points
        ({"kind": "discrete", "min": 0.5, "max": 6}, "scale.min"),
        ({"kind": "discrete", "min": 0, "max": 6, "step": 2}, "scale.step"),
        ({"kind": "continuous", "min": 0, "max": float("inf")}, "scale.max"),
        ({"kind": "continuous", "min": 0, "max": 10, "step": 0}, "scale.step"),
        ({"kind": "continuous", "min": "0", "max": 10}, "scale.min"),
        ({"kind": "acr5", "colour": "red"}, "scale.colour"),
        ({"kind": "acr5", "labels": []}, "scale.labels"),
        (
            {"kind": "discrete", "labels": [{"value": 9, "text": {"en": "a", "de": "b"}}]},
            "scale.labels[0].value",
        ),
        (
            {"kind": "discrete", "labels": [{"value": 1, "text": {"en": "a"}}]},
            "scale.labels[0].text.de",
        ),
        ("acr5", "scale"),
    ],
)
def test_a_bad_scale_names_its_field(raw: Any, field: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(field)}"):
        scales.parse_scale(raw)


def test_values_on_each_kind() -> None:
    acr = scales.default_scale("acr5")
    assert scales.is_valid_value(acr, 5) and scales.is_valid_value(acr, 3.0)
    assert not scales.is_valid_value(acr, 3.5) and not scales.is_valid_value(acr, 0)
    assert not scales.is_valid_value(acr, True) and not scales.is_valid_value(acr, "3")
    slider = scales.default_scale("continuous")
    assert scales.is_valid_value(slider, 6.25) and not scales.is_valid_value(slider, 7.01)
    assert not scales.is_valid_value(slider, float("nan"))
    with pytest.raises(ValueError, match=r"^input_quality: 8 is not a number from 1 to 7"):
        scales.validate_value(slider, 8, "input_quality")
    scales.validate_value(scales.default_scale("binary"), 1, "acceptance")


def test_cut_points_generalise_p800_good_and_poor() -> None:
    acr = scales.default_scale("acr5")
    assert (scales.gob_cut(acr), scales.pow_cut(acr), scales.midpoint(acr)) == (4.0, 2.0, 3.0)
    seven = scales.default_scale("continuous")
    assert (scales.gob_cut(seven), scales.pow_cut(seven)) == (5.5, 2.5)
    zero_six = scales.parse_scale({"kind": "discrete", "min": 0, "max": 6})
    assert (scales.gob_cut(zero_six), scales.pow_cut(zero_six)) == (4.5, 1.5)


def test_default_acceptable_cut_per_scale() -> None:
    assert scales.acceptable_cut() == 3 == scales.acceptable_cut(scales.default_scale("acr5"))
    assert scales.acceptable_cut(scales.default_scale("continuous")) == 4
    zero_six = scales.parse_scale({"kind": "discrete", "min": 0, "max": 6})
    assert scales.acceptable_cut(zero_six) == 3
    hundred = scales.parse_scale({"kind": "continuous", "min": 0, "max": 100})
    assert scales.acceptable_cut(hundred) == 50


def test_items_keys_count_and_questions() -> None:
    items = scales.parse_items(copy.deepcopy(list(scales.GAMING_PRESET)))
    assert [i["key"] for i in items] == ["overall", "input_quality", "video_quality", "acceptance"]
    assert all(i["question"]["de"] and i["question"]["en"] for i in items)
    assert scales.primary_item(items) == "overall"
    assert scales.primary_item(items[3:]) == "acceptance"
    one = {"key": "x", "question": {"en": "Q?", "de": "F?"}, "scale": {"kind": "binary"}}
    assert scales.parse_item(one)["required"] is True
    with pytest.raises(ValueError, match=r"^items\[1\]\.key: 'x' is used twice"):
        scales.parse_items([one, one])
    with pytest.raises(ValueError, match=r"^items: expected a list of 1 to 8"):
        scales.parse_items([])
    with pytest.raises(ValueError, match=r"^items: expected a list of 1 to 8"):
        scales.parse_items([{**one, "key": f"k{i}"} for i in range(9)])
    with pytest.raises(ValueError, match=r"^item\.key"):
        scales.parse_item({**one, "key": "Overall"})
    with pytest.raises(ValueError, match=r"^item\.question\.de"):
        scales.parse_item({**one, "question": {"en": "Q?", "de": " "}})
    with pytest.raises(ValueError, match=r"^item\.required"):
        scales.parse_item({**one, "required": "yes"})


def test_acceptance_rule() -> None:
    items = list(scales.GAMING_PRESET)
    assert scales.parse_acceptance({"item": "acceptance"}, items) == {"item": "acceptance"}
    assert scales.parse_acceptance({"item": "overall", "min": 3}, items) == {
        "item": "overall",
        "min": 3,
    }
    assert scales.parse_acceptance({"item": "video_quality", "min": 4.5}, items)["min"] == 4.5
    with pytest.raises(ValueError, match=r"^acceptance\.min: required"):
        scales.parse_acceptance({"item": "overall"}, items)
    with pytest.raises(ValueError, match=r"^acceptance\.item: 'fun'"):
        scales.parse_acceptance({"item": "fun", "min": 3}, items)
    with pytest.raises(ValueError, match=r"^acceptance\.min: 6"):
        scales.parse_acceptance({"item": "overall", "min": 6}, items)
    with pytest.raises(ValueError, match=r"^acceptance\.min: 1 "):
        scales.parse_acceptance({"item": "overall", "min": 1}, items)


def test_sidecar_round_trip_and_defaults() -> None:
    sidecar = scales.parse_sidecar(_sidecar())
    assert sidecar.keys == ("overall", "input_quality", "video_quality", "acceptance")
    assert sidecar.min_response_ms == 800
    assert scales.parse_sidecar(sidecar.to_dict()) == sidecar
    bare = scales.parse_sidecar({"items": [{**scales.GAMING_PRESET[1]}]})
    assert bare.acceptance == {"item": "input_quality", "min": 4}
    assert bare.min_response_ms == scales.DEFAULT_MIN_RESPONSE_MS
    assert scales.parse_sidecar({"items": list(scales.GAMING_PRESET)}).acceptance == {
        "item": "acceptance"
    }
    default = scales.default_sidecar()
    assert default.keys == ("overall",) and default.acceptance == {"item": "overall", "min": 3}


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ([], "sidecar"),
        ({"items": [], "acceptance": None}, "items"),
        (_sidecar(min_response_ms=-1), "min_response_ms"),
        (_sidecar(min_response_ms=1.5), "min_response_ms"),
        (_sidecar(acceptance={"item": "nope"}), "acceptance.item"),
        (_sidecar(extra=1), "extra"),
    ],
)
def test_a_bad_sidecar_names_its_field(raw: Any, field: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(field)}"):
        scales.parse_sidecar(raw)


def test_the_preset_is_not_shared_mutable_state() -> None:
    first = scales.default_sidecar()
    first.items[0]["scale"]["labels"].clear()
    assert scales.default_sidecar().items[0]["scale"]["labels"]
    assert scales.DEFAULT_ITEMS[0]["scale"]["labels"]
