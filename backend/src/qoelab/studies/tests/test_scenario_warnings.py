"""The scenario API stores jitter on 0 ms delay but answers a warning (issue 35, item 1):
netem clips such jitter to one side. Before the warning the answer said nothing."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from qoelab.studies.models import Study
from qoelab.studies.scenario_warnings import profile_warnings


def test_only_jitter_on_zero_delay_is_warned_about() -> None:
    assert profile_warnings("downstream", {"delay_ms": 0.0, "jitter_ms": 0.0}) == []
    assert profile_warnings("downstream", {"delay_ms": 20.0, "jitter_ms": 30.0}) == []
    [warning] = profile_warnings("upstream", {"delay_ms": 0.0, "jitter_ms": 10.0})
    assert warning["code"] == "jitter_without_delay"
    assert warning["where"] == "upstream.jitter_ms"
    assert warning["message"].startswith("upstream: jitter 10 ms on 0 ms delay;")


@pytest.mark.django_db
def test_the_scenario_api_answers_the_warning_and_stores_the_scenario(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    body = {
        "study": owned_example_study.pk,
        "code": "J1",
        "downstream": {"delay_ms": 0, "jitter_ms": 15},
        "upstream": {"delay_ms": 40, "jitter_ms": 15},
    }
    response = researcher_client.post("/api/v1/scenarios/", body, format="json")
    assert response.status_code == 201, response.content
    created = response.json()
    assert [(w["code"], w["where"]) for w in created["warnings"]] == [
        ("jitter_without_delay", "downstream.jitter_ms")
    ]
    assert "15 ms on 0 ms delay" in created["warnings"][0]["message"]
    # Read back, and gone once the delay covers the jitter.
    url = f"/api/v1/scenarios/{created['id']}/"
    assert researcher_client.get(url).json()["warnings"] == created["warnings"]
    fixed = researcher_client.patch(url, {"downstream": {"delay_ms": 20}}, format="json")
    assert fixed.status_code == 200 and fixed.json()["warnings"] == []
