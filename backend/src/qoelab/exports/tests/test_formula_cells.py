"""A legacy name that a spreadsheet would run is exported as text (issue 13, finding 4),
and an export → import round trip gives the original name back. One prefix rule for the
tidy CSV, the sureal dataset and the API's name check (issue 34): invisible characters
(U+200B, U+FEFF, U+2060) and full-width forms (``＝``) do not hide a formula start."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from qoe_analysis import load_ratings
from rest_framework.test import APIClient

from qoelab.core.labels import validate_label
from qoelab.exports.tests.import_helpers import imported
from qoelab.exports.tests.test_exports import completed_session
from qoelab.runs.models import Session
from qoelab.runs.tests.test_bad_input import rejected
from qoelab.studies.cloning import clone_study
from qoelab.studies.models import Game, Study

CALC = "=cmd|' /C calc'!A0"
#: Names a spreadsheet (or a converter before it) could run: issue 13's, and issue 34's
#: hidden behind an invisible character or written full-width.
FORMULA_NAMES = [CALC, "\u200b" + CALC, "\ufeff@SUM(A1)", "\u2060\u200b+1+1", "\uff1d1+1"]


@pytest.mark.django_db
@pytest.mark.parametrize("name", FORMULA_NAMES)
def test_a_legacy_formula_game_name_is_exported_as_text_and_imports_back(
    researcher_client: APIClient, owned_example_study: Study, first_game: Game, name: str
) -> None:
    study = owned_example_study
    game = first_game
    # Stored before names were validated (the API refuses it now).
    Game.objects.filter(pk=game.pk).update(name=name)
    study.questionnaire = [
        *study.questionnaire,
        {"key": "mood", "phase": "post", "kind": "integer", "text": "Mood?", "min": -3, "max": 3},
    ]
    study.save()
    session = completed_session(study, "P1", 0)
    session.answers.create(phase="post", key="mood", value=-2, answered_at=session.created_at)
    text = researcher_client.get(f"/api/v1/studies/{study.pk}/export/csv/").content.decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {row["game"] for row in rows} == {"'" + name}  # text, never a formula
    assert {row["mood"] for row in rows} == {"-2"}  # a number stays a number
    assert all(not row["ds_delay_ms"].startswith("'") for row in rows)
    # The analysis package reads the name back as it is.
    assert set(load_ratings(io.StringIO(text))["game"]) == {name}
    # Export → import into a copy of the design: the same name, the same file again.
    other = clone_study(study, slug="copy", title="Copy", owner=study.owner)
    imported(researcher_client, other, text)
    assert set(Session.objects.filter(study=other).values_list("game__name", flat=True)) == {name}
    again = researcher_client.get(f"/api/v1/studies/{other.pk}/export/csv/").content.decode()
    strip = lambda t: sorted(line.split(",", 2)[2] for line in t.splitlines()[1:])  # noqa: E731
    assert strip(again) == strip(text)


@pytest.mark.django_db
@pytest.mark.parametrize("name", FORMULA_NAMES[1:])
def test_the_sureal_dataset_escapes_names_as_the_tidy_csv_does(
    researcher_client: APIClient, owned_example_study: Study, first_game: Game, name: str
) -> None:
    study = owned_example_study
    Game.objects.filter(pk=first_game.pk).update(name=name)
    completed_session(study, "P1", 0)
    text = researcher_client.get(f"/api/v1/studies/{study.pk}/export/csv/").content.decode()
    games = {row["game"] for row in csv.DictReader(io.StringIO(text))}
    dataset: dict[str, Any] = researcher_client.get(
        f"/api/v1/studies/{study.pk}/export/sureal/"
    ).json()
    contents = {video["content_name"] for video in dataset["ref_videos"]}
    assert "'" + name in contents and name not in contents
    stimuli = {video["game"] for video in dataset["dis_videos"]}
    assert stimuli == games == {"'" + name}  # one rule, the same cell in both exports
    # The path starts with "qoelab/": never a formula, the name kept as it is inside it.
    assert all(video["path"].startswith("qoelab/") for video in dataset["dis_videos"])


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("\u200b=1+1", "must not start with '=' (its first character is U+200B)"),
        ("\ufeff@SUM(A1)", "must not start with '@' (its first character is U+FEFF)"),
        ("\u2060+1", "must not start with '+' (its first character is U+2060)"),
        ("\uff1dcmd", "must not start with '=' (its first character is U+FF1D)"),
        ("\uff0d2+3", "must not start with '-' (its first character is U+FF0D)"),
        ("=x", "must not start with '=':"),
    ],
)
def test_the_name_check_applies_the_same_prefix_rule(name: str, reason: str) -> None:
    with pytest.raises(ValidationError) as caught:
        validate_label(name)
    assert reason in " ".join(caught.value.messages), caught.value.messages


@pytest.mark.parametrize("name", ["-1", "-2.5", "a=b", "\u200bTetris", "\uff21 Game"])
def test_the_name_check_lets_plain_names_pass(name: str) -> None:
    validate_label(name)


@pytest.mark.django_db
def test_the_api_refuses_a_game_name_with_a_hidden_formula_start(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    for name in ("\u200b=cmd", "\uff1dcmd"):
        response = rejected(
            lambda name=name: researcher_client.post(
                "/api/v1/games/",
                {"study": owned_example_study.pk, "name": name, "pace": "fast"},
                format="json",
            ),
            400,
            "must not start with '='",
        )
        assert response["Content-Type"] == "application/json"
    assert not Game.objects.filter(name__in=["\u200b=cmd", "\uff1dcmd"]).exists()
