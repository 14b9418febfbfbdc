"""json_pieces joined must be json.dumps, byte for byte."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_analysis import json_text
from qoe_analysis.json_text import json_pieces

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
documents = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(
    doc=st.dictionaries(st.text(max_size=6), documents, max_size=5),
    indent=st.none() | st.integers(min_value=0, max_value=4),
    depth=st.integers(min_value=0, max_value=4),
)
def test_joined_pieces_are_json_dumps(
    doc: dict[str, object], indent: int | None, depth: int
) -> None:
    assert "".join(json_pieces(doc, indent=indent, depth=depth)) == json.dumps(
        doc, indent=indent, allow_nan=False
    )


def test_hand_case_splits_by_key_with_the_separators_of_dumps() -> None:
    doc = {"a": {"b": [1, 2], "é": None}, "c": 1.5}
    assert list(json_pieces(doc)) == [
        "{",
        '"a": ',
        "{",
        '"b": ',
        "[1, 2]",
        ', "\\u00e9": ',
        "null",
        "}",
        ', "c": ',
        "1.5",
        "}",
    ]
    assert (
        "".join(json_pieces(doc, indent=2))
        == '{\n  "a": {\n    "b": [\n      1,\n      2\n    ],\n'
        '    "\\u00e9": null\n  },\n  "c": 1.5\n}'
    )


def test_non_string_keys_are_left_to_json() -> None:
    doc = {"x": {1: True, None: 2.0}}
    assert "".join(json_pieces(doc)) == json.dumps(doc) == '{"x": {"1": true, "null": 2.0}}'


def test_non_finite_float_is_refused_like_dumps() -> None:
    with pytest.raises(ValueError):
        "".join(json_pieces({"a": {"b": math.nan}}))


@pytest.mark.parametrize("indent", [None, 0, 2])
def test_a_list_shown_twice_is_encoded_once_and_equal(indent: int | None) -> None:
    # the report shows the primary item's subject-model tables at two places: one list
    rows = [{"rater_id": f"r{i}", "bias": i / 7, "ok": i % 2 == 0} for i in range(150)]
    short = [1, 2, 3]
    doc = {
        "subject_model": {"raters": rows, "short": short},
        "per_item": {"overall": {"subject_model": {"raters": rows, "short": short}}},
        "again": rows,
    }
    calls: list[int] = []
    real_dumps = json.dumps

    def counting(value: object, **kwargs: object) -> str:
        if value is rows:
            calls.append(1)
        return real_dumps(value, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_text.json, "dumps", counting)
        text = "".join(json_pieces(doc, indent=indent))
    assert text == json.dumps(doc, indent=indent, allow_nan=False)
    # without indent one text serves all three places; with it, one per level (1, 2 and 4)
    assert len(calls) == (1 if indent is None else 3)
