"""The CSV import's cells and its one error: a refused file, with the line at fault."""

from __future__ import annotations

import math
import re
from typing import Any

from qoelab.core.errors import BadRequest

YES = {"yes", "true", "1"}
NO = {"no", "false", "0"}


#: A reason that starts with a column's name ("rating: 9 is greater than …").
_COLUMN_REASON = re.compile(r"^([a-z][a-z0-9_]*): ")


class ImportRejected(BadRequest):
    """The file is refused as a whole; answered as
    ``{"detail": "line N: reason", "line": N, "column": "name" or null}``.

    ``column`` is the column at fault: given, or the column a reason starts with (every
    cell check words its reason as ``"<column>: …"``)."""

    def __init__(self, message: str, line: int | None = None, column: str | None = None) -> None:
        self.line = line
        match = _COLUMN_REASON.match(message)
        self.column = column if column is not None else (match.group(1) if match else None)
        super().__init__(f"line {line}: {message}" if line is not None else message)

    def body(self) -> dict[str, Any]:
        return {"detail": str(self), "line": self.line, "column": self.column}


def number_cell(row: dict[str, str], column: str, line: int) -> float:
    raw = (row.get(column) or "").strip()
    try:
        value = float(raw)
    except ValueError:
        raise ImportRejected(f"{column}: {raw!r} is not a number", line) from None
    if not math.isfinite(value):
        raise ImportRejected(f"{column}: {raw!r} is not a finite number", line)
    return value


def bool_cell(raw: str, column: str, line: int) -> bool:
    if raw.lower() in YES:
        return True
    if raw.lower() in NO:
        return False
    raise ImportRejected(f"{column}: {raw!r} is not yes or no", line)
