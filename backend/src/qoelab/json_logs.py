"""Structured logs for production (docs/deploy.md): one JSON object per line, for Django,
Celery and gunicorn alike (qoelab.settings LOGGING, deploy/gunicorn.conf.py)."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

__all__ = ["JsonLogFormatter"]


class JsonLogFormatter(logging.Formatter):
    """Structured logs: one JSON object per line (time, level, logger, message, extras)."""

    STANDARD_ATTRIBUTES = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(
                timespec="milliseconds"
            ),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        for key, value in vars(record).items():  # `extra=` fields, e.g. Django's status_code
            if key not in self.STANDARD_ATTRIBUTES and not key.startswith("_"):
                plain = isinstance(value, str | int | float | bool) or value is None
                entry[key] = value if plain else repr(value)
        return json.dumps(entry, ensure_ascii=False, default=repr)
