"""The import job is bounded (issue 34): in time, by its task's soft and hard limits, and in
deliveries, by ``MAX_ATTEMPTS``. Each ends in a failed job whose error names the bound,
nothing written and the upload removed. (Real workers and real limits: deploy/tests/
test_job_bounds.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.conf import settings
from django.test import override_settings
from rest_framework.test import APIClient

from qoelab.core.background_jobs import MAX_ATTEMPTS, JobState
from qoelab.exports import import_run
from qoelab.exports.models import ImportJob
from qoelab.exports.sample_ratings import sample_csv
from qoelab.exports.tasks import run_import
from qoelab.exports.tests.import_helpers import post_csv, refused
from qoelab.exports.uploads import imports_dir
from qoelab.ratings.models import Rating
from qoelab.studies.models import Study

pytestmark = pytest.mark.django_db


@pytest.fixture
def uploads(tmp_path: Path) -> Iterator[Path]:
    with override_settings(DATA_DIR=tmp_path):
        yield imports_dir()


@pytest.fixture
def queued(researcher_client: APIClient, owned_example_study: Study, uploads: Path) -> ImportJob:
    """A job as the web process leaves it with a broker: queued, its upload stored."""
    app = run_import.app
    eager, broker = app.conf.task_always_eager, app.conf.broker_url
    app.conf.task_always_eager, app.conf.broker_url = False, "memory://"
    try:
        response = post_csv(
            researcher_client, owned_example_study, sample_csv(owned_example_study, 50)
        )
    finally:
        app.conf.task_always_eager, app.conf.broker_url = eager, broker
    assert response.status_code == 202, response.content
    job = ImportJob.objects.get(pk=response.json()["id"])
    assert job.state == JobState.QUEUED and len(list(uploads.iterdir())) == 1
    return job


def must_not_run(*_: Any, **__: Any) -> Any:
    raise AssertionError("the work started")


def test_the_task_has_time_limits_and_runs_on_the_heavy_queue() -> None:
    soft = settings.QOELAB_IMPORT_TIME_LIMIT_S
    assert run_import.soft_time_limit == soft > 0
    assert run_import.time_limit == soft + settings.QOELAB_TASK_KILL_GRACE_S
    assert run_import.acks_late and run_import.reject_on_worker_lost
    assert run_import.acks_on_timeout is True  # a killed run's message is not delivered again
    assert run_import.app.amqp.router.route({}, run_import.name, (), {})["queue"].name == "heavy"


def test_a_soft_time_limit_fails_the_job_and_writes_nothing(
    researcher_client: APIClient,
    owned_example_study: Study,
    uploads: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_import = import_run.import_ratings

    def too_long(study: Study, lines: Any, digest: str, progress: Any, **kwargs: Any) -> Any:
        def stop_before_writing() -> None:
            raise SoftTimeLimitExceeded  # as the worker raises it, wherever the run is

        return real_import(study, lines, digest, progress, before_write=stop_before_writing)

    monkeypatch.setattr(import_run, "import_ratings", too_long)
    text = sample_csv(owned_example_study, 200)
    job = refused(researcher_client, owned_example_study, text, "stopped after")
    assert job["error"] == (
        f"stopped after {settings.QOELAB_IMPORT_TIME_LIMIT_S:g} s: the import's time limit "
        "(QOELAB_IMPORT_TIME_LIMIT_S); nothing was stored; split the file into smaller ones, "
        "or ask the lab's administrator to raise the limit"
    )
    assert job["stage"] == "failed" and job["finished_at"]
    assert list(uploads.iterdir()) == []


def test_a_hard_time_limit_fails_the_job_and_a_later_delivery_is_a_no_op(
    queued: ImportJob, uploads: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker's main process reports the kill to the task (Celery's on_timeout)."""
    ImportJob.objects.filter(pk=queued.pk).update(state=JobState.RUNNING, attempts=1)
    hard = run_import.time_limit
    run_import.on_failure(TimeLimitExceeded(hard), "task-id", (queued.pk,), {}, None)
    queued.refresh_from_db()
    assert queued.state == JobState.FAILED and queued.stored_path == ""
    assert queued.error.startswith(
        f"stopped after {hard:g} s: the import's time limit (QOELAB_IMPORT_TIME_LIMIT_S plus "
        "QOELAB_TASK_KILL_GRACE_S); its worker process was killed and nothing was stored"
    ), queued.error
    assert list(uploads.iterdir()) == []
    monkeypatch.setattr(import_run, "import_ratings", must_not_run)
    assert run_import.apply(args=(queued.pk,)).get() == JobState.FAILED
    assert ImportJob.objects.get(pk=queued.pk).error == queued.error


def test_a_soft_limit_that_escapes_the_run_still_fails_the_job(queued: ImportJob) -> None:
    """E.g. raised while the run was already recording another failure."""
    run_import.on_failure(SoftTimeLimitExceeded(), "task-id", (queued.pk,), {}, None)
    queued.refresh_from_db()
    assert queued.state == JobState.FAILED and "the import's time limit" in queued.error


def test_a_job_delivered_again_at_the_bound_fails_without_starting_its_work(
    queued: ImportJob, uploads: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A poison file whose worker was lost MAX_ATTEMPTS times leaves the queue for good."""
    monkeypatch.setattr(import_run, "import_ratings", must_not_run)
    monkeypatch.setattr(import_run, "open_upload", must_not_run)
    ImportJob.objects.filter(pk=queued.pk).update(
        state=JobState.RUNNING, attempts=MAX_ATTEMPTS, worker="lost@host", stage="checking rows"
    )
    assert run_import.apply(args=(queued.pk,)).get() == JobState.FAILED
    job = ImportJob.objects.get(pk=queued.pk)
    assert job.state == JobState.FAILED and job.attempts == MAX_ATTEMPTS
    assert job.worker == "lost@host"  # not claimed: no new attempt started
    assert job.error.startswith(f"the import was started {MAX_ATTEMPTS} times"), job.error
    assert job.stored_path == "" and list(uploads.iterdir()) == []
    assert run_import.apply(args=(queued.pk,)).get() == JobState.FAILED  # again: a no-op
    assert ImportJob.objects.get(pk=queued.pk).finished_at == job.finished_at
    assert not Rating.objects.exists()


def test_below_the_bound_a_lost_job_runs_again(queued: ImportJob) -> None:
    ImportJob.objects.filter(pk=queued.pk).update(
        state=JobState.RUNNING, attempts=MAX_ATTEMPTS - 1, worker="lost@host"
    )
    assert run_import.apply(args=(queued.pk,)).get() == JobState.SUCCEEDED
    job = ImportJob.objects.get(pk=queued.pk)
    assert job.attempts == MAX_ATTEMPTS and job.worker == "in-process" and job.ratings == 50
