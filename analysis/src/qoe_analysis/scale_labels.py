"""The default label texts of the rating scales (en, de). Standard library only."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["ACR5_LABELS", "BINARY_LABELS", "DCR5_LABELS", "EXTENDED_7_LABELS"]


def _labels(*pairs: tuple[int, str, str]) -> tuple[dict[str, Any], ...]:
    return tuple({"value": v, "text": {"en": en, "de": de}} for v, en, de in pairs)


#: ITU-T P.800 / P.910 ACR labels (German as in the participant screens).
ACR5_LABELS: Final = _labels(
    (1, "Bad", "Schlecht"),
    (2, "Poor", "Dürftig"),
    (3, "Fair", "Ordentlich"),
    (4, "Good", "Gut"),
    (5, "Excellent", "Ausgezeichnet"),
)
#: ITU-T P.800 annex D DCR labels (degradation relative to the reference).
DCR5_LABELS: Final = _labels(
    (1, "Very annoying", "Sehr störend"),
    (2, "Annoying", "Störend"),
    (3, "Slightly annoying", "Leicht störend"),
    (4, "Perceptible but not annoying", "Wahrnehmbar, aber nicht störend"),
    (5, "Imperceptible", "Nicht wahrnehmbar"),
)
BINARY_LABELS: Final = _labels((0, "No", "Nein"), (1, "Yes", "Ja"))
#: The extended continuous 7-point scale of ITU-T P.809 (after P.851): every integer labelled.
EXTENDED_7_LABELS: Final = _labels(
    (1, "Extremely bad", "Extrem schlecht"),
    (2, "Bad", "Schlecht"),
    (3, "Poor", "Dürftig"),
    (4, "Fair", "Ordentlich"),
    (5, "Good", "Gut"),
    (6, "Excellent", "Ausgezeichnet"),
    (7, "Ideal", "Ideal"),
)
