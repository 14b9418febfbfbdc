"""The import's table check (the analysis' tidy-format validation) lists every problem at
once, as the row checks do (issue 32, item 3)."""

from __future__ import annotations

import pytest
from qoe_analysis import RatingsValidationError
from rest_framework.test import APIClient

from qoelab.exports.import_table import rejected
from qoelab.exports.sample_ratings import sample_csv
from qoelab.exports.tests.import_helpers import refused
from qoelab.studies.models import Study

pytestmark = pytest.mark.django_db


def test_every_problem_of_the_table_is_listed(
    researcher_client: APIClient, owned_example_study: Study
) -> None:
    study = owned_example_study
    lines = sample_csv(study, 20).splitlines()
    header = lines[0].split(",")

    def edit(line: int, column: str, value: str) -> None:
        cells = lines[line - 1].split(",")
        cells[header.index(column)] = value
        lines[line - 1] = ",".join(cells)

    edit(3, "rating", "9")
    edit(5, "ds_delay_ms", "slow")
    edit(7, "game_pace", "turbo")
    job = refused(researcher_client, study, "\n".join(lines) + "\n", "3 problems:")
    listed = job["error"].splitlines()
    assert listed[1].startswith("line 3: rating: rating 9 is not an integer on the ACR scale")
    assert listed[2] == "line 5: ds_delay_ms: value 'slow' is not a number"
    assert listed[3] == "line 7: game_pace: pace 'turbo' is not one of fast, medium, slow"
    assert len(listed) == 4 and (job["error_line"], job["error_column"]) == (3, "rating")


def test_the_problems_take_the_dataset_import_shape() -> None:
    one = RatingsValidationError("value 'x' is not a number", column="ds_delay_ms", line=5)
    assert rejected(one).body() == {
        "detail": "line 5: ds_delay_ms: value 'x' is not a number",
        "line": 5,
        "column": "ds_delay_ms",
    }
    more = [*one.problems, *RatingsValidationError("missing value", line=9).problems]
    body = rejected(RatingsValidationError("", problems=more, total=80)).body()
    assert body["problems"] == [
        {
            "file": None,
            "line": 5,
            "column": "ds_delay_ms",
            "value": None,
            "rule": "value 'x' is not a number",
        },
        {"file": None, "line": 9, "column": None, "value": None, "rule": "missing value"},
    ]
    assert body["more"] == 78 and body["line"] == 5 and body["detail"].endswith("… and 78 more")
