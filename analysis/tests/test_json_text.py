"""json_pieces joined must be the encoder's text, byte for byte: orjson's compact text
without indent, json.dumps with it."""

from __future__ import annotations

import json
import math

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_analysis.io import compact_json, json_text
from qoe_analysis.io.json_text import OPTIONS, json_pieces

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)  # orjson's integer range
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
def test_joined_pieces_are_the_encoders_text(
    doc: dict[str, object], indent: int | None, depth: int
) -> None:
    joined = b"".join(json_pieces(doc, indent=indent, depth=depth))
    if indent is None:
        assert joined == orjson.dumps(doc, option=OPTIONS)
    else:
        assert joined == json.dumps(doc, indent=indent, allow_nan=False).encode()
    assert json.loads(joined) == json.loads(json.dumps(doc))  # one value, either form


def test_hand_case_splits_by_key_with_the_separators_of_each_form() -> None:
    doc = {"a": {"b": [1, 2], "é": None}, "c": 1.5, "d": 1e-05}
    assert list(json_pieces(doc)) == [
        b"{",
        b'"a":',
        b"{",
        b'"b":',
        b"[1,2]",
        b',"\xc3\xa9":',
        b"null",
        b"}",
        b',"c":',
        b"1.5",
        b',"d":',
        b"0.00001",
        b"}",
    ]
    assert (
        b"".join(json_pieces(doc, indent=2))
        == b'{\n  "a": {\n    "b": [\n      1,\n      2\n    ],\n'
        b'    "\\u00e9": null\n  },\n  "c": 1.5,\n  "d": 1e-05\n}'
    )


def test_numpy_values_are_numbers_and_lists() -> None:
    doc = {"x": {"n": np.int64(3), "v": np.float64(0.25), "a": np.array([1.5, 2.0])}}
    assert b"".join(json_pieces(doc)) == b'{"x":{"n":3,"v":0.25,"a":[1.5,2.0]}}'


def test_non_string_keys_are_left_to_the_encoder() -> None:
    doc = {"x": {1: True, None: 2.0}}
    assert b"".join(json_pieces(doc)) == b'{"x":{"1":true,"null":2.0}}'
    assert b"".join(json_pieces(doc, indent=0)) == json.dumps(doc, indent=0).encode()


keys = st.text(max_size=4) | st.integers(-3, 3) | st.none() | st.booleans()
mixed_documents = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(doc=st.dictionaries(st.text(max_size=6), mixed_documents, max_size=5))
def test_compact_text_with_keys_of_any_type_is_the_encoders(doc: dict[str, object]) -> None:
    # non-str keys deep inside a piece are spelled by orjson, as in the whole text
    assert b"".join(json_pieces(doc)) == orjson.dumps(doc, option=OPTIONS)


def test_a_str_subclass_key_and_a_deep_value_with_other_keys() -> None:
    class Key(str):
        pass

    deep: object = {1: "x"}
    for _ in range(300):
        deep = [deep]
    doc = {"a": {Key("k"): np.str_("v")}, "b": {"c": deep}}
    joined = b"".join(json_pieces(doc))
    assert joined.startswith(b'{"a":{"k":"v"},"b":{"c":[[[')
    assert json.loads(joined)["b"]["c"] == json.loads(json.dumps(deep))


def test_a_value_deeper_than_orjson_allows_is_still_encoded() -> None:
    deep: list[object] = [1.5]
    for _ in range(300):  # orjson refuses more than 254 levels
        deep = [deep, "é"]
    doc = {"tree": {"root": deep}, "n": 1}
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(deep)
    joined = b"".join(json_pieces(doc))
    assert json.loads(joined) == doc
    # compact and UTF-8, as orjson writes the rest
    assert joined.startswith(b'{"tree":{"root":[[[') and b'"\\u00e9"' not in joined


def test_an_integer_beyond_64_bits_is_still_encoded() -> None:
    doc = {"a": {"big": 2**70, "x": [1.5]}}
    with pytest.raises(orjson.JSONEncodeError):
        orjson.dumps(2**70)
    assert b"".join(json_pieces(doc)) == b'{"a":{"big":1180591620717411303424,"x":[1.5]}}'


def test_a_value_no_encoder_takes_is_refused() -> None:
    with pytest.raises(TypeError):
        b"".join(json_pieces({"a": {"b": object()}}))


def test_non_finite_float_is_refused_with_indent_and_null_without() -> None:
    with pytest.raises(ValueError):
        b"".join(json_pieces({"a": {"b": math.nan}}, indent=2))
    assert b"".join(json_pieces({"a": {"b": math.nan}})) == b'{"a":{"b":null}}'


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
    real_dumps, real_orjson = json.dumps, orjson.dumps

    def counting(value: object, **kwargs: object) -> str:
        if value is rows:
            calls.append(1)
        return real_dumps(value, **kwargs)  # type: ignore[arg-type]

    def counting_orjson(value: object, **kwargs: object) -> bytes:
        if value is rows:
            calls.append(1)
        return real_orjson(value, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_text.json, "dumps", counting)
        patch.setattr(compact_json.orjson, "dumps", counting_orjson)
        text = b"".join(json_pieces(doc, indent=indent))
    if indent is None:
        assert text == orjson.dumps(doc, option=OPTIONS)
    else:
        assert text == json.dumps(doc, indent=indent, allow_nan=False).encode()
    # without indent one text serves all three places; with it, one per level (1, 2 and 4)
    assert len(calls) == (1 if indent is None else 3)
