"""Issue 35, "Console labels wrong for this study": a paused session says the phase it was in
(not the one it resumes to), and an aborted session shows no current scenario."""

from __future__ import annotations

import pytest

from qoelab.runs.tests.conftest import Playing
from qoelab.testing import DryRunAgent

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def test_a_scenario_paused_while_playing_is_paused_from_playing_and_replayed(
    playing: Playing, dry_run_agent: DryRunAgent
) -> None:
    lab, session = playing
    sid = session["id"]
    console = lab.post(f"/api/v1/sessions/{sid}/pause/", {"reason": "a break"})
    assert console["state"] == "paused" and console["paused_from"] == "playing"
    # the interrupted scenario is applied again (verified) and replayed from its start
    console = lab.post(f"/api/v1/sessions/{sid}/resume/")
    assert console["state"] == "playing" and console["position"] == 1
    assert console["paused_from"] == "" and console["applied_profile"] is not None
    assert dry_run_agent.request("GET", "/v1/profile")["applied"] is True


def test_a_rating_paused_is_paused_from_rating(playing: Playing) -> None:
    lab, session = playing
    sid = session["id"]
    assert lab.post(f"/api/v1/sessions/{sid}/advance/")["state"] == "rating"
    console = lab.post(f"/api/v1/sessions/{sid}/pause/")
    assert console["paused_from"] == "rating"
    assert lab.post(f"/api/v1/sessions/{sid}/resume/")["state"] == "rating"


def test_an_aborted_session_shows_no_current_scenario(playing: Playing) -> None:
    lab, session = playing
    sid = session["id"]
    before = lab.researcher.get(f"/api/v1/sessions/{sid}/").json()
    assert before["current_scenario"] is not None  # a playing session shows its scenario
    console = lab.post(f"/api/v1/sessions/{sid}/abort/", {"reason": "test"})
    assert console["state"] == "aborted" and console["current_scenario"] is None
