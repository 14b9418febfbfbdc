"""The studies API, through HTTP and the ORM."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from qoelab.studies.models import Study


@pytest.mark.django_db
def test_list_summarises_each_study(example_study: Study) -> None:
    response = APIClient().get("/api/v1/studies/")
    assert response.status_code == 200
    assert response.json() == [
        {
            "id": example_study.pk,
            "slug": "cloud-gaming-2014",
            "title": example_study.title,
            "description": example_study.description,
            "game_count": 3,
            "scenario_count": 10,
        }
    ]


@pytest.mark.django_db
def test_detail_nests_games_and_per_direction_scenarios(example_study: Study) -> None:
    body = APIClient().get(f"/api/v1/studies/{example_study.pk}/").json()
    assert [s["code"] for s in body["scenarios"]] == [
        "B",
        "D1",
        "D2",
        "D3",
        "L1",
        "L2",
        "M1",
        "M2",
        "A1",
        "A2",
    ]
    a1 = next(s for s in body["scenarios"] if s["code"] == "A1")
    # Every field of the agent's profile but the station's queue limit, neutral unless set.
    neutral = {
        "delay_ms": 0.0,
        "jitter_ms": 0.0,
        "jitter_distribution": "normal",
        "delay_correlation_pct": 0.0,
        "loss_pct": 0.0,
        "loss_correlation_pct": 0.0,
        "gilbert_elliott": None,
        "rate_kbit": 0,
        "duplicate_pct": 0.0,
        "reorder_pct": 0.0,
        "reorder_correlation_pct": 0.0,
        "corrupt_pct": 0.0,
    }
    assert a1["upstream"] == neutral | {"delay_ms": 120.0, "loss_pct": 1.0}
    assert a1["downstream"] == neutral
    # 10 min free play + 10 scenarios × (60 s + 20 s rating allowance) = 23.3 min
    assert body["session_minutes"] == 23.3
    assert {g["pace"] for g in body["games"]} == {"fast", "medium", "slow"}


@pytest.mark.django_db
def test_unknown_study_is_404_with_a_message() -> None:
    response = APIClient().get("/api/v1/studies/999/")
    assert response.status_code == 404
    assert "detail" in response.json()
