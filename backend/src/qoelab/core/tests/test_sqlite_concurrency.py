"""The embedded SQLite database takes concurrent writers (two polling screens) in turn."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from django.db import connections, transaction
from django.db.utils import ConnectionHandler

from qoelab.config import database_config

PROBE = "sqlite_concurrency_probe"


@pytest.fixture(autouse=True)
def no_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default is what these tests check: never the server named by DATABASE_URL (CI)."""
    monkeypatch.delenv("DATABASE_URL", raising=False)


def test_the_default_database_is_sqlite_with_immediate_transactions(tmp_path: Path) -> None:
    config = database_config(tmp_path / "db.sqlite3")
    assert config["OPTIONS"]["transaction_mode"] == "IMMEDIATE"
    assert "journal_mode=WAL" in config["OPTIONS"]["init_command"]


@pytest.mark.slow
def test_read_then_write_transactions_in_parallel_do_not_fail(
    tmp_path: Path, django_db_blocker: Any
) -> None:
    """Each thread reads, then writes, in one transaction — the pattern of a session GET
    that advances a timer. With deferred transactions SQLite raises "database is locked"
    for one of them; with BEGIN IMMEDIATE they queue."""
    django_db_blocker.unblock()  # a private database of this test, not the test database
    handler = ConnectionHandler({"default": database_config(tmp_path / "db.sqlite3")})
    setup = handler["default"]
    with setup.cursor() as cursor:
        cursor.execute("CREATE TABLE counter (n INTEGER)")
        cursor.execute("INSERT INTO counter VALUES (0)")
    setup.close()
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def worker() -> None:
        # Django's handler keeps connections per thread: bind this thread's probe connection
        # to an alias so transaction.atomic() — what the app's services use — drives it.
        connection = handler.create_connection("default")
        connections[PROBE] = connection
        try:
            start.wait()
            for _ in range(25):
                with transaction.atomic(using=PROBE), connection.cursor() as cursor:
                    cursor.execute("SELECT n FROM counter")
                    (value,) = cursor.fetchone()
                    cursor.execute("UPDATE counter SET n = %s", [value + 1])
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    check = handler.create_connection("default")
    with check.cursor() as cursor:
        cursor.execute("SELECT n FROM counter")
        assert cursor.fetchone() == (200,)
    check.close()
    django_db_blocker.restore()
