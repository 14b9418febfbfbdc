"""The CSV import's cells and its one error: a refused file, with the line at fault, or
every problem found (issue 32: all at once, capped, never a Python repr in a message)."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from qoelab.core.errors import BadRequest

YES = {"yes", "true", "1"}
NO = {"no", "false", "0"}

#: Problems an import lists (the rest are counted: "… and N more"), as the dataset loader's
#: text lists them (qoe_analysis.dataset.problems.MOST_SHOWN).
MOST_LISTED = 50

#: A reason that starts with a column's name ("rating: 9 is greater than …").
_COLUMN_REASON = re.compile(r"^([a-z][a-z0-9_]*): ")
#: A numpy scalar's repr (``np.float64(100.0)``, ``np.str_('x')``): its value is shown.
_NUMPY_REPR = re.compile(r"\bnp\.[a-z_]+[0-9]*\(([^()]*)\)")


def plain_text(message: str) -> str:
    """``message`` without numpy scalar reprs: ``np.float64(100.0)`` reads ``100.0``."""
    return _NUMPY_REPR.sub(r"\1", message)


def quoted(value: Any) -> str:
    """A cell's text in quotes for a message (never a Python repr): ``'Player 1'``."""
    return f"'{value}'"


class ImportRejected(BadRequest):
    """The file is refused as a whole; answered as
    ``{"detail": "line N: reason", "line": N, "column": "name" or null}``.

    ``column`` is the column at fault: given, or the column a reason starts with (every
    cell check words its reason as ``"<column>: …"``). :meth:`every` joins several
    problems into one refusal that also lists them (``problems``, ``more``)."""

    def __init__(self, message: str, line: int | None = None, column: str | None = None) -> None:
        self.line = line
        message = plain_text(message)
        match = _COLUMN_REASON.match(message)
        self.column = column if column is not None else (match.group(1) if match else None)
        self.reason = message
        self.problems: list[ImportRejected] = []
        self.total = 1
        super().__init__(f"line {line}: {message}" if line is not None else message)

    @classmethod
    def every(cls, problems: Sequence[ImportRejected], total: int) -> ImportRejected:
        """One refusal for ``total`` problems (the first of them in ``problems``): the
        first's line and column, a text that lists up to :data:`MOST_LISTED` of them and
        says how many more there are."""
        if total == 1 and len(problems) == 1:
            return problems[0]
        shown = list(problems[:MOST_LISTED])
        more = total - len(shown)
        lines = [str(p) for p in shown] + ([f"… and {more} more"] if more else [])
        first = shown[0]
        joined = cls(f"{total} problems:\n" + "\n".join(lines), None, first.column)
        joined.line = first.line
        joined.problems, joined.total = shown, total
        return joined

    def problem(self) -> dict[str, Any]:
        """This problem in the dataset import's shape (file, line, column, value, rule)."""
        prefix = f"{self.column}: "
        rule = self.reason.removeprefix(prefix) if self.column else self.reason
        return {"file": None, "line": self.line, "column": self.column, "value": None, "rule": rule}

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"detail": str(self), "line": self.line, "column": self.column}
        if self.problems:
            body["problems"] = [p.problem() for p in self.problems]
            body["more"] = self.total - len(self.problems)
        return body


def number_cell(row: dict[str, str], column: str, line: int) -> float:
    raw = (row.get(column) or "").strip()
    try:
        value = float(raw)
    except ValueError:
        raise ImportRejected(f"{column}: {quoted(raw)} is not a number", line) from None
    if not math.isfinite(value):
        raise ImportRejected(f"{column}: {quoted(raw)} is not a finite number", line)
    return value


def bool_cell(raw: str, column: str, line: int) -> bool:
    if raw.lower() in YES:
        return True
    if raw.lower() in NO:
        return False
    raise ImportRejected(f"{column}: {quoted(raw)} is not yes or no", line)
