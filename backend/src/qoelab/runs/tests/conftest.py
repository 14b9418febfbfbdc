"""Fixtures shared by the runs tests: a live session on a dry-run station."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.runs.tests.lab import Lab, fill_questionnaire
from qoelab.testing import DryRunAgent

Playing = tuple[Lab, dict[str, Any]]


@pytest.fixture
def playing(
    researcher_client: APIClient, owned_example_study: Any, dry_run_agent: DryRunAgent
) -> Playing:
    """A session on a dry-run station, playing its first scenario."""
    lab = Lab(researcher_client)
    study = owned_example_study
    station = lab.station("Seat 1", dry_run_agent.url, dry_run_agent.token)
    person = lab.participant(study.pk, "P1")
    session = lab.session(person["id"], study.games.first().pk, station["id"])
    lab.post(f"/api/v1/sessions/{session['id']}/start/")
    fill_questionnaire(lab.screen(session), session["id"])
    console = lab.post(f"/api/v1/sessions/{session['id']}/advance/")
    assert console["state"] == "playing"
    return lab, session
