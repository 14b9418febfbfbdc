"""A study's post-scenario rating items, the acceptance target, the training phase.

Shapes (the issue 15 contract): an item is ``{"key", "question": {"en", "de"}, "scale",
"required"}``; the scale's rules live in :mod:`qoe_analysis.scales` (the one source the
analysis uses too). The default is the dissertation's single overall-quality item on ACR-5
(ITU-T P.910), so a study that never declares items rates and analyses as before.
The gaming preset follows ITU-T P.809 / G.1072: overall quality, input quality and video
quality (7-point extended continuous scale, 1 "extremely bad" .. 7 "ideal") and an
acceptance question (yes/no).
"""

from __future__ import annotations

import copy
from typing import Any

from qoe_analysis import scales

#: A rating given faster than this (ms after the rating screen appeared) counts as "fast".
DEFAULT_MIN_RESPONSE_MS = scales.DEFAULT_MIN_RESPONSE_MS
TRAINING_SECONDS = (10, 600)
#: The study editor's gaming preset (ITU-T P.809 instrument; defined by qoe_analysis.scales).
GAMING_PRESET: list[dict[str, Any]] = copy.deepcopy(list(scales.GAMING_PRESET))


def default_rating_items() -> list[dict[str, Any]]:
    """One item "overall" on ACR-5: the default (and the example study's instrument)."""
    return copy.deepcopy(list(scales.DEFAULT_ITEMS))


def default_acceptance() -> dict[str, Any]:
    return dict(scales.DEFAULT_ACCEPTANCE)


def default_training() -> dict[str, Any]:
    return {"enabled": False, "scenarios": [], "seconds": 60}


def presets() -> dict[str, Any]:
    """What the study editor offers: the item presets and each scale kind's default."""
    return {
        "acr5": default_rating_items(),
        "gaming": copy.deepcopy(GAMING_PRESET),
        "scales": {kind: scales.default_scale(kind) for kind in scales.SCALE_KINDS},
    }


def legacy_items(scale_labels: list[str]) -> list[dict[str, Any]]:
    """The single overall item that rates exactly as ``scale_labels`` did (1..n).

    The ACR labels give the default ACR-5 item; any other list a discrete 1..n scale whose
    points carry the study's own labels (the same text in both languages).
    """
    if [label.lower() for label in scale_labels] == ["bad", "poor", "fair", "good", "excellent"]:
        return default_rating_items()
    item = default_rating_items()[0]
    item["scale"] = {
        "kind": "discrete",
        "min": 1,
        "max": len(scale_labels),
        "step": 1,
        "labels": [
            {"value": i + 1, "text": {"en": label, "de": label}}
            for i, label in enumerate(scale_labels)
        ],
    }
    return [item]


# --- validation (ValueError naming the item or field) ---------------------------------------


def validate_items(items: Any) -> list[dict[str, Any]]:
    """1..8 items with unique keys and valid scales (ValueError naming the item's field)."""
    parsed: list[dict[str, Any]] = scales.parse_items(items, "rating_items")
    return parsed


def validate_acceptance(acceptance: Any, items: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"item": key}`` for a yes/no item, else ``{"item": key, "min": cut}``."""
    parsed: dict[str, Any] = scales.parse_acceptance(acceptance, items)
    return parsed


def validate_training(training: Any, scenario_codes: set[str]) -> dict[str, Any]:
    """``{"enabled", "scenarios": [codes of the study], "seconds": 10..600}``."""
    if not isinstance(training, dict):
        raise ValueError('training: {"enabled": bool, "scenarios": [codes], "seconds": int}')
    unknown = sorted(set(training) - {"enabled", "scenarios", "seconds"})
    if unknown:
        raise ValueError(f"training: unknown field(s) {', '.join(unknown)}")
    merged = {**default_training(), **training}
    if not isinstance(merged["enabled"], bool):
        raise ValueError("training.enabled: true or false")
    seconds = merged["seconds"]
    low, high = TRAINING_SECONDS
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not low <= seconds <= high:
        raise ValueError(f"training.seconds: a whole number from {low} to {high}")
    codes = merged["scenarios"]
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
        raise ValueError("training.scenarios: a list of scenario codes")
    if len(set(codes)) != len(codes):
        raise ValueError("training.scenarios: a scenario is listed twice")
    missing = [c for c in codes if c not in scenario_codes]
    if missing:
        raise ValueError(f"training.scenarios: {', '.join(missing)} is not a scenario of the study")
    return {"enabled": merged["enabled"], "scenarios": list(codes), "seconds": seconds}


def validate_min_response_ms(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 600_000:
        raise ValueError("min_response_ms: a whole number of milliseconds from 0 to 600000")
    return value


def sidecar(study: Any) -> dict[str, Any]:
    """The tidy CSV's sidecar: ``{"items", "acceptance", "min_response_ms"}``."""
    return {
        "items": study.rating_items,
        "acceptance": study.acceptance,
        "min_response_ms": study.min_response_ms,
    }
