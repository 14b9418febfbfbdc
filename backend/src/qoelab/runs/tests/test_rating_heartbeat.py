"""Issue 35, "a false alarm": the lease is renewed only while a profile is applied.

A participant who stays on the rating screen while nothing renews the lease (no Celery
beat, no screen polling) lets the agent's lease run out: the agent restores the interfaces
and answers the next renewal with 409 "no profile is applied". The rating needs no
impairment, so that is no agent failure: no "Heartbeat failed" line, no more renewals,
the rating is taken and the next scenario applied. A real failure of the agent while the
profile is still applied is noted (the console's alarm), and the agent's next answer
clears it.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from qoelab.runs import services
from qoelab.runs.models import Session
from qoelab.runs.services.heartbeat import lease_renewal_due, profile_at_agent
from qoelab.runs.tests.conftest import Playing
from qoelab.runs.tests.lab import participant_view, rate
from qoelab.testing import DryRunAgent, free_port

pytestmark = [pytest.mark.slow, pytest.mark.django_db]


def _to_rating(playing: Playing) -> tuple[int, APIClient]:
    """The first scenario's time is up: the participant's poll shows the rating step."""
    lab, session = playing
    sid = session["id"]
    screen = lab.screen(session)
    Session.objects.filter(pk=sid).update(scenario_started_at=timezone.now() - timedelta(hours=1))
    assert participant_view(screen, sid)["step"] == "rating"
    return sid, screen


def _renewal_overdue(sid: int) -> None:
    """As if no poll and no beat had renewed the lease for a while."""
    Session.objects.filter(pk=sid).update(lease_renewed_at=timezone.now() - timedelta(minutes=1))


def test_a_lease_run_out_while_rating_is_no_agent_failure(
    playing: Playing, researcher_client: APIClient, dry_run_agent: DryRunAgent
) -> None:
    sid, screen = _to_rating(playing)
    # Nothing renewed the lease: the agent restored the interfaces, as a lease is meant to.
    dry_run_agent.request("DELETE", "/v1/profile")
    _renewal_overdue(sid)
    for _ in range(3):  # the console and the participant keep polling
        console = researcher_client.get(f"/api/v1/sessions/{sid}/").json()
        participant_view(screen, sid)
        _renewal_overdue(sid)
    assert console["state"] == "rating"
    row = Session.objects.get(pk=sid)
    assert "Heartbeat failed" not in row.message
    assert "lease renewal failed" not in row.message
    assert row.message.count("lease ran out while rating scenario 1") == 1, row.message
    # No profile at the agent: no renewal is due however long the rating takes.
    assert not profile_at_agent(row)
    assert not lease_renewal_due(row, timezone.now())
    # The rating keeps the verified profile of the scenario played; the next one is applied.
    assert rate(screen, sid, 4, 1).status_code == 201
    row = Session.objects.get(pk=sid)
    assert row.state == "playing" and row.current_index == 1
    assert profile_at_agent(row) and lease_renewal_due(row, timezone.now()) is False
    assert row.ratings.get().applied_profile is not None


def test_an_agent_failure_while_the_profile_is_applied_raises_the_alarm_until_it_answers(
    playing: Playing, researcher_client: APIClient, dry_run_agent: DryRunAgent
) -> None:
    sid, screen = _to_rating(playing)
    station = Session.objects.select_related("station").get(pk=sid).station
    assert station is not None
    station.agent_url = f"http://127.0.0.1:{free_port()}"  # the agent does not answer
    station.save(update_fields=["agent_url"])
    _renewal_overdue(sid)
    participant_view(screen, sid)
    participant_view(screen, sid)  # renewed (failed) just now: not tried again at once
    row = Session.objects.get(pk=sid)
    assert row.state == "rating" and profile_at_agent(row)
    lines = row.message.splitlines()
    failures = [line for line in lines if "Heartbeat failed while rating" in line]
    assert len(failures) == 1 and "scenario 1 of" in failures[0], row.message
    assert lines[-1] == failures[0]  # the console's alarm shows it

    # The agent answers again: the next renewal notes it, so the alarm clears.
    station.agent_url = dry_run_agent.url
    station.save(update_fields=["agent_url"])
    _renewal_overdue(sid)
    participant_view(screen, sid)
    row = Session.objects.get(pk=sid)
    assert row.message.splitlines()[-1].endswith("The agent answers the heartbeat again.")
    # ... once: further renewals write nothing.
    _renewal_overdue(sid)
    participant_view(screen, sid)
    assert Session.objects.get(pk=sid).message == row.message


def test_a_lease_run_out_while_playing_still_pauses_the_session(
    playing: Playing, dry_run_agent: DryRunAgent
) -> None:
    _, session = playing
    sid = session["id"]
    dry_run_agent.request("DELETE", "/v1/profile")
    _renewal_overdue(sid)
    services.tick(sid)
    row = Session.objects.get(pk=sid)
    assert row.state == "paused" and row.paused_from == "playing"
    assert "Heartbeat failed during scenario 1" in row.message
    assert "lease renewal failed" in row.message
