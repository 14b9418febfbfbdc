"""A generated grid study with jitter and burst loss, run against the real (dry-run) agent.

The backend half of issue 12's acceptance: a 3 × 3 grid (downstream delay 0/100/200 ms ×
upstream loss 0/1/3 %) with 10 ms jitter each way from the design's base, plus one
scenario with Gilbert–Elliott loss. Every scenario is installed and verified by the agent
(also by the heartbeat while it plays), and the tidy CSV carries the jitter and the
burst-loss parameters the agent read back.
"""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from qoelab.runs.models import Session
from qoelab.runs.tests.lab import (
    Lab,
    answer_post_questions,
    fill_questionnaire,
    participant_view,
    rate,
)
from qoelab.testing import DryRunAgent

BURST = {"p_pct": 5.0, "r_pct": 40.0, "loss_bad_pct": 100.0, "loss_good_pct": 0.0}
DESIGN = {
    "kind": "grid",
    "factors": [
        {"key": "delay_ms", "direction": "downstream", "levels": [0, 100, 200]},
        {"key": "loss_pct", "direction": "upstream", "levels": [0, 1, 3]},
    ],
    "base": {"upstream": {"jitter_ms": 10}, "downstream": {"jitter_ms": 10}},
}


def build_study(lab: Lab) -> dict[str, Any]:
    study = lab.post("/api/v1/studies/", {"slug": "grid", "title": "Grid"}, 201)
    lab.post("/api/v1/games/", {"study": study["id"], "name": "Racer", "pace": "fast"}, 201)
    design = lab.post(f"/api/v1/studies/{study['id']}/design/", DESIGN)
    assert design["count"] == 9
    lab.post(
        "/api/v1/scenarios/",
        {
            "study": study["id"],
            "code": "G1",
            "label": "burst loss downstream",
            "upstream": {"jitter_ms": 10},
            "downstream": {"jitter_ms": 10, "gilbert_elliott": BURST},
        },
        201,
    )
    detail: dict[str, Any] = lab.researcher.get(f"/api/v1/studies/{study['id']}/").json()
    assert len(detail["scenarios"]) == 10
    return detail


@pytest.mark.slow
@pytest.mark.django_db
def test_a_grid_with_jitter_and_burst_loss_is_applied_verified_and_exported(
    researcher_client: APIClient, dry_run_agent: DryRunAgent
) -> None:
    lab = Lab(researcher_client)
    study = build_study(lab)
    station = lab.station("Seat", dry_run_agent.url, dry_run_agent.token)
    person = lab.participant(study["id"], "P1")
    session = lab.session(person["id"], study["games"][0]["id"], station["id"])
    sid = session["id"]
    lab.post(f"/api/v1/sessions/{sid}/start/")
    screen = lab.screen(session)
    fill_questionnaire(screen, sid)
    lab.post(f"/api/v1/sessions/{sid}/advance/")  # free play → first scenario
    for position in range(1, 11):
        console = researcher_client.get(f"/api/v1/sessions/{sid}/").json()
        assert console["state"] == "playing", console
        code = console["current_scenario"]["code"]
        applied = console["applied_profile"]
        assert applied["upstream"]["jitter_ms"] == applied["downstream"]["jitter_ms"] == 10.0
        if code == "G1":
            assert applied["downstream"]["gilbert_elliott"] == pytest.approx(BURST)
            # The heartbeat reads the state back mid-play: burst loss must verify too.
            overdue = timezone.now() - timedelta(seconds=11)
            Session.objects.filter(pk=sid).update(lease_renewed_at=overdue)
            assert participant_view(screen, sid)["step"] == "playing"
            row = Session.objects.get(pk=sid)
            assert row.state == "playing" and row.lease_renewed_at > overdue
        lab.post(f"/api/v1/sessions/{sid}/advance/")
        assert rate(screen, sid, 5 if code == "B" else 3, position).status_code == 201
    answer_post_questions(screen, sid)

    text = researcher_client.get(f"/api/v1/studies/{study['id']}/export/csv/").content.decode()
    rows = {row["scenario"]: row for row in csv.DictReader(io.StringIO(text))}
    assert len(rows) == 10
    for row in rows.values():
        assert float(row["ds_jitter_ms"]) == float(row["us_jitter_ms"]) == 10.0
    assert float(rows["D2L1"]["ds_delay_ms"]) == 200.0
    assert float(rows["D2L1"]["us_loss_pct"]) == pytest.approx(1.0, abs=1e-6)
    assert float(rows["G1"]["ds_ge_p_pct"]) == pytest.approx(5.0, abs=1e-6)
    assert float(rows["G1"]["ds_ge_r_pct"]) == pytest.approx(40.0, abs=1e-6)
    assert float(rows["G1"]["us_ge_p_pct"]) == 0.0 and float(rows["B"]["ds_ge_p_pct"]) == 0.0
