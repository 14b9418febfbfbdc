"""Ratings imports in tests: submit a CSV, follow its job to the end."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient

from qoelab.exports.models import ImportJob
from qoelab.runs.tests.db_snapshot import snapshot
from qoelab.studies.models import Study

COUNTS = ("sessions", "ratings", "participants_created")


def post_csv(client: APIClient, study: Study, text: str) -> Any:
    return client.generic(
        "POST", f"/api/v1/studies/{study.pk}/import/", text.encode(), content_type="text/csv"
    )


def import_job(client: APIClient, study: Study, text: str, status: int = 202) -> dict[str, Any]:
    """POST the CSV (``status``: 202 new job, 200 the same file's job), then GET its job at
    the Location the answer names (in tests the task runs in-process, as in the demo)."""
    response = post_csv(client, study, text)
    assert response.status_code == status, (response.status_code, response.content)
    location = response["Location"]
    assert location == f"/api/v1/import-jobs/{response.json()['id']}/"
    job = client.get(location)
    assert job.status_code == 200, job.content
    body: dict[str, Any] = job.json()
    return body


def imported(client: APIClient, study: Study, text: str) -> dict[str, Any]:
    """Import ``text``; the job must succeed. Returns its counts."""
    job = import_job(client, study, text)
    assert job["state"] == "succeeded", job
    assert job["progress"] == 1.0 and job["rows_done"] == job["rows_total"], job
    return {key: job[key] for key in COUNTS}


def refused(client: APIClient, study: Study, text: str, *words: str) -> dict[str, Any]:
    """Import ``text``; the job must fail with ``words`` in its error, storing nothing but
    the failed job itself."""
    before = snapshot()
    job = import_job(client, study, text)
    assert job["state"] == "failed", job
    for word in words:
        assert word in job["error"], (word, job["error"])
    assert snapshot() == before, "the database changed"
    assert ImportJob.objects.get(pk=job["id"]).stored_path == "", "the upload was kept"
    return job
