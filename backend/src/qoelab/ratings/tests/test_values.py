"""A rating's values against the study's items (the scale rules of qoe_analysis.scales)."""

from __future__ import annotations

from typing import Any

import pytest

from qoelab.ratings.values import ItemError, asked_items, clean_values, is_single_overall
from qoelab.studies.rating_items import GAMING_PRESET, default_rating_items

DCR = {
    "key": "dcr",
    "question": {"en": "?", "de": "?"},
    "scale": {"kind": "dcr5", "min": 1, "max": 5, "step": 1, "labels": []},
    "required": True,
}
ITEMS: list[dict[str, Any]] = [*GAMING_PRESET, DCR]
GOOD = {"overall": 4.0, "input_quality": 3, "video_quality": 6.5, "acceptance": 1, "dcr": 2}


def test_values_are_normalised_in_item_order() -> None:
    cleaned = clean_values(ITEMS, dict(reversed(list(GOOD.items()))))
    assert list(cleaned) == ["overall", "input_quality", "video_quality", "acceptance", "dcr"]
    assert cleaned == {**GOOD, "overall": 4, "input_quality": 3.0}
    assert isinstance(cleaned["overall"], int) and isinstance(cleaned["input_quality"], float)


@pytest.mark.parametrize(
    ("values", "item"),
    [
        ({**GOOD, "input_quality": 7.01}, "input_quality"),
        ({**GOOD, "acceptance": 2}, "acceptance"),
        ({**GOOD, "overall": 4.5}, "overall"),
        ({**GOOD, "overall": True}, "overall"),
        ({key: v for key, v in GOOD.items() if key != "video_quality"}, "video_quality"),
        ({**GOOD, "extra": 1}, "extra"),
    ],
)
def test_a_bad_value_names_its_item(values: dict[str, Any], item: str) -> None:
    with pytest.raises(ItemError) as caught:
        clean_values(ITEMS, values)
    assert caught.value.item == item and str(caught.value).startswith(f"{item}: ")


def test_dcr_needs_a_rated_baseline() -> None:
    without = {key: v for key, v in GOOD.items() if key != "dcr"}
    with pytest.raises(ItemError, match="baseline") as caught:
        clean_values(ITEMS, GOOD, baseline_rated=False)
    assert caught.value.item == "dcr"
    assert clean_values(ITEMS, without, baseline_rated=False) == {**without, "overall": 4}
    assert [i["key"] for i in asked_items(ITEMS, baseline_rated=False)] == list(without)
    with pytest.raises(ItemError, match="required"):
        clean_values(ITEMS, without, baseline_rated=True)


def test_single_overall() -> None:
    assert is_single_overall(default_rating_items())
    assert not is_single_overall(GAMING_PRESET)
