"""``insert_rows`` stores exactly what the ORM would: text with COPY's special characters,
shared and distinct JSON values, NULLs, defaults and ``auto_now_add`` (on the test run's
database: the COPY path on PostgreSQL, ``executemany`` on SQLite)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from qoelab.exports.bulk_insert import insert_rows
from qoelab.participants.models import Participant
from qoelab.studies.models import Study

NOW = datetime(2026, 11, 25, 12, 30, 15, 123456, tzinfo=UTC)


@pytest.mark.django_db
def test_rows_come_back_as_written_in_their_order(owned_example_study: Study) -> None:
    shared = {"tab\there": ["back\\slash", "new\nline", "cr\rx", "\\N"], "n": None}
    rows = [
        {"study_id": owned_example_study.pk, "code": "A\tB\\C\nD\rE", "genre_preferences": shared},
        {"study_id": owned_example_study.pk, "code": "\\N", "genre_preferences": shared},
        {"study_id": owned_example_study.pk, "code": "plain", "age": 30, "skill": "expert"},
        {"study_id": owned_example_study.pk, "code": "é ü 名", "genre_preferences": {"x": 1.5}},
    ]
    assert insert_rows(Participant, rows, now=NOW, chunk=2) == 4
    stored = list(owned_example_study.participants.order_by("pk"))
    assert [p.code for p in stored] == [row["code"] for row in rows]
    assert [p.genre_preferences for p in stored] == [shared, shared, {}, {"x": 1.5}]
    assert [(p.age, p.skill) for p in stored] == [(None, "")] * 2 + [(30, "expert"), (None, "")]
    assert all(p.created_at == NOW and p.consent_at is None for p in stored)


@pytest.mark.django_db
def test_no_rows_insert_nothing(owned_example_study: Study) -> None:
    assert insert_rows(Participant, iter(()), now=NOW, chunk=10) == 0
    assert not owned_example_study.participants.exists()
