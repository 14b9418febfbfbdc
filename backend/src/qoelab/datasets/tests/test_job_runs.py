"""The dataset import job's runs: queued with a broker, crash-safe and bounded in time as
the other jobs (qoelab.core.background_jobs), all or nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded, TimeLimitExceeded
from django.conf import settings
from rest_framework.test import APIClient

from qoelab.celery import app
from qoelab.core.background_jobs import MAX_ATTEMPTS, JobState
from qoelab.datasets import write
from qoelab.datasets.models import DatasetJob
from qoelab.datasets.tasks import run_dataset_import
from qoelab.datasets.tests.helpers import descriptor, p809_files, post_import
from qoelab.studies.models import Study

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(researcher_client: APIClient) -> dict[str, Any]:
    """A job submitted with a broker: the POST only queues it."""
    eager, broker = app.conf.task_always_eager, app.conf.broker_url
    app.conf.task_always_eager, app.conf.broker_url = False, "memory://"
    try:
        response = post_import(researcher_client, descriptor(), p809_files())
    finally:
        app.conf.task_always_eager, app.conf.broker_url = eager, broker
    assert response.status_code == 202, response.content
    job: dict[str, Any] = response.json()["job"]
    return job


def run(job_id: int) -> str:
    result: str = run_dataset_import.apply(args=(job_id,)).get()
    return result


def test_with_a_broker_the_request_only_queues_the_job(
    researcher_client: APIClient, queued: dict[str, Any], data_dir: Path
) -> None:
    assert queued["state"] == "queued" and queued["study"] is None
    assert queued["rows_total"] == 1823 and queued["rows_done"] == 0
    assert len(list(next(data_dir.iterdir()).iterdir())) == 3  # the three files, kept
    assert not Study.objects.exists()
    assert run(queued["id"]) == "succeeded"  # the worker's part
    assert run(queued["id"]) == "succeeded"  # delivered again: a no-op
    assert Study.objects.count() == 1
    done = researcher_client.get(f"/api/v1/dataset-jobs/{queued['id']}/").json()
    assert done["state"] == "succeeded" and done["attempts"] == 1
    assert list(data_dir.iterdir()) == []


def test_a_soft_time_limit_while_writing_leaves_no_study(
    queued: dict[str, Any], monkeypatch: pytest.MonkeyPatch, data_dir: Path
) -> None:
    real = write.create_games

    def slow(*args: Any) -> Any:
        real(*args)  # the study and its games exist inside the transaction
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(write, "create_games", slow)
    assert run(queued["id"]) == "failed"
    job = DatasetJob.objects.get(pk=queued["id"])
    assert job.error.startswith(
        f"stopped after {settings.QOELAB_IMPORT_TIME_LIMIT_S:g} s: the import's time limit "
        "(QOELAB_IMPORT_TIME_LIMIT_S); nothing was stored"
    ), job.error
    assert not Study.objects.exists() and job.study is None
    assert list(data_dir.iterdir()) == []


def test_a_hard_time_limit_fails_the_job(queued: dict[str, Any]) -> None:
    DatasetJob.objects.filter(pk=queued["id"]).update(state=JobState.RUNNING, attempts=1)
    hard = run_dataset_import.time_limit
    run_dataset_import.on_failure(TimeLimitExceeded(hard), "task", (queued["id"],), {}, None)
    job = DatasetJob.objects.get(pk=queued["id"])
    assert job.state == JobState.FAILED and "its worker process was killed" in job.error


def test_a_job_that_keeps_losing_its_worker_fails(queued: dict[str, Any]) -> None:
    DatasetJob.objects.filter(pk=queued["id"]).update(state=JobState.RUNNING, attempts=MAX_ATTEMPTS)
    assert run(queued["id"]) == "failed"
    job = DatasetJob.objects.get(pk=queued["id"])
    assert job.error.startswith(f"the import was started {MAX_ATTEMPTS} times")
    assert not Study.objects.exists()


def test_a_run_overtaken_by_a_newer_attempt_writes_nothing(
    queued: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = write.create_study

    def overtaken(*args: Any, **kwargs: Any) -> Any:
        DatasetJob.objects.filter(pk=queued["id"]).update(attempts=5)  # another delivery
        return real(*args, **kwargs)

    monkeypatch.setattr(write, "create_study", overtaken)
    assert run(queued["id"]) == "superseded"
    assert not Study.objects.exists()


def test_the_task_runs_on_the_heavy_queue_within_the_import_limits() -> None:
    assert run_dataset_import.soft_time_limit == settings.QOELAB_IMPORT_TIME_LIMIT_S
    assert app.amqp.router.route({}, run_dataset_import.name, (), {})["queue"].name == "heavy"
