"""The poll's statement is prepared once per PostgreSQL connection (``runs/prepared.py``)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from qoelab.runs.prepared import prepared_cursor, prepares
from qoelab.runs.tests.conftest import Playing
from qoelab.runs.tests.test_poll_queries import poll_path

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="prepared statements: PostgreSQL only"
)


def poll_statements() -> list[str]:
    """This connection's protocol-level prepared statements that read a session by token."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements WHERE NOT from_sql")
        rows = cursor.fetchall()
    return [s for (s,) in rows if 'FROM "runs_session"' in s and '"token" = $1' in s]


@on_postgresql
def test_the_polls_statement_is_prepared_once_and_reused(playing: Playing) -> None:
    lab, session = playing
    screen = lab.screen(session)
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")  # psycopg forgets its prepared statements too
    assert poll_statements() == []
    first = screen.get(poll_path(session))
    assert first.status_code == 200
    assert len(poll_statements()) == 1
    with CaptureQueriesContext(connection) as queries:
        again = screen.get(poll_path(session), HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert len(queries) == 1  # still one query, and still seen by Django's query log
    assert len(poll_statements()) == 1  # the same statement, not a second one


@on_postgresql
@pytest.mark.django_db
def test_a_prepared_cursor_answers_as_the_plain_one() -> None:
    sql = "SELECT %s::int + 1, %s::text"
    with connection.cursor() as plain:
        plain.execute(sql, [41, "x"])
        expected = plain.fetchall()
    for _ in range(2):  # prepared on the first execution, reused on the second
        with prepared_cursor(connection) as cursor:
            cursor.execute(sql, [41, "x"])
            assert cursor.fetchall() == expected


def test_other_databases_get_the_plain_cursor(monkeypatch: Any) -> None:
    assert prepares(SimpleNamespace(vendor="sqlite")) is False  # type: ignore[arg-type]
    plain = object()
    fake = SimpleNamespace(vendor="sqlite", cursor=lambda: plain)
    assert prepared_cursor(fake) is plain  # type: ignore[arg-type]
