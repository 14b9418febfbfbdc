"""The generated JSON Schema and the stdlib validator agree: a JSON Schema validator
(``jsonschema``, a dev dependency) accepts exactly the documents whose structure
``parse_profile`` accepts, with the same messages at the same paths."""

from __future__ import annotations

from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from netem_profile import DIRECTION_FIELDS, ProfileError, json_schema, parse_profile


def schema_errors(doc: Any) -> list[tuple[str, str]]:
    """(path, message) of every leaf error of ``jsonschema``, worded as parse_profile does."""
    schema = json_schema()
    validator = jsonschema.validators.validator_for(schema)(schema)
    found = []
    for error in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        leaves = [error]
        if error.validator == "oneOf" and isinstance(error.instance, dict):
            # the record branch's problems, not the null branch's "is not of type 'null'"
            leaves = [e for e in error.context or [] if e.relative_schema_path[0] != 0]
        for leaf in leaves:
            message = leaf.message.replace("Additional properties are not allowed", "unknown field")
            found.append((".".join(map(str, leaf.absolute_path)) or "(profile)", message))
    return found


def structure_errors(doc: Any) -> list[tuple[str, str]]:
    try:
        parse_profile(doc)
    except ProfileError as exc:
        # the semantic rules ("… needs delay_ms > 0") are beyond a schema: not compared
        return [(e["path"], e["message"]) for e in exc.errors if " (client→" not in e["message"]
                and " (server→" not in e["message"]]  # fmt: skip
    return []


def test_the_schema_is_valid_draft_2020_12_with_every_registry_field() -> None:
    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    direction = schema["$defs"]["direction"]["properties"]
    assert list(direction) == [spec.name for spec in DIRECTION_FIELDS]
    assert direction["delay_ms"]["x-unit"] == "ms" and direction["delay_ms"]["maximum"] == 60000
    assert json_schema() is not json_schema()  # a caller may not change another's copy


@pytest.mark.parametrize(
    "doc",
    [
        {"upstream": {"delay_ms": 10, "bandwidth": 1, "x": 2}},
        {"sideways": {}, "upstream": 3},
        {"upstream": {"loss_pct": 150, "rate_kbit": -1}, "downstream": {"delay_ms": -1}},
        {"upstream": {"delay_ms": "80", "loss_pct": True, "rate_kbit": 1.5}},
        {"upstream": {"rate_kbit": 2.0, "queue_limit_packets": 0}},
        {"upstream": {"jitter_distribution": "uniform"}},
        {"upstream": {"gilbert_elliott": {"p_pct": 1, "h": 2, "loss_bad_pct": 101}}},
        {"upstream": {"gilbert_elliott": 5}},
        {"downstream": {"gilbert_elliott": None, "corrupt_pct": 100}},
    ],
)
def test_same_errors_as_a_json_schema_validator(doc: dict[str, Any]) -> None:
    assert structure_errors(doc) == schema_errors(doc)


JSON_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 200),
    st.floats(-5, 200, allow_nan=False),
    st.sampled_from(["normal", "pareto", "uniform", "80"]),
)
GILBERT = st.one_of(
    JSON_VALUES,
    st.dictionaries(st.sampled_from(["p_pct", "r_pct", "loss_bad_pct", "h"]), JSON_VALUES),
)
DIRECTION = st.dictionaries(
    st.sampled_from([*(spec.name for spec in DIRECTION_FIELDS), "bandwidth"]),
    JSON_VALUES,
).flatmap(
    lambda d: GILBERT.map(lambda g: {**d, "gilbert_elliott": g} if "gilbert_elliott" in d else d)
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["upstream", "downstream", "sideways"]), DIRECTION))
def test_same_verdict_as_a_json_schema_validator_on_any_document(doc: dict[str, Any]) -> None:
    assert structure_errors(doc) == schema_errors(doc)
