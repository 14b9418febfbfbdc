"""The tidy import lists every problem of its rows at once, capped, and its texts name the
rule and never show a Python repr (issue 32, item 3)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from qoelab.exports.import_cells import MOST_LISTED, ImportRejected, plain_text
from qoelab.exports.sample_ratings import sample_csv
from qoelab.exports.tests.import_helpers import refused
from qoelab.studies.models import Study

pytestmark = pytest.mark.django_db


def edited(study: Study, rows: int, **lines: str) -> str:
    """The sample file with line N (``l3=...``: the header is line 1) replaced."""
    text = sample_csv(study, rows).splitlines()
    for key, line in lines.items():
        text[int(key[1:]) - 1] = line
    return "\n".join(text) + "\n"


def cells(study: Study, line: int, rows: int = 20) -> list[str]:
    return sample_csv(study, rows).splitlines()[line - 1].split(",")


def test_every_problem_of_the_rows_is_listed(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    study = owned_example_study
    first, code, other = cells(study, 3), cells(study, 5), cells(study, 8)
    first[4], other[4] = "Z9", "Z8"  # scenarios the study does not have
    code[0] = "Player 1"
    text = edited(study, 20, l3=",".join(first), l5=",".join(code), l8=",".join(other))
    job = refused(researcher_client, study, text, "3 problems:")
    lines = job["error"].splitlines()
    assert lines[1] == "line 3: scenario: 'Z9' is not a scenario of this study"
    assert lines[2] == (
        "line 5: rater_id: 'Player 1' is not a participant code: participant codes are 1-40 "
        "letters, digits, '_', '.' and '-', the first a letter or digit"
    )
    assert lines[3] == "line 8: scenario: 'Z8' is not a scenario of this study"
    assert len(lines) == 4 and (job["error_line"], job["error_column"]) == (3, "scenario")


def test_a_clash_inside_the_file_is_not_called_an_earlier_import(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    study = owned_example_study
    row = cells(study, 2)
    row[1] = "S1-again"  # rater S1's first game again, in another session
    job = refused(researcher_client, study, edited(study, 20, l21=",".join(row)), "line 21:")
    assert "was the file imported before" not in job["error"]
    assert (
        "session S1-again is rater S1 playing the game of session S1-0 (line 2) again"
        in (job["error"])
    )
    assert "a rater plays each game once in a study" in job["error"]


def test_the_list_is_capped_and_counts_the_rest(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    study = owned_example_study
    rows = MOST_LISTED + 30
    bad = {f"l{n}": ",".join(["Player 1", *cells(study, n, rows)[1:]]) for n in range(2, rows + 2)}
    job = refused(researcher_client, study, edited(study, rows, **bad), f"{rows} problems:")
    lines = job["error"].splitlines()
    assert len(lines) == 1 + MOST_LISTED + 1 and lines[-1] == "… and 30 more"


def test_no_python_repr_reaches_a_message() -> None:
    assert plain_text("rating: np.float64(100.0) is greater than 5") == (
        "rating: 100.0 is greater than 5"
    )
    refusal = ImportRejected("game: np.str_('Chess') is unknown", 4)
    assert str(refusal) == "line 4: game: 'Chess' is unknown"
    assert refusal.body() == {"detail": str(refusal), "line": 4, "column": "game"}
    joined = ImportRejected.every([refusal, ImportRejected("rater_id: 'x y' is bad", 9)], 2)
    assert joined.body()["problems"] == [
        {"file": None, "line": 4, "column": "game", "value": None, "rule": "'Chess' is unknown"},
        {"file": None, "line": 9, "column": "rater_id", "value": None, "rule": "'x y' is bad"},
    ]
    assert joined.body()["more"] == 0 and joined.line == 4
