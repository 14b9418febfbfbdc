"""Many rows of one model in few statements: ``INSERT … VALUES`` by ``executemany``.

Django's ``bulk_create`` prepares every field of every object through the ORM, which took
most of a 40,000-row import's time. Here a row is a dict of attribute names (``session_id``
for a foreign key); plain values (numbers, text, booleans, None, ids) go to the driver as
they are, a JSON value is prepared once per object and a date/time once per value (an
import shares a few profiles among all its ratings and writes one time). A field left out
gets its default (a callable default is called per row), ``auto_now``/``auto_now_add``
fields ``now``. No signals and no ``save()`` run, exactly as with ``bulk_create``. On
PostgreSQL the rows go by ``COPY``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from django.db import connection, models

_PLAIN = (
    models.IntegerField,
    models.CharField,
    models.TextField,
    models.BooleanField,
    models.FloatField,
    models.ForeignKey,
)
_MISSING = object()


def _converter(
    field: models.Field[Any, Any], now: datetime, *, json_text: bool
) -> Callable[[Any], Any]:
    """Python value → what the driver takes, for one field (defaults filled in); a JSON
    value as its JSON text with ``json_text`` (PostgreSQL's COPY parses it)."""
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        fixed = field.get_db_prep_save(now, connection)
        return lambda value: fixed if value is _MISSING else prepare(value)
    cache: dict[Any, Any] = {}
    is_json = isinstance(field, models.JSONField)
    plain = isinstance(field, _PLAIN) and not is_json

    def prepare(value: Any) -> Any:
        if plain:
            return value
        if is_json:
            # The same object (an import's shared profile) is prepared once; the cache holds
            # the object, so its id cannot be reused by another while the insert runs.
            known = cache.get(id(value))
            if known is None or known[0] is not value:
                prepared = (
                    json.dumps(value, cls=field.encoder)  # type: ignore[attr-defined]
                    if json_text
                    else field.get_db_prep_save(value, connection)
                )
                known = cache[id(value)] = (value, prepared)
            return known[1]
        if value not in cache:
            cache[value] = field.get_db_prep_save(value, connection)
        return cache[value]

    if field.has_default() and callable(field.default):
        return lambda value: prepare(field.get_default() if value is _MISSING else value)
    # Django's own default: the declared one, else "" for text, else None.
    fixed_default = prepare(field.get_default())
    return lambda value: fixed_default if value is _MISSING else prepare(value)


def insert_rows(
    model: type[models.Model], rows: Iterable[Mapping[str, Any]], *, now: datetime, chunk: int
) -> int:
    """Insert ``rows`` (attribute name → value) ``chunk`` at a time; returns the count.

    SQLite runs in the process: one statement executed for many rows (``executemany``).
    PostgreSQL would cost a round trip per row that way (and a statement with thousands of
    parameters is slow to build): there the rows are streamed with ``COPY … FROM STDIN``."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(str(f.column)) for f in fields)
    copy = connection.vendor == "postgresql"
    converters = [(f.attname, _converter(f, now, json_text=copy)) for f in fields]
    values = (
        tuple(convert(row.get(name, _MISSING)) for name, convert in converters) for row in rows
    )
    count = 0
    with connection.cursor() as cursor:
        if copy:
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as stream:
                for record in values:
                    stream.write_row(record)
                    count += 1
            return count
        sql = f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})"
        batch: list[tuple[Any, ...]] = []
        for record in values:
            batch.append(record)
            if len(batch) == chunk:
                cursor.executemany(sql, batch)
                count += len(batch)
                batch = []
        if batch:
            cursor.executemany(sql, batch)
            count += len(batch)
    return count
