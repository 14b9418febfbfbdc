"""The design of an analysis-only study (imported from a dataset) is the data's: every write
of its games, scenarios, design generator, settings and study document is refused (409, the
rule named) and changes nothing; reading, renaming, deleting and cloning stay as for any
study (qoelab.studies.analysis_only)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from qoelab.studies.models import Game, Scenario, Study
from qoelab.studies.study_document import (
    StudyDocumentError,
    export_study_document,
    load_study_document,
)
from qoelab.studies.tests.study_helpers import other_researcher

pytestmark = pytest.mark.django_db

RULE = "(this study was imported from a dataset and is analysis-only: its design is the data's)"
GRID = {
    "kind": "grid",
    "factors": [{"key": "delay_ms", "direction": "downstream", "levels": [0, 100]}],
}


@pytest.fixture
def imported(researcher: Any) -> Study:
    study = Study.objects.create(
        slug="imported", title="Imported", owner=researcher, analysis_only=True
    )
    Game.objects.create(study=study, name="Racing", pace="fast")
    Scenario.objects.create(study=study, code="C0001", ds_delay_ms=0.0, position=0)
    Scenario.objects.create(study=study, code="C0002", ds_delay_ms=100.0, position=1)
    return study


def design(study: Study) -> tuple[Any, ...]:
    """Everything a refused write must leave as it was."""
    study.refresh_from_db()
    games = list(study.games.values_list("name", "pace", "genre"))
    scenarios = list(study.scenarios.values_list("code", "ds_delay_ms", "retired_in_version"))
    return games, scenarios, study.rating_items, study.questionnaire, study.version


def refused(response: Any, what: str) -> bool:
    assert response.status_code == 409, response.content
    assert response.json() == {"detail": f"{what} cannot be changed {RULE}"}
    return True


def test_games_cannot_be_added_changed_or_deleted(
    researcher_client: APIClient, imported: Study
) -> None:
    before = design(imported)
    game = imported.games.get()
    body = {"study": imported.pk, "name": "Puzzle", "pace": "slow"}
    assert refused(researcher_client.post("/api/v1/games/", body, format="json"), "its games")
    url = f"/api/v1/games/{game.pk}/"
    assert refused(researcher_client.patch(url, {"pace": "slow"}, format="json"), "its games")
    assert refused(researcher_client.delete(url), "its games")
    assert design(imported) == before
    assert researcher_client.get(url).status_code == 200  # reading stays


def test_scenarios_cannot_be_added_changed_or_retired(
    researcher_client: APIClient, imported: Study
) -> None:
    before = design(imported)
    first = imported.scenarios.get(code="C0001")
    body = {"study": imported.pk, "code": "C0003", "downstream": {"delay_ms": 50}}
    response = researcher_client.post("/api/v1/scenarios/", body, format="json")
    assert refused(response, "its scenarios")
    url = f"/api/v1/scenarios/{first.pk}/"
    response = researcher_client.patch(url, {"label": "renamed"}, format="json")
    assert refused(response, "its scenarios")
    assert refused(researcher_client.delete(url), "its scenarios")
    assert design(imported) == before
    listed = researcher_client.get(f"/api/v1/scenarios/?study={imported.pk}").json()
    assert [s["code"] for s in listed] == ["C0001", "C0002"]


def test_the_design_generator_is_refused_preview_included(
    researcher_client: APIClient, imported: Study
) -> None:
    before = design(imported)
    url = f"/api/v1/studies/{imported.pk}/design/"
    for dry_run in (False, True):
        response = researcher_client.post(url, {**GRID, "dry_run": dry_run}, format="json")
        assert refused(response, "its scenarios")
    assert design(imported) == before


def test_settings_are_locked_but_the_name_and_description(
    researcher_client: APIClient, imported: Study
) -> None:
    url = f"/api/v1/studies/{imported.pk}/"
    shown = researcher_client.get(url).json()
    before = design(imported)
    items = [{**shown["rating_items"][0], "key": "video"}]
    response = researcher_client.patch(url, {"rating_items": items}, format="json")
    assert refused(response, "its rating_items")
    change = {"questionnaire": [], "seconds_per_scenario": 30, "description": "new"}
    response = researcher_client.patch(url, change, format="json")
    assert refused(response, "its seconds_per_scenario, questionnaire")
    assert design(imported) == before and imported.description == ""
    # the study as shown, sent back with a new name and description: nothing locked changes
    keep = {k: shown[k] for k in ("rating_items", "questionnaire", "acceptance", "language")}
    renamed = {**keep, "title": "P.809 data", "description": "from the lab next door"}
    response = researcher_client.patch(url, renamed, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["title"] == "P.809 data" and design(imported) == before


def test_a_stranger_is_refused_access_before_the_rule(imported: Study) -> None:
    game = imported.games.get()
    response = other_researcher().patch(f"/api/v1/games/{game.pk}/", {"pace": "slow"})
    assert response.status_code == 403


def test_a_study_document_is_not_loaded_onto_it(imported: Study) -> None:
    document = export_study_document(imported)
    before = design(imported)
    document["games"] = [{"name": "Puzzle", "pace": "slow"}]
    document["scenarios"][0]["is_baseline"] = True  # a valid document (imports have none)
    with pytest.raises(StudyDocumentError) as caught:
        load_study_document(document)
    assert str(caught.value) == f"slug: study 'imported': its design cannot be changed {RULE}"
    assert design(imported) == before


def test_an_analysis_only_study_without_sessions_can_be_deleted(
    researcher_client: APIClient, imported: Study
) -> None:
    response = researcher_client.delete(f"/api/v1/studies/{imported.pk}/")
    assert response.status_code == 204 and not Study.objects.filter(pk=imported.pk).exists()


def test_a_clone_is_a_runnable_copy_within_the_scenario_cap(
    researcher_client: APIClient, imported: Study
) -> None:
    url = f"/api/v1/studies/{imported.pk}/clone/"
    with override_settings(QOELAB_MAX_SCENARIOS=1):
        response = researcher_client.post(url, {"slug": "too-big", "title": "Copy"})
    assert response.status_code == 400, response.content
    assert response.json() == {
        "detail": "study 'Imported' was imported from a dataset with 2 conditions; a clone is "
        "a runnable study of at most 1 scenarios (QOELAB_MAX_SCENARIOS): create a study and "
        "design fewer scenarios instead"
    }
    assert not Study.objects.filter(slug="too-big").exists()
    response = researcher_client.post(url, {"slug": "copy", "title": "Copy"})
    assert response.status_code == 201, response.content
    copy = response.json()
    assert copy["analysis_only"] is False
    assert [s["code"] for s in copy["scenarios"]] == ["C0001", "C0002"]
    game = Game.objects.get(study_id=copy["id"])
    patched = researcher_client.patch(f"/api/v1/games/{game.pk}/", {"pace": "slow"})
    assert patched.status_code == 200  # the copy's design is the researcher's
