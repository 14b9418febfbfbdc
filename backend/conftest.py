"""Shared test fixtures for the backend."""

from __future__ import annotations

import os

import pytest


def require(condition: bool, reason: str) -> None:
    """Skip the test when ``condition`` is false — or fail it when QOELAB_STRICT=1 (CI).

    CI must run every suite; a missing service there is an error, not a skip.
    """
    if condition:
        return
    if os.environ.get("QOELAB_STRICT") == "1":
        pytest.fail(f"required in strict mode (QOELAB_STRICT=1): {reason}")
    pytest.skip(reason)


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

    agent = DryRunAgent(tmp_path_factory.mktemp("agent")).start()
    try:
        yield agent
    finally:
        agent.stop()


@pytest.fixture
def second_dry_run_agent(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from qoelab.testing import DryRunAgent

    agent = DryRunAgent(tmp_path_factory.mktemp("agent2")).start()
    try:
        yield agent
    finally:
        agent.stop()


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
