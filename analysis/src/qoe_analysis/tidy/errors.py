"""The error of ratings validation, the list its checks fill, and the helpers that locate a
problem by CSV line.

Validation reports every problem it finds at once (issue 32, item 3): the checks record
their problems in a :class:`Found` (the dataset loader's :class:`Problem` records) and
:meth:`Found.raise_if_any` raises one :class:`RatingsValidationError` for them all. A
check called on its own (``found`` left ``None``) raises at its first problem, as before.

Standard library only at import time: the CLI imports this module at start-up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from qoe_analysis.dataset.problems import MOST_SHOWN, Problem, Problems, shown_problems

if TYPE_CHECKING:
    import numpy as np

__all__ = ["Found", "RatingsValidationError", "fail_at", "line_of"]


def _placed(message: str, column: str | None, line: int | None) -> str:
    """``column 'x', line N: message`` (the parts that are known)."""
    where = []
    if column is not None:
        where.append(f"column '{column}'")
    if line is not None:
        where.append(f"line {line}")
    return f"{', '.join(where)}: {message}" if where else message


def _listing(problems: Sequence[Problem], total: int) -> str:
    """``N problems:`` then the capped list (:func:`shown_problems`, the dataset loader's
    order and caps) and "… and N more problems"."""
    shown = [problem.text() for problem in shown_problems(problems)]
    hidden = total - len(shown)
    if hidden:
        shown.append(f"… and {hidden} more problem{'s' if hidden != 1 else ''}")
    return "\n".join([f"{total} problems:", *shown])


class RatingsValidationError(ValueError):
    """Raised for unusable ratings input; ``column`` and ``line`` locate the (first) problem.

    ``line`` is the 1-based line of the CSV file (header = line 1), or ``None`` when the
    table did not come from a file or the problem is not tied to a line. ``problems``
    holds every problem found (:class:`~qoe_analysis.dataset.problems.Problem`, the first
    few thousand; ``total`` counts them all). With one problem the text is
    ``column 'x', line N: message``; with more it lists them, capped, one a line, and
    ``column``/``line`` are those of the first one listed.
    """

    def __init__(
        self,
        message: str,
        *,
        column: str | None = None,
        line: int | None = None,
        problems: Sequence[Problem] | None = None,
        total: int | None = None,
    ):
        self.problems = list(problems) if problems else [Problem(None, line, column, None, message)]
        self.total = max(total or 0, len(self.problems))
        if self.total > 1:
            first = shown_problems(self.problems)[0]
            column, line = first.column, first.line
            message = _listing(self.problems, self.total)
        super().__init__(message if self.total > 1 else _placed(message, column, line))
        self.column = column
        self.line = line


class Found:
    """The problems one validation has found so far (every one counted)."""

    def __init__(self) -> None:
        self.problems = Problems()

    def __bool__(self) -> bool:
        return bool(self.problems)

    def add(self, message: str, *, column: str | None = None, line: int | None = None) -> None:
        self.problems.add(message, column=column, line=line)

    def extend(self, error: RatingsValidationError) -> None:
        """Take over the problems of an error a shared helper raised."""
        self.problems.extend(error.problems)
        self.problems.count += error.total - len(error.problems)

    def add_rows(
        self,
        positions: Sequence[int],
        count: int,
        where: tuple[str, int | None],
        describe: Callable[[int], str],
    ) -> None:
        """Record ``count`` faulty rows of the column ``where[0]`` (``where[1]``: the line
        of the first data row), worded by ``describe(position)``; ``positions`` holds the
        first of them, ascending.

        At most :data:`MOST_SHOWN` rows are worded (an error lists no more of one column);
        the rest are counted."""
        column, first_line = where
        for pos in positions[:MOST_SHOWN]:
            suffix = "" if first_line is not None else f" (row {pos})"
            self.add(describe(pos) + suffix, column=column, line=line_of(first_line, pos))
        self.problems.count += max(0, count - min(len(positions), MOST_SHOWN))

    def raise_if_any(self) -> None:
        """Raise one :class:`RatingsValidationError` for every problem found, if any."""
        if self.problems:
            first = self.problems.items[0]
            raise RatingsValidationError(
                first.rule,
                column=first.column,
                line=first.line,
                problems=self.problems.items,
                total=self.problems.count,
            )


def line_of(first_line: int | None, position: int) -> int | None:
    return None if first_line is None else first_line + position


def fail_at(
    mask: np.ndarray[Any, np.dtype[np.bool_]],
    column: str,
    first_line: int | None,
    describe: Callable[[int], str],
    found: Found | None = None,
) -> bool:
    """Record every True in ``mask`` in ``found`` (``describe(position)`` gives the
    message), or raise for the first one when ``found`` is ``None``. Returns whether the
    mask had a True; a clean mask costs one pass."""
    import numpy as np  # here, not at the top: the CLI imports this module at start-up

    if not mask.any():
        return False
    bad = np.flatnonzero(mask)
    local = Found() if found is None else found
    first = bad[: 1 if found is None else MOST_SHOWN].tolist()
    local.add_rows(first, len(first) if found is None else bad.size, (column, first_line), describe)
    if found is None:
        local.raise_if_any()
    return True
