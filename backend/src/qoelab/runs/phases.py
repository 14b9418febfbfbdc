"""The session's two phases: training on anchor scenarios, then the test proper.

Training slots lead the order (``"training": true``, round 0); positions within a phase
are what the participant sees ("training 1 of 2", then "1 of 30").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qoelab.runs.models import Session

#: The phases' names, in order.
PHASES = ["training", "test"]


@dataclass(frozen=True)
class Phase:
    name: str  # "training" or "test"
    position: int  # 1-based within the phase
    count: int


def training_count(order: list[dict[str, Any]]) -> int:
    return sum(1 for entry in order if entry.get("training"))


def phase_of(session: Session, index: int | None = None) -> Phase | None:
    """The phase of slot ``index`` (default: the current one); None past the order."""
    i = session.current_index if index is None else index
    entry = session.order_entry(i)
    if entry is None:
        return None
    trained = training_count(session.order)
    if entry.get("training"):
        return Phase("training", i + 1, trained)
    # a trap (quality control) is rated after the slot before it: it is no scenario of its own
    plays = [entry.get("qc") != "trap" for entry in session.order[trained:]]
    return Phase("test", max(1, sum(plays[: i + 1 - trained])), sum(plays))


def order_with_phases(order: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The order with an explicit ``training`` flag on every entry (for the console)."""
    return [{**entry, "training": bool(entry.get("training"))} for entry in order]
