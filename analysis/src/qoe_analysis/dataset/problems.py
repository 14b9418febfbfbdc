"""The problems of a dataset and its descriptor, reported all at once (issue 32, item 3).

A :class:`Problem` locates one fault: the file (a data file, or the descriptor), the line
(1-based, the header is line 1; ``None`` when not tied to a line), the column (a data
column, which is also the descriptor field's ``name``), the value found and the rule it
breaks, worded as the rule ("a rating of 'QoE' is an integer from 0 to 6"). The loader
collects every problem in a :class:`Problems` list before it gives up, and raises one
:class:`DatasetError` carrying them all; its text lists them capped at a readable number
(:data:`MOST_SHOWN`, at most :data:`MOST_PER_COLUMN` per file and column) and says how many
more there are. Values are quoted as text (never a Python repr) and cut at
:data:`VALUE_CHARS` characters.

Standard library only: the CLI imports this module at start-up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MOST_PER_COLUMN",
    "MOST_SHOWN",
    "DatasetError",
    "Problem",
    "Problems",
    "quoted",
    "shown_problems",
]

#: how many problems the text of a :class:`DatasetError` lists
MOST_SHOWN = 50
#: how many of them may concern one file and column (the rest are counted)
MOST_PER_COLUMN = 10
#: a quoted value is cut to this many characters
VALUE_CHARS = 40
#: problems kept in memory; beyond this they are only counted
_MOST_KEPT = 5000


def quoted(value: Any) -> str:
    """``value`` as a quoted text, cut at :data:`VALUE_CHARS` characters: 'Player 1'."""
    text = str(value)
    if len(text) > VALUE_CHARS:
        text = text[: VALUE_CHARS - 1] + "…"
    return f"'{text}'"


@dataclass(frozen=True)
class Problem:
    """One fault of the input: where it is, what was found, the rule it breaks."""

    file: str | None
    line: int | None
    column: str | None
    value: str | None
    rule: str

    def text(self) -> str:
        """One line: ``wired_a.csv, line 12, column 'QoE', value '7': <rule>``."""
        where = [
            part
            for part in (
                self.file,
                None if self.line is None else f"line {self.line}",
                None if self.column is None else f"column {quoted(self.column)}",
                None if self.value is None else f"value {quoted(self.value)}",
            )
            if part is not None
        ]
        return f"{', '.join(where)}: {self.rule}" if where else self.rule

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the web import shows the same fields)."""
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "value": self.value,
            "rule": self.rule,
        }


def shown_problems(problems: Sequence[Problem]) -> list[Problem]:
    """The problems to list, in reading order (file by file as first met, each by line; a
    file's own problems, line None, first), at most :data:`MOST_SHOWN` and at most
    :data:`MOST_PER_COLUMN` per file and column: the CLI's text and the web import's list."""
    files = {name: i for i, name in enumerate(dict.fromkeys(p.file for p in problems))}
    ordered = sorted(problems, key=lambda p: (files[p.file], p.line or 0))
    shown: list[Problem] = []
    per_column: dict[tuple[str | None, str | None], int] = {}
    for problem in ordered:
        if len(shown) == MOST_SHOWN:
            break
        key = (problem.file, problem.column)
        per_column[key] = per_column.get(key, 0) + 1
        if per_column[key] <= MOST_PER_COLUMN:
            shown.append(problem)
    return shown


class Problems:
    """A growing list of problems (the first :data:`_MOST_KEPT` kept, every one counted)."""

    def __init__(self) -> None:
        self.items: list[Problem] = []
        self.count = 0

    def add(
        self,
        rule: str,
        *,
        file: str | None = None,
        line: int | None = None,
        column: str | None = None,
        value: Any = None,
    ) -> None:
        self.count += 1
        if len(self.items) < _MOST_KEPT:
            text = None if value is None else str(value)
            self.items.append(Problem(file, line, column, text, rule))

    def extend(self, problems: Iterable[Problem]) -> None:
        for problem in problems:
            self.count += 1
            if len(self.items) < _MOST_KEPT:
                self.items.append(problem)

    def __bool__(self) -> bool:
        return self.count > 0

    def raise_if_any(self) -> None:
        """Raise :class:`DatasetError` with every problem so far, if there is one."""
        if self.count:
            raise DatasetError(self.items, total=self.count)


class DatasetError(ValueError):
    """The dataset cannot be read as its descriptor says: ``problems`` lists every fault
    found (``total`` counts them, including those beyond the kept list)."""

    def __init__(self, problems: list[Problem], *, total: int | None = None) -> None:
        self.problems = list(problems)
        self.total = len(self.problems) if total is None else max(total, len(self.problems))
        super().__init__(self.text())

    def lines(self) -> list[str]:
        """The problems as lines, capped (:func:`shown_problems`), then "… and N more
        problems"."""
        shown = [problem.text() for problem in shown_problems(self.problems)]
        hidden = self.total - len(shown)
        if hidden:
            shown.append(f"… and {hidden} more problem{'s' if hidden != 1 else ''}")
        return shown

    def headline(self) -> str:
        return f"{self.total} problem{'s' if self.total != 1 else ''}"

    def text(self) -> str:
        return "\n".join([f"{self.headline()}:", *self.lines()])
