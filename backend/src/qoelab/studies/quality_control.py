"""A study's quality-control settings in the manner of ITU-T P.808 (issue 35, item 2).

Shape (``Study.quality_control``)::

    {"traps": [{"after": 3 | null, "value": 2, "text": {"en": ..., "de": ...}}, ...],
     "hidden_reference": null | {"scenario": "B" | null}}

* **traps** (0–3): an instructed-response screen ("please select 'Poor' for this question")
  on the study's first rating item, shown without a new play after test scenario number
  ``after`` (1-based; null = a random place drawn from the session's seed; a number past the
  session's last scenario means after the last one). ``value`` is the instructed value, a
  value of the first item's scale.
* **hidden_reference**: the scenario ``scenario`` (a code; null = the baseline) shown a
  second time, unannounced, at a random place in the second half of the test; its repeat
  must be within (max − min) / 4 of its first rating (1 on ACR-5,
  :mod:`qoe_analysis.evidence.quality_control`).

Raters failing a check are flagged (results, tidy CSV), not excluded; the analysis option
``--exclude-qc-failed`` (``analyze(exclude_qc_failed=True)``) leaves them out.

Analysis-only (imported) studies are never run, so they refuse any check.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from qoe_analysis import scales

MAX_TRAPS = 3
MAX_AFTER = 999


def default_quality_control() -> dict[str, Any]:
    """No trap, no hidden reference."""
    return {"traps": [], "hidden_reference": None}


def has_checks(qc: Mapping[str, Any] | None) -> bool:
    """Does the study ask any quality-control question?"""
    return bool(qc and (qc.get("traps") or qc.get("hidden_reference")))


def _trap(raw: Any, i: int, scale: Mapping[str, Any]) -> dict[str, Any]:
    where = f"traps[{i}]"
    if not isinstance(raw, Mapping):
        raise ValueError(f'{where}: expected {{"after", "value", "text": {{"en", "de"}}}}')
    unknown = sorted(set(raw) - {"after", "value", "text"})
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown field (after, value, text)")
    after = raw.get("after")
    if after is not None and (
        isinstance(after, bool) or not isinstance(after, int) or not 1 <= after <= MAX_AFTER
    ):
        raise ValueError(
            f"{where}.after: the test scenario (1..{MAX_AFTER}) after which the trap is "
            "shown, or null for a random place"
        )
    scales.validate_value(scale, raw.get("value"), f"{where}.value")
    text = raw.get("text")
    if not isinstance(text, Mapping):
        raise ValueError(f'{where}.text: the instruction per language, {{"en": ..., "de": ...}}')
    out_text = {}
    for lang in scales.LANGUAGES:
        value = text.get(lang)
        if not isinstance(value, str) or not value.strip():
            raise ValueError(
                f"{where}.text.{lang}: the instruction the participant reads, e.g. "
                "\"Please select 'Poor' for this question.\""
            )
        out_text[lang] = value.strip()
    return {"after": after, "value": raw["value"], "text": out_text}


def validate_quality_control(
    raw: Any,
    *,
    items: list[dict[str, Any]],
    codes: Collection[str],
    analysis_only: bool = False,
) -> dict[str, Any]:
    """The settings normalised, or ValueError naming the field (``traps[0].value: …``).

    ``items`` are the study's rating items (a trap uses the first one's scale), ``codes``
    its current scenario codes (empty: not checked, e.g. before the scenarios exist).
    """
    if not isinstance(raw, Mapping):
        raise ValueError('expected {"traps": [...], "hidden_reference": null or {...}}')
    unknown = sorted(set(raw) - {"traps", "hidden_reference"})
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown field (traps, hidden_reference)")
    traps = raw.get("traps") or []
    if not isinstance(traps, list) or len(traps) > MAX_TRAPS:
        raise ValueError(f"traps: a list of 0 to {MAX_TRAPS} trapping items")
    scale = items[0]["scale"]
    out_traps = [_trap(trap, i, scale) for i, trap in enumerate(traps)]
    reference = raw.get("hidden_reference")
    out_reference = None
    if reference is not None:
        if not isinstance(reference, Mapping) or set(reference) - {"scenario"}:
            raise ValueError('hidden_reference: null, or {"scenario": code or null (baseline)}')
        code = reference.get("scenario")
        if code is not None and (not isinstance(code, str) or (codes and code not in codes)):
            raise ValueError(
                f"hidden_reference.scenario: {code!r} is not a scenario of the study "
                f"({', '.join(sorted(codes)) or 'none yet'}); null = the baseline"
            )
        out_reference = {"scenario": code}
    out = {"traps": out_traps, "hidden_reference": out_reference}
    if analysis_only and has_checks(out):
        raise ValueError(
            "an analysis-only study (imported from a dataset) is never run at a station, so "
            "it cannot ask trapping questions or show a hidden reference"
        )
    return out
