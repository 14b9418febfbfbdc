"""Shared test fixtures for the backend."""

from __future__ import annotations

import pytest


@pytest.fixture
def example_study(db):  # type: ignore[no-untyped-def]
    """The example study of fixtures/studies/, loaded through the real loader."""
    from django.conf import settings
    from qoelab.studies.study_document import load_study_document, read_study_document

    document = read_study_document(settings.FIXTURES_DIR / "studies" / "cloud-gaming-2014.json")
    return load_study_document(document).study


@pytest.fixture
def dry_run_agent(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    """A real `netem-agent serve` (dry-run backend) as a subprocess; stopped afterwards."""
    from qoelab.testing import DryRunAgent

    with DryRunAgent(tmp_path_factory.mktemp("agent")) as agent:
        yield agent


@pytest.fixture
def second_dry_run_agent(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from qoelab.testing import DryRunAgent

    with DryRunAgent(tmp_path_factory.mktemp("agent2")) as agent:
        yield agent


@pytest.fixture
def researcher(db):  # type: ignore[no-untyped-def]
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user("alice", password="alice-password-1")


@pytest.fixture
def researcher_client(researcher):  # type: ignore[no-untyped-def]
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(researcher)
    return client


@pytest.fixture
def owned_example_study(researcher, example_study):  # type: ignore[no-untyped-def]
    """The example study, owned by ``researcher`` (so ``researcher_client`` may edit it)."""
    example_study.owner = researcher
    example_study.save()
    return example_study


@pytest.fixture
def tasks_in_process():  # type: ignore[no-untyped-def]
    """Celery tasks run inside the request, as in the demo (CELERY_TASK_ALWAYS_EAGER), also
    when CI points CELERY_BROKER_URL at Redis: tests of what a job does need no worker.
    The worker path itself is tested by core/tests/test_celery.py and the deploy smoke test."""
    from qoelab.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = eager
