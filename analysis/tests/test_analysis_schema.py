"""The analysis document against its JSON Schema (qoe_analysis.schema): documents of several
inputs validate, an unlisted key fails, the checked-in schema is the generated one."""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from qoe_analysis import analyze, load_ratings
from qoe_analysis.scales import parse_sidecar
from qoe_analysis.schema.export import OPEN_OBJECTS, document_schema

DATA = Path(__file__).resolve().parents[2] / "fixtures" / "data"


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = document_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def documents(study_doc: dict[str, Any]) -> dict[str, Any]:
    sidecar = parse_sidecar(json.loads((DATA / "scale_0_6.items.json").read_text()))
    return {
        "example": study_doc,
        "scale_0_6": analyze(load_ratings(DATA / "scale_0_6.csv", sidecar=sidecar)),
        "grid_jitter_burst": analyze(load_ratings(DATA / "grid_jitter_burst.csv")),
    }


def errors(validator: jsonschema.Draft202012Validator, doc: Any) -> list[str]:
    # through JSON: the document as the frontend receives it
    plain = json.loads(json.dumps(doc))
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(plain)]


@pytest.mark.parametrize("name", ["example", "scale_0_6", "grid_jitter_burst"])
def test_documents_match_the_schema(
    validator: jsonschema.Draft202012Validator, documents: dict[str, Any], name: str
) -> None:
    assert errors(validator, documents[name]) == []


@pytest.mark.parametrize(
    "path",
    [
        (),
        ("meta",),
        ("reliability", "screening", "p913"),
        ("mos_by_factor", "single", 0, "points", 0),
        ("per_item", "overall", "gob_pow"),
        ("conditions", 0, "distribution"),
    ],
)
def test_an_unlisted_key_fails(
    validator: jsonschema.Draft202012Validator, documents: dict[str, Any], path: tuple[Any, ...]
) -> None:
    doc = copy.deepcopy(documents["example"])
    node = doc
    for key in path:
        node = node[key]
    node["unlisted_key"] = [] if path[-1:] == ("distribution",) else "x"
    assert errors(validator, doc)


def test_a_missing_section_fails(
    validator: jsonschema.Draft202012Validator, documents: dict[str, Any]
) -> None:
    doc = dict(documents["scale_0_6"])
    del doc["mos_by_factor"]
    assert any("mos_by_factor" in e for e in errors(validator, doc))


def test_objects_are_closed_except_the_open_ones() -> None:
    definitions = document_schema()["$defs"]
    open_ = []

    def walk(node: Any, name: str) -> None:
        if isinstance(node, dict):
            if "properties" in node and node.get("additionalProperties") is not False:
                open_.append(name)
            for key, value in node.items():
                walk(value, key if key in definitions else name)
        elif isinstance(node, list):
            for value in node:
                walk(value, name)

    walk(definitions, "")
    assert sorted(open_) == sorted(OPEN_OBJECTS)


def test_the_checked_in_schema_is_the_generated_one() -> None:
    text = (
        resources.files("qoe_analysis.schema")
        .joinpath("analysis-document.schema.json")
        .read_text(encoding="utf-8")
    )
    assert json.loads(text) == document_schema()
