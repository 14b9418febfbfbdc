"""Dataset imports in tests: the P.809-like fixture, a POST of its files, its job."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

P809 = Path(settings.FIXTURES_DIR) / "data" / "p809_dataset"
P809_FILES = ("wired_a.csv", "wired_b.csv", "mobile.csv")


def descriptor() -> dict[str, Any]:
    """The fixture's descriptor, parsed (a test edits its copy)."""
    loaded: dict[str, Any] = json.loads((P809 / "descriptor.json").read_text())
    return loaded


def upload(name: str, content: bytes | None = None) -> SimpleUploadedFile:
    """A file of the fixture (or ``content`` under ``name``) as an upload."""
    data = (P809 / name).read_bytes() if content is None else content
    return SimpleUploadedFile(name, data, content_type="text/csv")


def post_import(
    client: APIClient,
    raw: dict[str, Any] | str | SimpleUploadedFile | None,
    files: list[SimpleUploadedFile],
    **extra: str,
) -> Any:
    """POST /datasets/import/ with the descriptor as JSON text (or a file) and ``files``."""
    form: dict[str, Any] = {"files": files, **extra}
    if isinstance(raw, dict):
        form["descriptor"] = json.dumps(raw)
    elif raw is not None:
        form["descriptor"] = raw
    return client.post("/api/v1/datasets/import/", form, format="multipart")


def p809_files() -> list[SimpleUploadedFile]:
    return [upload(name) for name in P809_FILES]


def imported_job(client: APIClient, raw: dict[str, Any], **extra: str) -> dict[str, Any]:
    """Import the fixture's files with ``raw``: 202, then GET its job at the Location."""
    response = post_import(client, raw, p809_files(), **extra)
    assert response.status_code == 202, (response.status_code, response.content)
    location = response["Location"]
    assert location == f"/api/v1/dataset-jobs/{response.json()['job']['id']}/"
    job = client.get(location)
    assert job.status_code == 200, job.content
    body: dict[str, Any] = job.json()
    return body
