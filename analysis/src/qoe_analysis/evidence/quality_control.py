"""Quality control in the manner of ITU-T P.808: trapping questions and a hidden reference.

ITU-T P.808 (06/2021, clause 6.3 "Quality control" and Annex: Microsoft's P.808 toolkit)
inserts *trapping questions* — an instructed response ("please select 'Poor' for this
question") in the place of a stimulus — and a *hidden reference*, a condition shown a second
time unannounced; a rater who fails them is flagged (and, by the experimenter's choice,
excluded).

The rule (pure, standard library only, so that the backend's export imports it without
pandas): a rater **fails** when

* any trap answer differs from the instructed value ("trap 1: asked for 2 (Poor),
  answered 5"), or
* a hidden reference's repeat differs from its first showing by more than the tolerance:
  |r2 − r1| > (max − min) / 4 of the item's scale — 1 point on ACR-5, as in the P.808
  toolkit's gold-standard check, scaled on any other scale.

A rater **passes** when every trap answer is right and every repeat is within tolerance; a
rater without quality-control answers (or only repeats whose first showing is missing) is
**not assessable**. Verdicts use the screening's statuses: passed = ``reliable``, failed =
``unreliable``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "HIDDEN_REFERENCE",
    "KINDS",
    "QC_KINDS",
    "QC_SOURCE",
    "SCENARIO_KIND",
    "TRAP",
    "QcRow",
    "RaterQc",
    "judge",
    "tolerance",
]

SCENARIO_KIND: Final = "scenario"
TRAP: Final = "trap"
HIDDEN_REFERENCE: Final = "hidden_reference"
#: The values of the tidy CSV's ``kind`` column (empty means "scenario").
KINDS: Final[tuple[str, ...]] = (SCENARIO_KIND, TRAP, HIDDEN_REFERENCE)
QC_KINDS: Final[tuple[str, ...]] = (TRAP, HIDDEN_REFERENCE)
QC_SOURCE: Final = (
    "ITU-T P.808 (06/2021), clause 6.3 quality control: trapping questions and a hidden "
    "reference (gold standard); Microsoft P.808 toolkit"
)
QC_RULE: Final = (
    "fail: a trap answer differs from the instructed value, or a hidden reference's repeat "
    "differs from its first showing by more than (max - min) / 4 of the scale (1 on ACR-5)"
)

#: (rater, session, scenario, item) of a rating: where a repeat finds its first showing.
Slot = tuple[str, str, str, str]


@dataclass(frozen=True)
class QcRow:
    """One quality-control answer: a trap's (``expected`` = the instructed value) or a
    hidden reference's repeat (``expected`` None)."""

    rater: str
    session: str
    scenario: str
    item: str
    kind: str
    rating: float
    expected: float | None = None


@dataclass(frozen=True)
class RaterQc:
    """A rater's verdict: ``status`` reliable (passed), unreliable (failed) or
    not_assessable, with every failed check in ``reasons``."""

    rater_id: str
    status: str
    reasons: tuple[str, ...]
    n_traps: int
    n_hidden_references: int

    @property
    def failed(self) -> bool:
        return self.status == "unreliable"

    @property
    def reason(self) -> str:
        if self.reasons:
            return "; ".join(self.reasons)
        if self.status == "reliable":
            return "every trap answered as instructed; hidden reference within tolerance"
        return "no quality-control answers"

    def to_dict(self) -> dict[str, Any]:
        return {
            "rater_id": self.rater_id,
            "status": self.status,
            "failed": self.failed,
            "reason": self.reason,
            "reasons": list(self.reasons),
            "n_traps": self.n_traps,
            "n_hidden_references": self.n_hidden_references,
        }


def tolerance(scale: Mapping[str, Any]) -> float:
    """The hidden reference's tolerance on ``scale``: (max − min) / 4 (1 on ACR-5)."""
    return (float(scale["max"]) - float(scale["min"])) / 4


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _label(scale: Mapping[str, Any] | None, value: float) -> str:
    """`` (Poor)`` for a value with an English label on ``scale``, else ""."""
    for label in (scale or {}).get("labels") or []:
        if isinstance(label, Mapping) and label.get("value") == value:
            text = label.get("text")
            if isinstance(text, Mapping) and text.get("en"):
                return f" ({text['en']})"
    return ""


def _check(
    row: QcRow,
    number: int,
    first: float | None,
    scale: Mapping[str, Any] | None,
) -> str | None:
    """The reason ``row`` fails (None: it passes, or cannot be checked)."""
    if row.kind == TRAP:
        if row.expected is None or row.rating == row.expected:
            return None
        asked = f"{_number(row.expected)}{_label(scale, row.expected)}"
        return f"trap {number}: asked for {asked}, answered {_number(row.rating)}"
    if first is None or scale is None:
        return None
    limit = tolerance(scale)
    if abs(row.rating - first) <= limit + 1e-9:
        return None
    return (
        f"hidden reference {row.scenario} ({row.item}): rated {_number(first)} then "
        f"{_number(row.rating)}, differs by {_number(abs(row.rating - first))} > "
        f"{_number(limit)}"
    )


def judge(
    rows: Iterable[QcRow],
    first_showings: Mapping[Slot, float],
    scales: Mapping[str, Mapping[str, Any]],
    raters: Sequence[str] = (),
) -> list[RaterQc]:
    """Every rater's verdict (module doc), sorted by rater id.

    ``rows`` in the order given (a rater's traps are numbered 1, 2, … in it);
    ``first_showings`` the (non-training) scenario ratings by slot; ``scales`` the item
    scales by key; ``raters`` the raters of the table (those without a QC row are not
    assessable).
    """
    per_rater: dict[str, list[QcRow]] = {rater: [] for rater in raters}
    for row in rows:
        per_rater.setdefault(row.rater, []).append(row)
    out = []
    for rater in sorted(per_rater, key=lambda r: (len(r), r)):
        reasons: list[str] = []
        traps = checked = 0
        references = 0
        for row in per_rater[rater]:
            first = None
            if row.kind == TRAP:
                traps += 1
                number = traps
                checked += row.expected is not None
            else:
                references += 1
                number = references
                first = first_showings.get((row.rater, row.session, row.scenario, row.item))
                checked += first is not None and row.item in scales
            reason = _check(row, number, first, scales.get(row.item))
            if reason is not None:
                reasons.append(reason)
        status = "unreliable" if reasons else "reliable" if checked else "not_assessable"
        out.append(RaterQc(rater, status, tuple(reasons), traps, references))
    return out
