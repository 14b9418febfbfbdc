"""The ratings import as a background job (issue 13, finding 4): large files, the one
limit, line and column of a bad row, nothing half-written, idempotent resubmission."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from qoelab.exports.models import ImportJob
from qoelab.exports.sample_ratings import sample_csv
from qoelab.exports.tasks import run_import
from qoelab.exports.tests.import_helpers import import_job, imported, post_csv, refused
from qoelab.exports.uploads import imports_dir
from qoelab.participants.models import Participant
from qoelab.ratings.models import Rating
from qoelab.runs.models import Session
from qoelab.runs.tests.test_bad_input import rejected
from qoelab.studies.models import Study

pytestmark = pytest.mark.django_db


@pytest.fixture
def uploads(tmp_path: Path) -> Iterator[Path]:
    """QOELAB_DATA_DIR in a temporary folder; yields the imports folder."""
    with override_settings(DATA_DIR=tmp_path):
        yield imports_dir()


@pytest.mark.slow
def test_a_40000_row_file_is_a_job_that_finishes(
    researcher_client: APIClient, owned_example_study: Study, uploads: Path
) -> None:
    """Before: 40,000 rows (3.8 MB) ran inside the request into gunicorn's 60 s timeout."""
    text = sample_csv(owned_example_study, 40_000)
    job = import_job(researcher_client, owned_example_study, text)
    assert job["state"] == "succeeded", job
    assert job["rows_total"] == job["rows_done"] == 40_000
    assert job["ratings"] == 40_000 and job["sessions"] == 4000
    assert job["participants_created"] == 1334 and job["progress"] == 1.0
    assert Rating.objects.filter(session__study=owned_example_study).count() == 40_000
    assert list(uploads.iterdir()) == []  # the stored upload is gone once done


def test_with_a_broker_the_request_only_queues_the_job(
    researcher_client: APIClient, owned_example_study: Study, uploads: Path
) -> None:
    """With a broker the POST answers at once (queued, nothing written, the file kept under
    QOELAB_DATA_DIR); a worker then runs the job."""
    app = run_import.app
    eager = app.conf.task_always_eager
    broker = app.conf.broker_url
    app.conf.task_always_eager = False
    app.conf.broker_url = "memory://"
    try:
        response = post_csv(
            researcher_client, owned_example_study, sample_csv(owned_example_study, 300)
        )
    finally:
        app.conf.task_always_eager = eager
        app.conf.broker_url = broker
    assert response.status_code == 202, response.content
    queued = response.json()
    assert queued["state"] == "queued" and queued["rows_done"] == 0 and queued["rows_total"] == 300
    assert not Session.objects.filter(study=owned_example_study).exists()
    assert len(list(uploads.iterdir())) == 1
    assert run_import.apply(args=(queued["id"],)).get() == "succeeded"  # the worker's part
    done = researcher_client.get(response["Location"]).json()
    assert done["state"] == "succeeded" and done["ratings"] == 300, done
    assert run_import.apply(args=(queued["id"],)).get() == "succeeded"  # delivered again: no-op
    assert Rating.objects.filter(session__study=owned_example_study).count() == 300
    assert list(uploads.iterdir()) == []


def test_a_bad_last_row_fails_the_job_with_line_and_column_and_stores_nothing(
    researcher_client: APIClient, owned_example_study: Study, uploads: Path
) -> None:
    text = sample_csv(owned_example_study, 5000)
    bad = text.rstrip("\n").rsplit("\n", 1)
    text = bad[0] + "\n" + bad[1].rsplit(",", 1)[0] + ",7\n"
    job = refused(researcher_client, owned_example_study, text, "line 5001: rating")
    assert (job["error_line"], job["error_column"]) == (5001, "rating")
    assert list(uploads.iterdir()) == []


def test_a_conflict_found_while_writing_rolls_everything_back(
    researcher_client: APIClient, owned_example_study: Study, uploads: Path
) -> None:
    """Participants and sessions are written in chunks; a conflict after them (a rater's
    age differs from the one on record) undoes every chunk."""
    Participant.objects.create(study=owned_example_study, code="S2", age=30)
    lines = sample_csv(owned_example_study, 3000).splitlines()
    text = "\n".join([lines[0] + ",age", *(line + ",40" for line in lines[1:])]) + "\n"
    job = refused(researcher_client, owned_example_study, text, "age: 40", "S2")
    assert job["error_column"] == "age"
    assert Participant.objects.filter(study=owned_example_study).count() == 1


def test_the_same_file_twice_is_one_import(
    researcher_client: APIClient, owned_example_study: Study, uploads: Path
) -> None:
    text = sample_csv(owned_example_study, 60)
    counts = imported(researcher_client, owned_example_study, text)
    first = ImportJob.objects.get()
    again = import_job(researcher_client, owned_example_study, text, status=200)
    assert again["id"] == first.pk and again["state"] == "succeeded"
    assert Rating.objects.filter(session__study=owned_example_study).count() == counts["ratings"]
    assert list(uploads.iterdir()) == []


def test_the_limit_is_enforced_before_any_job(
    researcher_client: APIClient, owned_example_study: Study, uploads: Path
) -> None:
    text = sample_csv(owned_example_study, 100)
    with override_settings(QOELAB_IMPORT_MAX_BYTES=len(text.encode()) - 1):
        response = rejected(
            lambda: post_csv(researcher_client, owned_example_study, text),
            413,
            "larger than the import limit",
        )
        big = text.encode()
        multipart = rejected(
            lambda: researcher_client.post(
                f"/api/v1/studies/{owned_example_study.pk}/import/",
                {"file": _upload(big)},
                format="multipart",
            ),
            413,
            "QOELAB_IMPORT_MAX_BYTES",
        )
    assert response["Content-Type"] == multipart["Content-Type"] == "application/json"
    with override_settings(QOELAB_IMPORT_MAX_ROWS=99):
        rejected(
            lambda: post_csv(researcher_client, owned_example_study, text),
            400,
            "more than the import limit of 99 rows",
        )
    rejected(
        lambda: researcher_client.generic(
            "POST",
            f"/api/v1/studies/{owned_example_study.pk}/import/",
            b"rater_id,game\n\xff\xfe,x\n",
            content_type="text/csv",
        ),
        400,
        "not UTF-8",
    )
    assert not ImportJob.objects.exists()
    assert list(uploads.iterdir()) == []
    # At the limit the file is accepted (multipart, as the console sends it).
    with override_settings(QOELAB_IMPORT_MAX_BYTES=len(text.encode()), QOELAB_IMPORT_MAX_ROWS=100):
        response = researcher_client.post(
            f"/api/v1/studies/{owned_example_study.pk}/import/",
            {"file": _upload(text.encode())},
            format="multipart",
        )
    assert response.status_code == 202, response.content
    assert response.json()["state"] == "succeeded" and response.json()["file_name"] == "r.csv"


def _upload(data: bytes) -> object:
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile("r.csv", data, content_type="text/csv")


def test_another_researchers_job_is_not_found(
    researcher_client: APIClient, owned_example_study: Study, uploads: Path
) -> None:
    from django.contrib.auth import get_user_model

    job = import_job(researcher_client, owned_example_study, sample_csv(owned_example_study, 10))
    other = APIClient()
    other.force_authenticate(get_user_model().objects.create_user("bob", password="bob-pass-1"))
    assert other.get(f"/api/v1/import-jobs/{job['id']}/").status_code == 404
