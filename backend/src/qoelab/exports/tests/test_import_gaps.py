"""Empty cells of an import: a factor cell means the scenario's value, a participant or
questionnaire cell means "not answered"; every other empty cell is refused by the contract."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from qoelab.exports.tests.import_helpers import imported, refused
from qoelab.participants.models import Participant
from qoelab.ratings.models import Rating
from qoelab.studies.models import Study

HEADER = "rater_id,session_id,game,game_pace,scenario,ds_delay_ms,us_delay_ms,rating,age,skill\n"
GAME = "Gran Turismo HD Concept"


def own(client: APIClient, study: Study) -> Study:
    study.owner = client.handler._force_user  # type: ignore[attr-defined]
    study.save()
    return study


def import_rows(client: APIClient, study: Study, *rows: str) -> int:
    """Import B and D1 rated by R1 (``rows``: the cells after ``game_pace``); the count."""
    lines = [f"R1,s1,{GAME},fast,{row}\n" for row in rows]
    return int(imported(client, own(client, study), HEADER + "".join(lines))["ratings"])


@pytest.mark.django_db
def test_an_empty_factor_cell_is_the_scenarios_value(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = example_study
    assert import_rows(researcher_client, study, "B,0,0,5,30,high", "D1,,80,4,30,high") == 2
    rating = Rating.objects.get(session__study=study, scenario__code="D1")
    assert rating.applied_profile["downstream"]["delay_ms"] == 80.0
    assert rating.applied_profile["upstream"]["delay_ms"] == 80.0


@pytest.mark.django_db
def test_empty_participant_cells_are_not_answered(
    researcher_client: APIClient, example_study: Study
) -> None:
    study = example_study
    assert import_rows(researcher_client, study, "B,0,0,5,,", "D1,80,80,4,,") == 2
    participant = Participant.objects.get(study=study, code="R1")
    assert participant.age is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("row", "words"),
    [
        (f"R1,s1,{GAME},fast,D1,80,80,,30,high\n", ("line 3: rating: missing value",)),
        (f"R1,s1,{GAME},fast,ZZ,,80,4,30,high\n", ("line 3",)),
        (f"R1,s1,{GAME},fast,D1,80,80,4,30\n", ("line 3", "9 cells and the header 10")),
    ],
)
def test_other_gaps_are_refused_with_their_line(
    researcher_client: APIClient, example_study: Study, row: str, words: tuple[str, ...]
) -> None:
    study = own(researcher_client, example_study)
    refused(researcher_client, study, HEADER + f"R1,s1,{GAME},fast,B,0,0,5,30,high\n" + row, *words)
