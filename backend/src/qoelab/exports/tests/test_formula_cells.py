"""A legacy name that a spreadsheet would run is exported as text (issue 13, finding 4),
and an export → import round trip gives the original name back."""

from __future__ import annotations

import csv
import io

import pytest
from qoe_analysis import load_ratings
from rest_framework.test import APIClient

from qoelab.exports.tests.import_helpers import imported
from qoelab.exports.tests.test_exports import completed_session
from qoelab.runs.models import Session
from qoelab.studies.cloning import clone_study
from qoelab.studies.models import Game, Study

CALC = "=cmd|' /C calc'!A0"


@pytest.mark.django_db
def test_a_legacy_formula_game_name_is_exported_as_text_and_imports_back(
    researcher_client: APIClient, owned_example_study: Study, first_game: Game
) -> None:
    study = owned_example_study
    game = first_game
    # Stored before names were validated (the API refuses it now).
    Game.objects.filter(pk=game.pk).update(name=CALC)
    study.questionnaire = [
        *study.questionnaire,
        {"key": "mood", "phase": "post", "kind": "integer", "text": "Mood?", "min": -3, "max": 3},
    ]
    study.save()
    session = completed_session(study, "P1", 0)
    session.answers.create(phase="post", key="mood", value=-2, answered_at=session.created_at)
    text = researcher_client.get(f"/api/v1/studies/{study.pk}/export/csv/").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {row["game"] for row in rows} == {"'" + CALC}  # text, never a formula
    assert {row["mood"] for row in rows} == {"-2"}  # a number stays a number
    assert all(not row["ds_delay_ms"].startswith("'") for row in rows)
    # The analysis package reads the name back as it is.
    assert set(load_ratings(io.StringIO(text))["game"]) == {CALC}
    # Export → import into a copy of the design: the same name, the same file again.
    other = clone_study(study, slug="copy", title="Copy", owner=study.owner)
    imported(researcher_client, other, text)
    assert set(Session.objects.filter(study=other).values_list("game__name", flat=True)) == {CALC}
    again = researcher_client.get(f"/api/v1/studies/{other.pk}/export/csv/").content.decode()
    strip = lambda t: sorted(line.split(",", 2)[2] for line in t.splitlines()[1:])  # noqa: E731
    assert strip(again) == strip(text)
