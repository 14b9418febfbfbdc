"""A dataset's problems as the API shows them: every one found, listed at once and capped.

The loader (:mod:`qoe_analysis.dataset.problems`) finds every problem of a dataset and its
descriptor: ``(file, line, column, value, rule)``. The API lists those the loader's text lists
(:func:`qoe_analysis.dataset.problems.shown_problems`: the same order and caps) and says how
many more there are (``more``), so the web import and the CLI show the same list.

Standard library only (the loader's problems module is too): imported by the web process.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from qoe_analysis.dataset.problems import Problem, shown_problems

from qoelab.core.errors import BadRequest

__all__ = ["DatasetRefused", "capped", "headline", "problem"]


def problem(
    rule: str,
    *,
    file: str | None = None,
    line: int | None = None,
    column: str | None = None,
    value: str | None = None,
) -> Problem:
    """One problem of the upload (a file missing, a limit passed…), as the loader's."""
    return Problem(file, line, column, value, rule)


def capped(
    problems: Sequence[Problem], total: int | None = None
) -> tuple[list[dict[str, Any]], int]:
    """``(listed, more)``: the problems to list, as JSON, and how many of ``total`` (all the
    problems found, default ``len(problems)``) are left out."""
    total = len(problems) if total is None else max(total, len(problems))
    listed = [item.to_dict() for item in shown_problems(problems)]
    return listed, total - len(listed)


def headline(problems: Sequence[Problem], total: int | None = None) -> str:
    """The one-line text: how many problems, and the first of them."""
    total = len(problems) if total is None else max(total, len(problems))
    if not problems:
        return "the dataset cannot be imported"
    first = problems[0].text()
    if total == 1:
        return f"the dataset cannot be imported: {first}"
    return f"the dataset cannot be imported: {total} problems, the first: {first}"


class DatasetRefused(BadRequest):
    """The upload is refused before any job: ``{"detail", "problems", "more"}`` (400)."""

    def __init__(self, problems: Sequence[Problem], total: int | None = None) -> None:
        self.problems = list(problems)
        self.total = len(self.problems) if total is None else max(total, len(self.problems))
        super().__init__(headline(self.problems, self.total))

    def body(self) -> dict[str, Any]:
        listed, more = capped(self.problems, self.total)
        return {"detail": str(self), "problems": listed, "more": more}
