"""A Django cursor whose statements PostgreSQL parses and plans once per connection.

Django's psycopg 3 backend binds parameters on the client (``ClientCursor``) and turns
psycopg's preparation off (``prepare_threshold=None``, for connection poolers), so
PostgreSQL parses and plans every query anew. For the participant's poll — one
four-table query, ~500 times a second in the live lab (issue 16, goal 3) — that planning
is most of the database's work: on this project's 2-core machine the poll's query cost the
backend 0.28–0.35 ms of CPU with client-side binding and 0.043 ms prepared (3,000
executions each, ``docs/performance.md``, live lab, fourth round).

:func:`prepared_cursor` gives a cursor of Django's own kind (the debug wrapper when queries
are logged, so ``CaptureQueriesContext`` still sees the query) around a psycopg
server-binding cursor that executes with ``prepare=True``: psycopg prepares the statement
on its first execution on a connection and reuses it afterwards (psycopg's per-connection
cache of prepared statements). psycopg prepares nothing while the connection's
``prepare_threshold`` is None, even when asked, so the first such cursor sets it to a
count no query reaches: statements are prepared only where ``prepare=True`` asks for it
(Django's client-binding cursors never prepare), and psycopg keeps its cache honest as it
always does (it drops the prepared statements after a ``ROLLBACK``, ``DROP`` or
``ALTER``). The SQL text Django compiled with ``%s`` placeholders is
valid for both kinds of cursor. Prepared statements live as long as the connection
(``CONN_MAX_AGE``); behind PgBouncer in transaction mode they need PgBouncer 1.21 or newer
with ``max_prepared_statements`` set (docs/deploy.md). Other databases (SQLite) get the
plain cursor.
"""

from __future__ import annotations

import sys
from typing import Any

from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from psycopg import Cursor

#: psycopg prepares a statement after this many executions unless asked: never.
ONLY_WHEN_ASKED = sys.maxsize


class PreparingCursor(Cursor[Any]):
    """psycopg's server-binding cursor, preparing every statement it executes."""

    def execute(  # the same call, with prepare forced on
        self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: Any = None
    ) -> PreparingCursor:
        super().execute(query, params, prepare=True, binary=binary)
        return self


class PreparedDebugWrapper(CursorDebugWrapper):
    """Django's query log (``DEBUG``, ``CaptureQueriesContext``) for prepared executions:
    the statement with its parameters composed, as Django logs it under its own
    ``server_side_binding`` option. Its default reads psycopg's text of the last
    client-side query, which a prepared execution does not set (it would log None)."""

    def execute(self, sql: Any, params: Any = None) -> Any:
        with self.debug_sql(self.db.ops.compose_sql(sql, params), params):
            return CursorWrapper.execute(self, sql, params)


def prepares(connection: BaseDatabaseWrapper) -> bool:
    """Whether :func:`prepared_cursor` prepares on this connection (PostgreSQL, psycopg 3)."""
    if connection.vendor != "postgresql":
        return False
    from django.db.backends.postgresql.psycopg_any import is_psycopg3

    return bool(is_psycopg3)


def prepared_cursor(connection: BaseDatabaseWrapper) -> CursorWrapper:
    """What ``connection.cursor()`` returns, with statements prepared (module docstring);
    the same steps as Django's ``BaseDatabaseWrapper._cursor``: the health check, the
    connection, the thread check, the wrapper that logs queries when they are logged."""
    if not prepares(connection):
        return connection.cursor()
    connection.close_if_health_check_failed()
    connection.ensure_connection()
    connection.validate_thread_sharing()
    with connection.wrap_database_errors:
        raw = connection.connection
        if raw.prepare_threshold is None:
            raw.prepare_threshold = ONLY_WHEN_ASKED
        cursor = PreparingCursor(raw)
    if connection.queries_logged:
        return PreparedDebugWrapper(cursor, connection)
    return CursorWrapper(cursor, connection)
