"""A dataset the descriptor does not fit is refused with every problem listed at once, and
nothing is written (issue 32, acceptance: a descriptor naming a missing column, giving two
roles to one column, an unknown unit, a scale the ratings fall outside of)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import override_settings
from rest_framework.test import APIClient

from qoelab.datasets.models import DatasetJob, StudyDataset
from qoelab.datasets.tests.helpers import (
    descriptor,
    imported_job,
    p809_files,
    post_import,
    upload,
)
from qoelab.runs.tests.db_snapshot import snapshot

pytestmark = pytest.mark.django_db


def rows() -> dict[str, Any]:
    """Every row of QoE Lab's tables and the dataset imports' (to compare before/after)."""
    return {
        **snapshot(),
        "jobs": list(DatasetJob.objects.values("id", "state", "study")),
        "datasets": StudyDataset.objects.count(),
    }


def refused(client: APIClient, raw: Any, files: list[Any], data_dir: Path) -> dict[str, Any]:
    """POST the import: 400 with problems, and nothing written or kept."""
    before = rows()
    response = post_import(client, raw, files)
    assert response.status_code == 400, response.content
    assert rows() == before, "the database changed"
    assert not data_dir.exists() or list(data_dir.iterdir()) == [], "a file was kept"
    body: dict[str, Any] = response.json()
    assert set(body) == {"detail", "problems", "more"}
    return body


def field(raw: dict[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = next(f for f in raw["schema"]["fields"] if f["name"] == name)
    return found


def test_a_bad_descriptor_is_refused_with_all_its_problems(
    researcher_client: APIClient, data_dir: Path
) -> None:
    raw = descriptor()
    field(raw, "Player")["name"] = "Playr"  # a column no file has
    raw["schema"]["fields"].append({"name": "Game", "role": "questionnaire"})  # two roles
    field(raw, "UL delay [ms]")["unit"] = "furlong"  # an unknown unit
    body = refused(researcher_client, raw, p809_files(), data_dir)
    found = {(p["file"], p["column"], p["value"], p["line"]) for p in body["problems"]}
    assert ("descriptor", "UL delay [ms]", "furlong", None) in found
    assert ("descriptor", "Game", None, None) in found
    for name in ("wired_a.csv", "wired_b.csv", "mobile.csv"):
        assert (name, "Playr", None, 1) in found
    assert len(body["problems"]) == 5 and body["more"] == 0
    rules = {p["column"]: p["rule"] for p in body["problems"]}
    assert rules["Game"] == "one field per column: the column has roles game and questionnaire"
    assert "unit of delay_ms is one of: ms, s, us" in rules["UL delay [ms]"]
    assert body["detail"].startswith("the dataset cannot be imported: 5 problems, the first: ")


def test_ratings_off_the_scale_fail_the_job_with_each_line_and_store_nothing(
    researcher_client: APIClient, data_dir: Path
) -> None:
    raw = descriptor()
    field(raw, "QoE")["scale"] = {"min": 0, "max": 5}
    before = rows()
    job = imported_job(researcher_client, raw)
    assert job["state"] == "failed" and job["study"] is None, job
    problems = job["problems"]
    assert {p["file"] for p in problems} == {"wired_a.csv", "wired_b.csv", "mobile.csv"}
    first = problems[0]
    assert (first["file"], first["column"], first["value"]) == ("wired_a.csv", "QoE", "6")
    assert first["rule"] == "a rating of item quality is an integer from 0 to 5 (the field's scale)"
    assert first["line"] > 1 and (job["error_line"], job["error_column"]) == (first["line"], "QoE")
    # at most 10 per file and column are listed, the rest counted
    assert len(problems) == 30 and job["more"] > 0
    assert job["error"].startswith(f"the dataset cannot be imported: {30 + job['more']} problems")
    after = rows()
    assert after["jobs"][0]["state"] == "failed"
    after["jobs"], before["jobs"] = [], []
    assert after == before, "the database changed"
    assert list(data_dir.iterdir()) == []


def test_files_must_be_the_descriptors_resources(
    researcher_client: APIClient, data_dir: Path
) -> None:
    files = [upload("wired_a.csv"), upload("wired_b.csv"), upload("notes.csv", b"a,b\n1,2\n")]
    body = refused(researcher_client, descriptor(), files, data_dir)
    rules = {p["file"]: p["rule"] for p in body["problems"]}
    assert rules["mobile.csv"].startswith("no uploaded file has this name")
    assert rules["notes.csv"].startswith("no resource of the descriptor names this file")


def test_a_descriptor_that_is_not_json_is_refused(
    researcher_client: APIClient, data_dir: Path
) -> None:
    body = refused(researcher_client, '{"resources": [', p809_files(), data_dir)
    assert body["problems"][0]["rule"].startswith("the descriptor is not JSON")
    body = refused(researcher_client, None, p809_files(), data_dir)
    assert "form field 'descriptor'" in body["problems"][0]["rule"]
    body = refused(researcher_client, '{"version": NaN}', p809_files(), data_dir)
    assert body["problems"][0]["rule"] == "the descriptor is not JSON (NaN is not a JSON value)"
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcde", "bcdef", strict=True)
    )
    body = refused(researcher_client, upload("d.yaml", bomb.encode()), p809_files(), data_dir)
    assert body["problems"][0]["rule"].startswith("the descriptor is larger than 100000 values")


def test_a_file_over_the_shape_limits_is_named(
    researcher_client: APIClient, data_dir: Path
) -> None:
    wide = b"Player,Game\nP1," + b"x" * 5000 + b"\n"
    files = [upload("wired_a.csv", wide), upload("wired_b.csv"), upload("mobile.csv")]
    body = refused(researcher_client, descriptor(), files, data_dir)
    problem = body["problems"][0]
    assert (problem["file"], problem["line"], problem["column"]) == ("wired_a.csv", 2, "Game")
    assert "QOELAB_IMPORT_MAX_CELL_BYTES" in problem["rule"]


@override_settings(QOELAB_IMPORT_MAX_BYTES=50_000)
def test_files_larger_than_the_import_limit_together_are_refused(
    researcher_client: APIClient,
) -> None:
    response = post_import(researcher_client, descriptor(), p809_files())
    assert response.status_code == 413, response.content
    assert "QOELAB_IMPORT_MAX_BYTES" in response.json()["detail"]
    assert not DatasetJob.objects.exists()


@override_settings(QOELAB_MAX_IMPORTED_CONDITIONS=1000)
def test_more_conditions_than_the_imported_cap_fail_the_job(researcher_client: APIClient) -> None:
    job = imported_job(researcher_client, descriptor())
    assert job["state"] == "failed" and job["study"] is None
    assert job["problems"][0]["value"] == "1551"
    assert "at most 1000 conditions (QOELAB_MAX_IMPORTED_CONDITIONS)" in job["problems"][0]["rule"]


def test_a_yaml_descriptor_file_of_one_resource_imports(researcher_client: APIClient) -> None:
    raw = descriptor()
    raw["resources"] = [r for r in raw["resources"] if r["path"] == "mobile.csv"]
    raw["schema"]["fields"] = [f for f in raw["schema"]["fields"] if f["name"] != "CPU [%]"]
    del raw["resources"][0]["missing_fields"]
    raw["created"] = date(2024, 5, 1)  # a YAML date: kept as its text
    text = yaml.safe_dump(raw, allow_unicode=True).encode()
    response = post_import(
        researcher_client, upload("p809.yaml", text), [upload("mobile.csv")], title="Mobile part"
    )
    assert response.status_code == 202, response.content
    job = researcher_client.get(response["Location"]).json()
    assert job["state"] == "succeeded", job
    assert job["title"] == "Mobile part" and job["participants_created"] == 12
    assert DatasetJob.objects.get(pk=job["id"]).descriptor["created"] == "2024-05-01"
