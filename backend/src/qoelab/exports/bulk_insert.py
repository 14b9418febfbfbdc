"""Many rows of one model in few statements: ``COPY`` on PostgreSQL, ``executemany`` else.

Django's ``bulk_create`` prepares every field of every object through the ORM, which took
most of a 40,000-row import's time. Here a row is a dict of attribute names (``session_id``
for a foreign key). A field left out gets its default (a callable default is called per
row), ``auto_now``/``auto_now_add`` fields ``now``. No signals and no ``save()`` run,
exactly as with ``bulk_create``.

PostgreSQL (issue 16, profile of a 100,000-row import): the rows are formatted as COPY text
here (psycopg's per-value dumpers cost more than the rest of the write), and a JSON value
is parsed by the server once, not once per row: an import shares a few profiles and
provenances among all its ratings, and parsing 600 bytes of ``jsonb`` per row was the
server's largest cost. So the rows go by ``COPY`` into a temporary staging table that
holds a number per JSON value, the distinct JSON values into one small table per JSON
column, and one ``INSERT … SELECT`` joins them into the model's table. Without an
``ORDER BY``: sorting the joined rows (600 bytes each) spilled 90 MB to disk and tripled
the statement's time. The stage is scanned in the order it was written and the small
tables are hashed (both numbered in the rows' order besides), so ids follow the rows in
practice; nothing reads meaning into their order (ratings are ordered by session and
``order_index``). Temporary tables are dropped at the end of the transaction (call inside
one).

SQLite runs in the process: one statement executed for many rows (``executemany``), a JSON
value prepared once per object and a date/time once per value.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date, datetime
from itertools import chain
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
_NULL = "\\N"
#: Characters COPY's text format escapes with a backslash (PostgreSQL docs, COPY, "Text
#: Format"); every other character stands for itself.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})
_STAGE = "qoelab_insert_stage"


def _shared_once(prepare: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``prepare`` called once per object (by identity): an import shares a few JSON
    objects among all its rows. The cache holds the object, so its id cannot be reused by
    another while the insert runs."""
    cache: dict[int, tuple[Any, Any]] = {}

    def once(value: Any) -> Any:
        known = cache.get(id(value))
        if known is None or known[0] is not value:
            known = cache[id(value)] = (value, prepare(value))
        return known[1]

    return once


def _converter(field: models.Field[Any, Any], now: datetime) -> Callable[[Any], Any]:
    """Python value → what the driver takes, for one field (defaults filled in)."""
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        fixed = field.get_db_prep_save(now, connection)
        return lambda value: fixed if value is _MISSING else prepare(value)
    cache: dict[Any, Any] = {}
    is_json = isinstance(field, models.JSONField)
    plain = isinstance(field, _PLAIN) and not is_json
    json_once = _shared_once(lambda value: field.get_db_prep_save(value, connection))

    def prepare(value: Any) -> Any:
        if plain:
            return value
        if is_json:
            return json_once(value)
        if value not in cache:
            cache[value] = field.get_db_prep_save(value, connection)
        return cache[value]

    if field.has_default() and callable(field.default):
        return lambda value: prepare(field.get_default() if value is _MISSING else value)
    # Django's own default: the declared one, else "" for text, else None.
    fixed_default = prepare(field.get_default())
    return lambda value: fixed_default if value is _MISSING else prepare(value)


def copy_text(value: Any) -> str:
    """A prepared value as a cell of COPY's text format (``\\N`` is NULL)."""
    if value is None:
        return _NULL
    if value is True or value is False:
        return "t" if value else "f"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    text = str(value)
    if "\\" in text or "\t" in text or "\n" in text or "\r" in text:
        return text.translate(_COPY_ESCAPES)
    return text


class _JsonRefs:
    """The distinct values of one JSON column, numbered in order of first use."""

    def __init__(self, field: models.JSONField[Any, Any]) -> None:
        self.field = field
        self.texts: list[str] = []
        self.ref = _shared_once(self._add)

    def _add(self, value: Any) -> str:
        if value is None:
            return _NULL
        self.texts.append(copy_text(json.dumps(value, cls=self.field.encoder)))
        return str(len(self.texts))


def _text_cell(value: Any) -> str:
    """A text field's COPY cell (the common case, a str without special characters, first)."""
    if value.__class__ is str:
        if "\\" in value or "\t" in value or "\n" in value or "\r" in value:
            return value.translate(_COPY_ESCAPES)
        return value
    return copy_text(value)


def _copy_converter(
    field: models.Field[Any, Any], now: datetime, refs: dict[str, _JsonRefs]
) -> tuple[Callable[[Any], str], Callable[[Any], str]]:
    """For one field: Python value → its COPY text (a JSON value → the number of its
    distinct value in ``refs``), and the same with the field's default for ``_MISSING``."""
    text: Callable[[Any], str]
    if isinstance(field, models.JSONField):
        refs[str(field.column)] = _JsonRefs(field)
        text = refs[str(field.column)].ref
    elif isinstance(field, models.BooleanField):
        text = lambda value: _NULL if value is None else ("t" if value else "f")  # noqa: E731
    elif isinstance(field, models.IntegerField | models.FloatField | models.ForeignKey):
        # a NULL in a NOT NULL column fails in the database either way ("None" is no number)
        text = (lambda value: _NULL if value is None else str(value)) if field.null else str
    elif isinstance(field, models.CharField | models.TextField):
        text = _text_cell
    else:
        cache: dict[Any, str] = {}

        def text(value: Any) -> str:
            if value not in cache:
                cache[value] = copy_text(field.get_db_prep_save(value, connection))
            return cache[value]

    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        fixed = text(now)
        return text, lambda value: fixed if value is _MISSING else text(value)
    if field.has_default() and callable(field.default):
        return text, lambda value: text(field.get_default() if value is _MISSING else value)
    fixed_default = text(field.get_default())
    return text, lambda value: fixed_default if value is _MISSING else text(value)


def insert_rows(
    model: type[models.Model], rows: Iterable[Mapping[str, Any]], *, now: datetime, chunk: int
) -> int:
    """Insert ``rows`` (attribute name → value) ``chunk`` at a time; returns the count."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    if connection.vendor == "postgresql":
        return _copy_rows(model, fields, rows, now=now, chunk=chunk)
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(str(f.column)) for f in fields)
    converters = [(f.attname, _converter(f, now)) for f in fields]
    values = (
        tuple(convert(row.get(name, _MISSING)) for name, convert in converters) for row in rows
    )
    sql = f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})"
    count = 0
    with connection.cursor() as cursor:
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


def _copy_lines(
    fields: list[models.Field[Any, Any]],
    rows: Iterator[Mapping[str, Any]],
    now: datetime,
    refs: dict[str, _JsonRefs],
) -> tuple[list[models.Field[Any, Any]], Iterator[str]]:
    """The columns in COPY order and the rows as COPY text lines.

    The fields the first row names come first, converted per row; the fields it leaves to
    a fixed default follow as one constant tail (a row naming other fields takes the slow
    path, field by field)."""
    converters = {f.attname: _copy_converter(f, now, refs) for f in fields}
    first = next(rows, None)
    if first is None:
        return fields, iter(())
    given = [f for f in fields if f.attname in first]
    fixed = [
        f
        for f in fields
        if f.attname not in first
        and not (f.has_default() and callable(f.default))
        and not getattr(f, "auto_now", False)
        and not getattr(f, "auto_now_add", False)
    ]
    called = [f for f in fields if f not in given and f not in fixed]
    ordered = [*given, *fixed, *called]
    keys = {f.attname for f in given}
    # a given field's value is never _MISSING: its bare converter
    given_converters = [(f.attname, converters[f.attname][0]) for f in given]
    tail = "".join("\t" + converters[f.attname][1](_MISSING) for f in fixed)
    called_converters = [converters[f.attname][1] for f in called]
    all_converters = [(f.attname, converters[f.attname][1]) for f in ordered]

    def lines() -> Iterator[str]:
        for row in chain([first], rows):
            if row.keys() == keys:
                head = "\t".join([convert(row[name]) for name, convert in given_converters])
                rest = "".join(["\t" + convert(_MISSING) for convert in called_converters])
                yield f"{head}{tail}{rest}\n"
            else:
                cells = [convert(row.get(name, _MISSING)) for name, convert in all_converters]
                yield "\t".join(cells) + "\n"

    return ordered, lines()


def _copy_rows(
    model: type[models.Model],
    fields: list[models.Field[Any, Any]],
    rows: Iterable[Mapping[str, Any]],
    *,
    now: datetime,
    chunk: int,
) -> int:
    quote = connection.ops.quote_name
    refs: dict[str, _JsonRefs] = {}
    ordered, lines = _copy_lines(fields, iter(rows), now, refs)
    stage_columns = [
        f"{quote(str(f.column))} {'integer' if f.column in refs else f.db_type(connection)}"
        for f in ordered
    ]
    count = 0
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {_STAGE}")
        cursor.execute(
            f"CREATE TEMPORARY TABLE {_STAGE} ({', '.join(stage_columns)}) ON COMMIT DROP"
        )
        names = ", ".join(quote(str(f.column)) for f in ordered)
        with cursor.cursor.copy(f"COPY {_STAGE} ({names}) FROM STDIN") as stream:
            batch: list[str] = []
            for line in lines:
                batch.append(line)
                if len(batch) == chunk:
                    stream.write("".join(batch))
                    count += len(batch)
                    batch = []
            if batch:
                stream.write("".join(batch))
                count += len(batch)
        joins: list[str] = []
        selected: list[str] = []
        for f in ordered:
            column = quote(str(f.column))
            if f.column not in refs:
                selected.append(f"s.{column}")
                continue
            values = quote(f"{_STAGE}_{f.column}")
            cursor.execute(f"DROP TABLE IF EXISTS {values}")
            cursor.execute(
                f"CREATE TEMPORARY TABLE {values} (ref integer PRIMARY KEY, doc jsonb) "
                "ON COMMIT DROP"
            )
            with cursor.cursor.copy(f"COPY {values} (ref, doc) FROM STDIN") as stream:
                texts = refs[f.column].texts
                for start in range(0, len(texts), chunk):
                    stream.write(
                        "".join(
                            f"{start + i + 1}\t{text}\n"
                            for i, text in enumerate(texts[start : start + chunk])
                        )
                    )
            alias = f"j{len(joins)}"
            joins.append(f"LEFT JOIN {values} {alias} ON {alias}.ref = s.{column}")
            selected.append(f"{alias}.doc")
        cursor.execute(
            f"INSERT INTO {quote(model._meta.db_table)} ({names}) "
            f"SELECT {', '.join(selected)} FROM {_STAGE} s {' '.join(joins)}"
        )
        for f in ordered:
            if f.column in refs:
                cursor.execute(f"DROP TABLE {quote(f'{_STAGE}_{f.column}')}")
        cursor.execute(f"DROP TABLE {_STAGE}")
    return count
