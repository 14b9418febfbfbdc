"""Building blocks of the document's warnings (:mod:`qoe_analysis.evidence.warnings`): the
warning record and the short number texts its messages are made of. Standard library only."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from qoe_analysis.schema.document import DocWarning, WarningCode

__all__ = ["as_map", "count_range", "counted", "listed", "make", "num", "pct", "rows"]

#: how many names or conditions a message lists before "and N more"
MOST_LISTED = 4


def make(code: WarningCode, where: str, message: str) -> DocWarning:
    """One warning: ``where`` is the dotted document path it concerns."""
    return {"code": code, "message": message, "where": where}


def as_map(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one: a section or key that another step
    has not produced (yet) reads as empty instead of failing."""
    return value if isinstance(value, Mapping) else {}


def rows(value: Any) -> list[Mapping[str, Any]]:
    """The mapping elements of a list value (an absent or non-list value: none)."""
    if not isinstance(value, list):
        return []
    return [r for r in value if isinstance(r, Mapping)]


def num(value: float) -> str:
    """A number in at most four significant digits ("0.6", "181.7", "12")."""
    return f"{value:.4g}"


def pct(share: float) -> str:
    """A share as a percentage with at most three significant digits ("15 %", "0.5 %")."""
    return f"{100 * share:.3g} %"


def listed(items: Sequence[str], most: int = MOST_LISTED) -> str:
    """The first ``most`` items joined by commas, then "and N more"."""
    shown = ", ".join(items[:most])
    rest = len(items) - most
    return f"{shown} and {rest} more" if rest > 0 else shown


def count_range(values: Iterable[int]) -> str:
    """ "n = 2" for one value, "n = 2–3" for a range of counts."""
    distinct = sorted(set(values))
    if not distinct:
        return "n = none"
    if len(distinct) == 1:
        return f"n = {distinct[0]}"
    return f"n = {distinct[0]}–{distinct[-1]}"


def counted(n: int, one: str, many: str) -> str:
    """``n`` with the singular or plural words ("1 pair changes", "2 pairs change")."""
    return f"{n} {one if n == 1 else many}"
