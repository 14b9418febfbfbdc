"""The error of ratings validation and the helper that locates a problem by CSV line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

__all__ = ["RatingsValidationError", "fail_at", "line_of"]


class RatingsValidationError(ValueError):
    """Raised for unusable ratings input; ``column`` and ``line`` locate the problem.

    ``line`` is the 1-based line of the CSV file (header = line 1), or ``None`` when the
    table did not come from a file or the problem is not tied to a line.
    """

    def __init__(self, message: str, *, column: str | None = None, line: int | None = None):
        where = []
        if column is not None:
            where.append(f"column '{column}'")
        if line is not None:
            where.append(f"line {line}")
        full = f"{', '.join(where)}: {message}" if where else message
        super().__init__(full)
        self.column = column
        self.line = line


def line_of(first_line: int | None, position: int) -> int | None:
    return None if first_line is None else first_line + position


def fail_at(
    mask: np.ndarray[Any, np.dtype[np.bool_]],
    column: str,
    first_line: int | None,
    describe: Any,
) -> None:
    """Raise for the first True in ``mask``; ``describe(position)`` gives the message."""
    import numpy as np  # here, not at the top: the CLI imports this module at start-up

    bad = np.flatnonzero(mask)
    if bad.size:
        pos = int(bad[0])
        suffix = "" if first_line is not None else f" (row {pos})"
        raise RatingsValidationError(
            describe(pos) + suffix, column=column, line=line_of(first_line, pos)
        )
