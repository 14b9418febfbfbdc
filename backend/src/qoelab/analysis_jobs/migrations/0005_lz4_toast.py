"""The job's large columns (the input CSV, a few MB for 1,000 participants, and the result
document, about 1.5 MB) compressed with LZ4 instead of PostgreSQL's default pglz.

PostgreSQL ≥ 14 compresses a large value when it is stored (TOAST); LZ4 is several times
faster at it than pglz for a slightly larger size (PostgreSQL documentation,
"ALTER TABLE … SET COMPRESSION", and "default_toast_compression"). Measured on the bench's
study (issue 16): the two writes of a fresh analysis about 60 ms faster under load. Only
values stored later are affected. A server without LZ4 support (built without it, or
older than 14) keeps pglz: the statement's error is caught. Nothing to do on SQLite.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

COLUMNS = ("input_csv", "result")


def _set_compression(apps: Any, schema_editor: Any, method: str) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    quote = schema_editor.quote_name
    table = quote(apps.get_model("analysis_jobs", "AnalysisJob")._meta.db_table)
    for column in COLUMNS:
        statement = f"ALTER TABLE {table} ALTER COLUMN {quote(column)} SET COMPRESSION {method}"
        schema_editor.execute(
            f"DO $$ BEGIN EXECUTE '{statement}'; EXCEPTION WHEN OTHERS THEN NULL; END $$"
        )


def use_lz4(apps: Any, schema_editor: Any) -> None:
    _set_compression(apps, schema_editor, "lz4")


def use_default(apps: Any, schema_editor: Any) -> None:
    _set_compression(apps, schema_editor, "default")


class Migration(migrations.Migration):
    dependencies = [("analysis_jobs", "0004_data_version_cache_key")]

    operations = [migrations.RunPython(use_lz4, use_default)]
