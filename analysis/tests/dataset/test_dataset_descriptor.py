"""The dataset descriptor's rules (qoe_analysis.dataset.descriptor, fields, units): every
problem of a descriptor is reported at once, each naming the field and the rule."""

from __future__ import annotations

from typing import Any

import pytest
from qoe_analysis.dataset.descriptor import parse_descriptor
from qoe_analysis.dataset.problems import MOST_PER_COLUMN, MOST_SHOWN, DatasetError, Problem
from qoe_analysis.dataset.units import conversion, factor_named

from .conftest import small_descriptor


def problems_of(raw: Any) -> list[str]:
    with pytest.raises(DatasetError) as caught:
        parse_descriptor(raw, "d.json")
    return caught.value.lines()


def field(raw: dict[str, Any], name: str) -> dict[str, Any]:
    return next(f for f in raw["schema"]["fields"] if f["name"] == name)


def test_a_good_descriptor_parses_to_fields_and_a_sidecar() -> None:
    spec = parse_descriptor(small_descriptor())
    assert [f.role for f in spec.fields] == ["rater", "game", "rating", "factor"]
    delay = spec.one("factor")
    assert delay is not None and delay.columns == ("ds_delay_ms", "us_delay_ms")
    assert spec.missing_values == {"", "NA"}
    sidecar = spec.sidecar()
    assert sidecar["items"][0]["key"] == "qoe"  # the column's name as a key
    assert sidecar["items"][0]["scale"]["kind"] == "discrete"
    assert sidecar["acceptance"] == {"item": "qoe", "min": 4.0}


def test_every_problem_of_a_descriptor_is_listed_together() -> None:
    raw = small_descriptor()
    raw["schema"]["fields"].append({"name": "Game", "role": "questionnaire"})  # two roles
    field(raw, "Delay")["unit"] = "furlong"
    raw["schema"]["fields"].append({"name": "Loss", "role": "factor", "factor": "lost",
                                    "direction": "sideways"})  # fmt: skip
    raw["schema"]["fields"].append({"name": "Mood", "role": "mood"})
    raw["resources"][0]["namespace"] = "has space"
    raw["colour"] = "blue"
    lines = problems_of(raw)
    text = "\n".join(lines)
    assert (
        "column 'Game': one field per column: the column has roles game and questionnaire" in text
    )
    assert "column 'Delay', value 'furlong': unit of delay_ms is one of: ms, s, us" in text
    assert "value 'lost': factor is one of the registry's: delay, jitter" in text
    assert "value 'sideways': direction is one of downstream, upstream, both" in text
    assert "value 'mood': role is one of rater, session, game" in text
    assert "value 'has space': resources[0].namespace is 1-20 letters" in text
    assert "value 'colour': not a descriptor property" in text
    assert len(lines) == 7 and all(line.startswith("d.json") for line in lines)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda r: r["schema"]["fields"].pop(0), "exactly one rater field (found 0)"),
        (lambda r: r["schema"]["fields"].pop(3), "at least one factor field"),
        (lambda r: field(r, "QoE").pop("scale"), "a rating field gives its scale"),
        (lambda r: field(r, "QoE").update(acceptable_from=0), "acceptance.min: 0 must be a value"),
        (
            lambda r: field(r, "QoE").update(type="string"),
            "a rating field has type integer or number",
        ),
        (lambda r: field(r, "QoE").update(unit="ms"), "only a factor field has unit"),
        (
            lambda r: field(r, "Player").update(constraints={"pattern": "x"}),
            "constraint not supported",
        ),
        (lambda r: r.update(game_paces={"Racing": "warp"}), "game_paces maps each game to one of"),
        (lambda r: r.update(profile="tabular-data-package"), "profile is qoe-lab-dataset"),
        (lambda r: r["resources"].append({"path": "a.csv"}), "two resources name this file"),
        (lambda r: r["resources"][0].update(context={"Game": "x"}), "a context key may not be"),
        (lambda r: r["resources"][0].update(missing_fields=["QoE"]), "missing_fields names"),
        (lambda r: r["schema"].update(foreignKeys=[]), "not a schema property"),
    ],
)
def test_a_broken_rule_is_named(change: Any, expected: str) -> None:
    raw = small_descriptor()
    change(raw)
    assert any(expected in line for line in problems_of(raw)), problems_of(raw)


def test_two_rating_fields_take_one_acceptance_and_distinct_items() -> None:
    raw = small_descriptor()
    raw["schema"]["fields"].append(
        {"name": "Video", "type": "number", "role": "rating", "item": "qoe",
         "scale": {"min": 1, "max": 7}, "acceptable_from": 4}
    )  # fmt: skip
    text = "\n".join(problems_of(raw))
    assert "two rating fields have this item key" in text
    assert "acceptable_from is given on one rating field only" in text


def test_two_fields_may_not_set_one_factor_column() -> None:
    raw = small_descriptor()
    raw["schema"]["fields"].append(
        {"name": "DL delay", "role": "factor", "factor": "delay_ms", "direction": "downstream"}
    )
    assert any("ds_delay_ms is also set by field 'Delay'" in p for p in problems_of(raw))


def test_factor_names_and_units_follow_the_registry() -> None:
    delay, loss, rate = factor_named("delay"), factor_named("loss_pct"), factor_named("rate")
    assert delay is not None and loss is not None and rate is not None
    assert delay.key == "delay_ms" and loss.key == "loss_pct" and rate.key == "rate_kbit"
    assert factor_named("delay_ms") is delay and factor_named("latency") is None
    assert conversion(delay, "s") == 1000.0 and conversion(delay, "us") == 0.001
    assert conversion(loss, "fraction") == 100.0 and conversion(loss, "%") == 1.0
    assert conversion(rate, "Mbit/s") == 1000.0 and conversion(delay, "%") is None
    nominal = factor_named("jitter_distribution")
    assert nominal is not None and conversion(nominal, None) == 1.0


def test_scale_labels_take_a_text_per_value() -> None:
    raw = small_descriptor()
    field(raw, "QoE")["scale"]["labels"] = {
        "0": "bad",
        "6": {"en": "excellent", "de": "ausgezeichnet"},
    }
    scale = parse_descriptor(raw).sidecar()["items"][0]["scale"]
    assert scale["labels"] == [
        {"value": 0, "text": {"en": "bad", "de": "bad"}},
        {"value": 6, "text": {"en": "excellent", "de": "ausgezeichnet"}},
    ]


def test_problem_texts_quote_values_and_the_list_is_capped() -> None:
    problem = Problem("a.csv", 12, "QoE", "7", "a rating is an integer from 0 to 6")
    assert (
        problem.text()
        == "a.csv, line 12, column 'QoE', value '7': a rating is an integer from 0 to 6"
    )
    many = [Problem("a.csv", i + 2, "QoE", str(i), "rule") for i in range(200)]
    many += [Problem("a.csv", i + 2, "Delay", "x", "rule") for i in range(200)]
    error = DatasetError(many)
    lines = error.lines()
    assert error.headline() == "400 problems"
    assert sum("column 'QoE'" in line for line in lines) == MOST_PER_COLUMN
    assert len(lines) == 2 * MOST_PER_COLUMN + 1 and lines[-1] == "… and 380 more problems"
    assert MOST_SHOWN >= 2 * MOST_PER_COLUMN
    assert "np." not in str(error) and "(" not in lines[0]
