"""A game without a valid pace class is refused with the field and its choices (issue 35,
form friction), not DRF's ``"" is not a valid choice.``"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from qoelab.studies.models import Game, Study

PACE_MESSAGE = "pace: choose fast, medium or slow"


@pytest.mark.django_db
@pytest.mark.parametrize("pace", ["", "frantic", None, "missing"])
def test_a_missing_or_unknown_pace_names_the_choices(
    researcher_client: APIClient, owned_example_study: Study, pace: str | None
) -> None:
    body: dict[str, Any] = {"study": owned_example_study.pk, "name": "Tetris"}
    if pace != "missing":
        body["pace"] = pace
    response = researcher_client.post("/api/v1/games/", body, format="json")
    assert response.status_code == 400
    assert response.json() == {"pace": [PACE_MESSAGE]}


@pytest.mark.django_db
def test_a_patch_to_a_blank_pace_is_refused_the_same_way(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    game = Game.objects.create(study=owned_example_study, name="Tetris", pace="slow")
    response = researcher_client.patch(f"/api/v1/games/{game.pk}/", {"pace": ""}, format="json")
    assert response.status_code == 400
    assert response.json() == {"pace": [PACE_MESSAGE]}
