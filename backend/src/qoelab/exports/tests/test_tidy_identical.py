"""The column-wise tidy table writes exactly the CSV of the row-wise one it replaced
(issue 16): byte for byte, on a study with every kind of cell, and on a generated study
loaded through the importer."""

from __future__ import annotations

import hashlib
import io
from itertools import product

import pytest
from qoe_analysis.synthetic import generate_study

from qoelab.exports.importer import import_ratings
from qoelab.exports.tests.test_exports import completed_session
from qoelab.exports.tests.tidy_rowwise import rowwise_tidy_table
from qoelab.exports.tidy import tidy_csv, tidy_table
from qoelab.participants.models import Participant
from qoelab.ratings.models import Answer, Rating
from qoelab.runs.models import Session
from qoelab.runs.state_machine import State
from qoelab.studies.models import Game, Study
from qoelab.studies.rating_items import GAMING_PRESET

CALC = "=cmd|' /C calc'!A0"
OPTIONS = [
    {"include_retest": retest, "include_incomplete": incomplete}
    for retest, incomplete in product([False, True], repeat=2)
]


def assert_identical(study: Study) -> None:
    for options in OPTIONS:
        old = rowwise_tidy_table(study, **options)
        new = tidy_table(study, **options)
        assert new.columns == old.columns, options
        # The old rows also held the left-out factor columns; the CSV never wrote them.
        assert new.rows == [{c: row.get(c, "") for c in old.columns} for row in old.rows]
        assert new.to_csv() == old.to_csv(), options
    assert tidy_csv(study) == rowwise_tidy_table(study).to_csv()


@pytest.mark.django_db
def test_every_kind_of_cell_is_written_as_before(owned_example_study: Study) -> None:
    study = owned_example_study
    study.rating_items = GAMING_PRESET
    study.retest_round = True
    study.questionnaire = [
        *study.questionnaire,
        {"key": "mood", "phase": "post", "kind": "integer", "text": "Mood?", "min": -3, "max": 3},
        {"key": "again", "phase": "post", "kind": "boolean", "text": "Again?"},
    ]
    study.save()
    games = list(study.games.order_by("id"))
    # Stored before names were validated: text cells a spreadsheet would run.
    Game.objects.filter(pk=games[0].pk).update(name=CALC)
    Game.objects.filter(pk=games[1].pk).update(name="'+quoted")
    # Cells the CSV writer quotes: a comma, a quote, line breaks.
    Game.objects.filter(pk=games[2].pk).update(name='Pro "Evo", 2\r\nx')
    sessions = [completed_session(study, f"P{i}", i % 3) for i in range(6)]
    Participant.objects.filter(code="P1").update(code="-P1", skill="")
    Participant.objects.filter(code="P2").update(code='P"2')  # a quote alone
    for index, rating in enumerate(Rating.objects.filter(session__study=study).order_by("pk")):
        rating.values = [
            {"overall": 4, "input_quality": 2.5, "acceptance": 1},
            {"overall": 3.0, "video_quality": 5},  # an item left without a value: no row
            {"overall": 5},
            {"unknown": 1},  # no declared item: no row at all
        ][index % 4]
        rating.provenance = [
            {"backend": "netlink", "agent_version": "0.2.0"},
            {},
            {"backend": None, "agent_version": "=1+1\n"},  # a line break alone
            ["not", "an", "object"],
        ][index % 7 % 4]
        rating.response_ms = None if index % 3 else 900 + index
        rating.since_end_ms = None if index % 5 else index
        rating.training = index % 11 == 0
        if index % 6 == 0:
            rating.applied_profile = {
                "downstream": {
                    "delay_ms": 120,
                    "jitter_ms": 10.25,
                    "jitter_distribution": "pareto",
                    "gilbert_elliott": {"p_pct": 5, "r_pct": 40.0},
                    "rate_kbit": 8000,
                },
                "upstream": {"delay_ms": -0.0, "loss_pct": 1e-7, "queue_limit_packets": 500},
            }
        if index % 13 == 0:
            rating.round = 2  # a retest rating
        rating.save()
    now = sessions[0].created_at
    for number, session in enumerate(sessions):
        Answer.objects.create(
            session=session, phase="post", key="mood", value=-2 + number % 3, answered_at=now
        )
        if number != 4:
            Answer.objects.create(
                session=session, phase="post", key="again", value=bool(number % 2), answered_at=now
            )
    Answer.objects.filter(session=sessions[2], key="willing_to_pay").update(value="@SUM(1)")
    Answer.objects.filter(session=sessions[3], key="attitude").update(value="so, so")
    assert_identical(study)
    # A session that is not completed, whose participant has no age: the age column is
    # left out only of the table that includes it.
    Session.objects.filter(pk=sessions[4].pk).update(state=State.ABORTED)
    Participant.objects.filter(code="P4").update(age=None)
    assert_identical(study)
    assert "age" in tidy_table(study).columns
    assert "age" not in tidy_table(study, include_incomplete=True).columns
    text = tidy_csv(study)
    assert '"P""2"' in text and ',"\'=1+1\n"' in text
    assert '"Pro ""Evo"", 2\r\nx"' in text and ',"so, so"' in text
    assert f"'{CALC}" in text and "''+quoted" in text and "'-P1" in text and ",'@SUM(1)" in text


@pytest.mark.django_db
def test_a_generated_study_imported_is_written_as_before(owned_example_study: Study) -> None:
    """The bench's study, smaller: ``generate_study`` through the real importer."""
    study = Study.objects.get(pk=owned_example_study.pk)
    games = {game.name: game.pace for game in study.games.order_by("id")}
    frame, _truth = generate_study(40, 60, seed=20261125, games=games)
    buffer = io.StringIO()
    frame.drop(columns=["attitude"]).to_csv(buffer, index=False)
    text = buffer.getvalue()
    import_ratings(study, io.StringIO(text), hashlib.sha256(text.encode()).hexdigest())
    assert len(tidy_table(study)) == len(frame)
    assert_identical(study)


@pytest.mark.django_db
def test_a_study_without_ratings_has_the_header_only(owned_example_study: Study) -> None:
    table = tidy_table(owned_example_study)
    assert len(table) == 0 and table.rows == []
    assert table.to_csv() == rowwise_tidy_table(owned_example_study).to_csv()
