"""Names that end up in exports are validated at the API (issue 13, finding 4): no control
characters, no formula-like start (= + - @), stripped, bounded."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.runs.tests.test_bad_input import rejected
from qoelab.studies.models import Game, Study
from qoelab.studies.study_document import export_study_document

CALC = "=cmd|' /C calc'!A0"
BAD_NAMES = [
    (CALC, "must not start with '='"),
    ("+1+cmd", "must not start with '+'"),
    ("@SUM(A1)", "must not start with '@'"),
    ("-2+3+cmd|' /C calc'!A0", "must not start with '-'"),
    ("Tab\tinside", "control characters"),
    ("CR\rinside", "control characters"),
    ("Escape\x1b[31m", "control characters"),
    ("x" * 121, "no more than 120"),
]


def _game(client: APIClient, study: Study, name: str) -> Any:
    return client.post(
        "/api/v1/games/", {"study": study.pk, "name": name, "pace": "fast"}, format="json"
    )


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "reason"), BAD_NAMES)
def test_a_formula_or_control_character_in_a_game_name_is_refused(
    researcher_client: APIClient, owned_example_study: Study, name: str, reason: str
) -> None:
    response = rejected(lambda: _game(researcher_client, owned_example_study, name), 400, reason)
    assert response["Content-Type"] == "application/json"


@pytest.mark.django_db
def test_legitimate_names_pass_stripped(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    for name, stored in (("  Tetris  ", "Tetris"), ("-1", "-1"), ("-2.5", "-2.5"), ("a=b", "a=b")):
        response = _game(researcher_client, owned_example_study, name)
        assert response.status_code == 201, response.content
        assert Game.objects.get(pk=response.json()["id"]).name == stored


@pytest.mark.django_db
def test_scenario_labels_study_titles_and_choices_are_checked(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    c = researcher_client
    study = owned_example_study
    rejected(
        lambda: c.post(
            "/api/v1/scenarios/", {"study": study.pk, "code": "X1", "label": CALC}, format="json"
        ),
        400,
        "label",
        "must not start with '='",
    )
    rejected(
        lambda: c.patch(f"/api/v1/studies/{study.pk}/", {"title": "@evil"}, format="json"),
        400,
        "title",
    )
    rejected(
        lambda: c.post("/api/v1/studies/", {"slug": "s2", "title": CALC}, format="json"),
        400,
        "title",
    )
    rejected(
        lambda: c.post(
            f"/api/v1/studies/{study.pk}/clone/", {"slug": "c2", "title": CALC}, format="json"
        ),
        400,
        "title",
    )
    question = {"key": "pay", "phase": "post", "kind": "choice", "text": "Pay?"}
    rejected(
        lambda: c.patch(
            f"/api/v1/studies/{study.pk}/",
            {"questionnaire": [{**question, "choices": ["yes", "=1+1"]}]},
            format="json",
        ),
        400,
        "must not start with '='",
    )
    rejected(
        lambda: c.patch(f"/api/v1/games/{study.games.first().pk}/", {"genre": "+x"}, format="json"),  # type: ignore[union-attr]
        400,
        "genre",
    )


@pytest.mark.django_db
def test_a_study_document_with_a_formula_game_is_refused(
    researcher_client: APIClient, example_study: Study
) -> None:
    document = export_study_document(example_study)
    for path in (("games", 1, "name"), ("scenarios", 2, "label"), ("title",)):
        bad = copy.deepcopy(document)
        bad["slug"] = "formula"
        target: Any = bad
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = CALC
        response = rejected(
            lambda bad=bad: researcher_client.post(
                "/api/v1/studies/import-design/", bad, format="json"
            ),
            400,
            "must not start with '='",
        )
        assert str(path[0]) in response.json()["detail"]
    assert not Study.objects.filter(slug="formula").exists()
