"""The factor catalog, every agent field on scenarios, and the design generator."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from qoelab.studies.models import Scenario, Study
from qoelab.studies.tests.study_helpers import BURST, lock, other_researcher, own

GRID = {
    "kind": "grid",
    "factors": [
        {"key": "delay_ms", "direction": "downstream", "levels": [0, 100, 200]},
        {"key": "loss_pct", "direction": "upstream", "levels": [0, 1, 3]},
    ],
    "base": {"upstream": {"jitter_ms": 10}, "downstream": {"jitter_ms": 10}},
}


# --- the catalog ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_factors_lists_the_registry_directions_and_the_maximum() -> None:
    body = APIClient().get("/api/v1/factors/").json()  # public, like a study's design
    assert set(body) == {"factors", "directions", "max_scenarios"}
    assert body["directions"] == {"downstream": "server→client", "upstream": "client→server"}
    assert body["max_scenarios"] == 100
    keys = [f["key"] for f in body["factors"]]
    assert keys[:2] == ["delay_ms", "jitter_ms"] and "ge_p_pct" in keys and len(keys) == 15
    delay = body["factors"][0]
    assert delay["unit"] == "ms" and delay["maximum"] == 60000 and delay["kpi"] == "max_delay_ms"
    assert delay["columns"] == {"downstream": "ds_delay_ms", "upstream": "us_delay_ms"}
    with override_settings(QOELAB_MAX_SCENARIOS=7):
        assert APIClient().get("/api/v1/factors/").json()["max_scenarios"] == 7


# --- scenarios with every agent field --------------------------------------------------------


@pytest.mark.django_db
def test_a_scenario_takes_every_agent_field_and_patches_keep_the_rest(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = own(researcher_client, example_study)
    downstream = {
        "delay_ms": 50,
        "jitter_ms": 20,
        "jitter_distribution": "pareto",
        "delay_correlation_pct": 25,
        "gilbert_elliott": BURST,
        "rate_kbit": 20000,
        "reorder_pct": 2,
        "reorder_correlation_pct": 10,
        "duplicate_pct": 1,
        "corrupt_pct": 0.1,
    }
    response = researcher_client.post(
        "/api/v1/scenarios/",
        {"study": study.pk, "code": "G1", "downstream": downstream},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["downstream"]["gilbert_elliott"] == BURST
    assert body["downstream"]["rate_kbit"] == 20000 and body["downstream"]["loss_pct"] == 0.0
    assert body["upstream"]["gilbert_elliott"] is None  # omitted direction: neutral
    row = Scenario.objects.get(pk=body["id"])
    assert row.ds_delay_ms == 50 and row.ds_jitter_ms == 20
    assert row.ds_extra == {
        "jitter_distribution": "pareto",
        "delay_correlation_pct": 25.0,
        "gilbert_elliott": BURST,
        "rate_kbit": 20000,
        "duplicate_pct": 1.0,
        "reorder_pct": 2.0,
        "reorder_correlation_pct": 10.0,
        "corrupt_pct": 0.1,
    }
    assert row.us_extra == {}  # only non-neutral fields are stored
    assert row.profile()["downstream"] == body["downstream"]  # what the agent is sent
    # A partial direction changes only the fields it names.
    response = researcher_client.patch(
        f"/api/v1/scenarios/{row.pk}/", {"downstream": {"duplicate_pct": 0}}, format="json"
    )
    assert response.status_code == 200, response.content
    after = response.json()["downstream"]
    assert after["duplicate_pct"] == 0.0 and after["gilbert_elliott"] == BURST
    assert "duplicate_pct" not in Scenario.objects.get(pk=row.pk).ds_extra
    # Switching the loss model needs gilbert_elliott: null next to the new loss_pct.
    response = researcher_client.patch(
        f"/api/v1/scenarios/{row.pk}/", {"downstream": {"loss_pct": 2}}, format="json"
    )
    assert response.status_code == 400
    assert "one loss model per direction" in str(response.json())
    response = researcher_client.patch(
        f"/api/v1/scenarios/{row.pk}/",
        {"downstream": {"loss_pct": 2, "gilbert_elliott": None}},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["downstream"]["loss_pct"] == 2.0


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("direction", "field", "expected"),
    [
        (
            {"loss_pct": 150},
            ["downstream", "loss_pct"],
            "downstream.loss_pct: 150 is greater than the maximum of 100",
        ),
        (
            {"delay_ms": 70000},
            ["downstream", "delay_ms"],
            "downstream.delay_ms: 70000 is greater than the maximum of 60000",
        ),
        (
            {"gilbert_elliott": {"p_pct": 101, "r_pct": 5}},
            ["downstream", "gilbert_elliott", "p_pct"],
            "downstream.gilbert_elliott.p_pct: 101 is greater than the maximum of 100",
        ),
        (
            {"gilbert_elliott": {"p_pct": 1}},
            ["downstream", "gilbert_elliott"],
            "downstream.gilbert_elliott: 'r_pct' is a required property",
        ),
        (
            {"rate_kbit": 1.5},
            ["downstream", "rate_kbit"],
            "downstream.rate_kbit: 1.5 is not of type 'integer'",
        ),
        (
            {"jitter_distribution": "uniform"},
            ["downstream", "jitter_distribution"],
            "downstream.jitter_distribution: 'uniform' is not one of",
        ),
        (
            {"reorder_pct": 5},
            ["downstream", "reorder_pct"],
            "reordering needs delay_ms > 0",
        ),
        (
            {"queue_limit_packets": 50},
            ["downstream", "queue_limit_packets"],
            "a setting of the station, not of a scenario",
        ),
    ],
)
def test_values_outside_the_agents_limits_are_400_naming_field_and_limit(
    researcher_client: APIClient,
    example_study: Study,
    direction: dict[str, Any],
    field: list[str],
    expected: str,
) -> None:
    study = own(researcher_client, example_study)
    response = researcher_client.post(
        "/api/v1/scenarios/",
        {"study": study.pk, "code": "X1", "downstream": direction},
        format="json",
    )
    assert response.status_code == 400, response.content
    errors: Any = response.json()
    for key in field:
        errors = errors[key]
    assert any(expected in message for message in errors), errors
    assert not study.scenarios.filter(code="X1").exists()


@pytest.mark.django_db
def test_the_maximum_applies_to_scenarios_added_one_by_one(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = own(researcher_client, example_study)
    with override_settings(QOELAB_MAX_SCENARIOS=11):
        ok = researcher_client.post(
            "/api/v1/scenarios/", {"study": study.pk, "code": "X1"}, format="json"
        )
        assert ok.status_code == 201, ok.content
        refused = researcher_client.post(
            "/api/v1/scenarios/", {"study": study.pk, "code": "X2"}, format="json"
        )
    assert refused.status_code == 400
    assert refused.json() == {
        "detail": "The study would have 12 scenarios; a study may have at most 11 "
        "(QOELAB_MAX_SCENARIOS)."
    }
    assert study.active_scenarios().count() == 11


# --- the design generator --------------------------------------------------------------------


@pytest.mark.django_db
def test_a_dry_run_previews_and_changes_nothing(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = own(researcher_client, example_study)
    response = researcher_client.post(
        f"/api/v1/studies/{study.pk}/design/", {**GRID, "dry_run": True}, format="json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"count", "session_minutes", "scenarios"}
    assert body["count"] == 9 and len(body["scenarios"]) == 9
    assert body["session_minutes"] == 22.0  # 10 + 9 × (60 + 20) / 60
    first = body["scenarios"][0]
    assert set(first) == {"code", "label", "is_baseline", "upstream", "downstream"}
    assert first["code"] == "B" and first["is_baseline"] is True
    assert first["upstream"]["jitter_ms"] == first["downstream"]["jitter_ms"] == 10.0
    d2l1 = next(s for s in body["scenarios"] if s["code"] == "D2L1")
    assert d2l1["downstream"]["delay_ms"] == 200.0 and d2l1["upstream"]["loss_pct"] == 1.0
    assert d2l1["label"] == "downstream delay 200 ms, upstream loss 1 %"
    assert [s.code for s in study.active_scenarios()][:2] == ["B", "D1"]  # untouched
    assert study.active_scenarios().count() == 10


@pytest.mark.django_db
def test_applying_a_design_replaces_the_scenarios(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = own(researcher_client, example_study)
    response = researcher_client.post(f"/api/v1/studies/{study.pk}/design/", GRID, format="json")
    assert response.status_code == 200, response.content
    detail = researcher_client.get(f"/api/v1/studies/{study.pk}/").json()
    assert [s["code"] for s in detail["scenarios"]] == [
        s["code"] for s in response.json()["scenarios"]
    ]
    assert [s["position"] for s in detail["scenarios"]] == list(range(9))
    assert detail["version"] == 1  # no sessions: edited in place, old rows deleted
    assert Scenario.objects.filter(study=study).count() == 9
    assert detail["session_minutes"] == 22.0


@pytest.mark.django_db
def test_a_design_on_a_study_with_sessions_retires_rows_in_one_new_version(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = own(researcher_client, example_study)
    lock(study)
    old_ids = set(study.active_scenarios().values_list("pk", flat=True))
    response = researcher_client.post(f"/api/v1/studies/{study.pk}/design/", GRID, format="json")
    assert response.status_code == 200, response.content
    study.refresh_from_db()
    assert study.version == 2
    assert set(
        Scenario.objects.filter(pk__in=old_ids).values_list("retired_in_version", flat=True)
    ) == {2}
    current = list(study.active_scenarios())
    assert len(current) == 9 and {s.version for s in current} == {2}
    # The same design again keeps every row: nothing changed, no new version.
    again = researcher_client.post(f"/api/v1/studies/{study.pk}/design/", GRID, format="json")
    assert again.status_code == 200
    study.refresh_from_db()
    assert study.version == 2
    assert {s.pk for s in study.active_scenarios()} == {s.pk for s in current}


@pytest.mark.django_db
def test_a_design_over_the_maximum_is_400_with_the_count(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = own(researcher_client, example_study)
    design = copy.deepcopy(GRID)
    design["factors"] = [
        {"key": "delay_ms", "direction": "downstream", "levels": [0, 50, 100, 150, 200]},
        {"key": "loss_pct", "direction": "upstream", "levels": [0, 1, 2, 3, 4]},
        {"key": "jitter_ms", "direction": "both", "levels": [0, 5, 10, 20, 40]},
    ]
    response = researcher_client.post(
        f"/api/v1/studies/{study.pk}/design/", {**design, "dry_run": True}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "detail": "The design makes 125 scenarios; a study may have at most 100 "
        "(QOELAB_MAX_SCENARIOS)."
    }
    with override_settings(QOELAB_MAX_SCENARIOS=8):
        response = researcher_client.post(
            f"/api/v1/studies/{study.pk}/design/", GRID, format="json"
        )
    assert response.status_code == 400 and "makes 9 scenarios" in response.json()["detail"]
    assert study.active_scenarios().count() == 10


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"factors": [{"key": "delay_ms", "direction": "downstream", "levels": [0, 70000]}]},
            "factors[0].levels[1]: 70000 is greater than the maximum of 60000 ms",
        ),
        (
            {"base": {"downstream": {"loss_pct": 101}}},
            "downstream.loss_pct: 101 is greater than the maximum of 100",
        ),
        ({"factors": []}, "factors"),
        ({"kind": "latin"}, "kind"),
    ],
)
def test_bad_designs_are_400(
    researcher_client: APIClient, example_study: Study, change: dict[str, Any], expected: str
) -> None:
    study = own(researcher_client, example_study)
    response = researcher_client.post(
        f"/api/v1/studies/{study.pk}/design/", {**GRID, **change}, format="json"
    )
    assert response.status_code == 400
    assert expected in str(response.json()), response.json()
    assert study.active_scenarios().count() == 10


@pytest.mark.django_db
def test_only_owners_and_members_may_generate_a_design(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = own(researcher_client, example_study)
    url = f"/api/v1/studies/{study.pk}/design/"
    assert other_researcher().post(url, GRID, format="json").status_code == 403
    assert APIClient().post(url, GRID, format="json").status_code in {401, 403}
    assert study.active_scenarios().count() == 10
