"""POST /datasets/describe/: the draft descriptor and every column of every file, for the
web import's column-mapping step (issue 32, item 4)."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.datasets import uploads
from qoelab.datasets.tests.helpers import P809_FILES, p809_files, upload

pytestmark = pytest.mark.django_db


def describe(client: APIClient, files: list[Any], status: int = 200) -> dict[str, Any]:
    response = client.post("/api/v1/datasets/describe/", {"files": files}, format="multipart")
    assert response.status_code == status, response.content
    body: dict[str, Any] = response.json()
    return body


def test_the_p809_files_are_drafted_column_by_column(researcher_client: APIClient) -> None:
    body = describe(researcher_client, p809_files())
    draft = body["descriptor"]
    assert [r["path"] for r in draft["resources"]] == list(P809_FILES)
    assert draft["resources"][2]["missing_fields"] == ["CPU [%]"]
    assert draft["schema"]["missingValues"] == ["", "NA"]
    columns = {(c["file"], c["name"]): c for c in body["columns"]}
    assert len(body["columns"]) == 16 + 16 + 15  # the mobile part has no CPU column
    player = columns[("wired_a.csv", "Player")]
    assert (player["type"], player["role"], player["distinct"], player["missing"]) == (
        "string",
        "rater",
        16,
        0,
    )
    qoe = columns[("mobile.csv", "QoE")]
    assert (qoe["type"], qoe["role"], qoe["missing"]) == ("integer", "rating", 4)
    again = columns[("wired_b.csv", "Play again")]
    assert again["role"] == "ignore" and again["why"]
    assert columns[("mobile.csv", "DL loss")]["type"] == "number"
    assert body["files"] == [
        {"file": n, "rows_read": r, "complete": True}
        for n, r in zip(P809_FILES, (838, 653, 332), strict=True)
    ]
    assert body["notes"] == ["mobile.csv has no column 'CPU [%]'"]


def test_only_a_bounded_sample_is_read(
    researcher_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(uploads, "SAMPLE_BYTES", 4096)
    body = describe(researcher_client, [upload("wired_a.csv")])
    assert body["files"][0]["complete"] is False
    assert 0 < body["files"][0]["rows_read"] < 838
    assert body["descriptor"]["resources"] == [{"path": "wired_a.csv"}]


def test_unreadable_files_are_each_named(researcher_client: APIClient) -> None:
    files = [upload("a.csv", b""), upload("b.csv", b"x,y\n\xff\xfe,1\n"), upload("wired_a.csv")]
    body = describe(researcher_client, files, status=400)
    assert [p["file"] for p in body["problems"]] == ["a.csv", "b.csv"]
    assert "the file is empty" in body["problems"][0]["rule"]
    assert "not UTF-8" in body["problems"][1]["rule"]
    assert describe(researcher_client, [], status=400)["problems"][0]["rule"].startswith("send")


def test_describe_needs_a_researcher() -> None:
    response = APIClient().post("/api/v1/datasets/describe/", {}, format="multipart")
    assert response.status_code in (401, 403)
