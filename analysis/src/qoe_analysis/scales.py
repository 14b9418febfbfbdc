"""Rating items and their scales: the study's instrument, shared by backend and analysis.

A study asks, after each scenario, an ordered list of 1..8 *items*; each item has a key, a
question per language (en, de), a *scale* and a required flag. Scale kinds:

* ``acr5`` – Absolute Category Rating, 1 Bad … 5 Excellent (ITU-T P.800 annex B, P.910);
* ``dcr5`` – Degradation Category Rating relative to the baseline, 1 Very annoying …
  5 Imperceptible (ITU-T P.800 annex D);
* ``discrete`` – any k-point integer scale, 2 ≤ k ≤ 11 (e.g. 0..6, 1..7, 1..9);
* ``continuous`` – a slider over a finite range (e.g. the extended 7-point continuous
  scale of ITU-T P.809 / P.851, or 0..100);
* ``binary`` – 0 = no, 1 = yes (the acceptance question).

A value is valid iff min ≤ v ≤ max and, on every kind but ``continuous``, an integer.
The sidecar JSON of a tidy CSV (``{"items", "acceptance", "min_response_ms"}``) declares
the items of its ``item`` column; :func:`parse_sidecar` reads it.

Every parse function returns a normalised plain-JSON copy and raises :class:`ValueError`
whose message starts with the offending field's path (``items[1].scale.max: …``).

Standard library only and imported by the backend at start-up: importing this module must
not pull in pandas or SciPy (a test checks it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from qoe_analysis.scale_labels import ACR5_LABELS, BINARY_LABELS, DCR5_LABELS, EXTENDED_7_LABELS

__all__ = [
    "ACR5_LABELS",
    "DCR5_LABELS",
    "DEFAULT_ACCEPTABLE_CUT",
    "DEFAULT_ACCEPTANCE",
    "DEFAULT_ITEMS",
    "DEFAULT_MIN_RESPONSE_MS",
    "GAMING_PRESET",
    "ITEM_KEY_PATTERN",
    "LANGUAGES",
    "MAX_ITEMS",
    "OVERALL",
    "SCALE_KINDS",
    "Sidecar",
    "acceptable_cut",
    "default_scale",
    "default_sidecar",
    "gob_cut",
    "is_discrete",
    "is_valid_value",
    "midpoint",
    "parse_acceptance",
    "parse_item",
    "parse_items",
    "parse_scale",
    "parse_sidecar",
    "pow_cut",
    "primary_item",
    "scale_points",
    "validate_value",
]

SCALE_KINDS: Final[tuple[str, ...]] = ("acr5", "dcr5", "discrete", "continuous", "binary")
LANGUAGES: Final[tuple[str, ...]] = ("en", "de")
ITEM_KEY_PATTERN: Final = re.compile(r"[a-z][a-z0-9_]{0,39}")
MAX_ITEMS: Final = 8
MAX_POINTS: Final = 11
OVERALL: Final = "overall"
DEFAULT_ACCEPTABLE_CUT: Final = 3
DEFAULT_MIN_RESPONSE_MS: Final = 1000


#: Fixed bounds of the kinds whose range cannot be chosen.
_FIXED: Final[dict[str, tuple[int, int, tuple[dict[str, Any], ...]]]] = {
    "acr5": (1, 5, ACR5_LABELS),
    "dcr5": (1, 5, DCR5_LABELS),
    "binary": (0, 1, BINARY_LABELS),
}


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_copy(v) for v in value]
    return value


def default_scale(kind: str) -> dict[str, Any]:
    """The default scale of a kind (discrete: 1..7; continuous: the P.809 1..7 slider)."""
    if kind in _FIXED:
        lo, hi, labels = _FIXED[kind]
        return {"kind": kind, "min": lo, "max": hi, "step": 1, "labels": _copy(labels)}
    if kind == "discrete":
        return {
            "kind": kind,
            "min": 1,
            "max": 7,
            "step": 1,
            "labels": _copy([EXTENDED_7_LABELS[0], EXTENDED_7_LABELS[-1]]),
        }
    if kind == "continuous":
        return {"kind": kind, "min": 1, "max": 7, "step": None, "labels": _copy(EXTENDED_7_LABELS)}
    raise ValueError(f"kind: unknown scale kind {kind!r} (one of {', '.join(SCALE_KINDS)})")


def _number(value: Any, field: str) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{field}: expected a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{field}: must be finite")
    return int(value) if float(value).is_integer() else float(value)


def _text(value: Any, field: str) -> dict[str, str]:
    """A text per language: {"en": str, "de": str}, both non-blank."""
    if not isinstance(value, Mapping):
        raise ValueError(f"{field}: expected {{'en': text, 'de': text}}")
    unknown = sorted(set(value) - set(LANGUAGES))
    if unknown:
        raise ValueError(f"{field}.{unknown[0]}: unknown language (use {', '.join(LANGUAGES)})")
    out = {}
    for lang in LANGUAGES:
        text = value.get(lang)
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{field}.{lang}: a non-empty text is required")
        out[lang] = text.strip()
    return out


def parse_scale(raw: Any, field: str = "scale") -> dict[str, Any]:
    """Validate a scale dict and return it normalised (defaults filled in).

    Rules: known kind; min < max, finite; acr5/dcr5 are 1..5 and binary 0..1 (may be
    omitted); discrete: integer bounds, step 1, 2 ≤ points ≤ 11; continuous: step null or
    0 < step ≤ max − min; labels: values on the scale, unique, a text per language.
    """
    if not isinstance(raw, Mapping):
        raise ValueError(f"{field}: expected an object with 'kind'")
    unknown = sorted(set(raw) - {"kind", "min", "max", "step", "labels"})
    if unknown:
        raise ValueError(f"{field}.{unknown[0]}: unknown field")
    kind = raw.get("kind")
    if kind not in SCALE_KINDS:
        raise ValueError(f"{field}.kind: {kind!r} is not one of {', '.join(SCALE_KINDS)}")
    scale = default_scale(kind)
    for bound in ("min", "max"):
        if raw.get(bound) is not None:
            scale[bound] = _number(raw[bound], f"{field}.{bound}")
    lo, hi = scale["min"], scale["max"]
    if kind in _FIXED and (lo, hi) != _FIXED[kind][:2]:
        fixed = _FIXED[kind]
        raise ValueError(f"{field}.min: a {kind} scale runs from {fixed[0]} to {fixed[1]}")
    if not lo < hi:
        raise ValueError(f"{field}.max: must be greater than min ({lo:g})")
    step = raw.get("step", scale["step"])
    if kind == "continuous":
        if step is not None:
            step = _number(step, f"{field}.step")
            if not 0 < step <= hi - lo:
                raise ValueError(f"{field}.step: must lie in (0, max - min]")
    else:
        if step is not None and (isinstance(step, bool) or step != 1):
            raise ValueError(f"{field}.step: a {kind} scale has step 1")
        step = 1
        if not (isinstance(lo, int) and isinstance(hi, int)):
            raise ValueError(f"{field}.min: a {kind} scale needs integer bounds")
        if not 2 <= hi - lo + 1 <= MAX_POINTS:
            raise ValueError(f"{field}.max: a discrete scale has 2 to {MAX_POINTS} points")
    scale["step"] = step
    if "labels" in raw:
        scale["labels"] = _parse_labels(raw["labels"], scale, f"{field}.labels")
    elif kind in ("discrete", "continuous") and ("min" in raw or "max" in raw):
        scale["labels"] = []  # the default anchors belong to the default range only
    return scale


def _parse_labels(raw: Any, scale: Mapping[str, Any], field: str) -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        raise ValueError(f"{field}: expected a list of {{value, text}}")
    labels: list[dict[str, Any]] = []
    seen: set[float] = set()
    for i, entry in enumerate(raw):
        where = f"{field}[{i}]"
        if not isinstance(entry, Mapping):
            raise ValueError(f"{where}: expected {{value, text}}")
        value = _number(entry.get("value"), f"{where}.value")
        if not is_valid_value(scale, value):
            raise ValueError(f"{where}.value: {value:g} is not a value of the scale")
        if value in seen:
            raise ValueError(f"{where}.value: {value:g} is labelled twice")
        seen.add(value)
        labels.append({"value": value, "text": _text(entry.get("text"), f"{where}.text")})
    if scale["kind"] in ("acr5", "dcr5") and len(labels) != 5:
        raise ValueError(f"{field}: a {scale['kind']} scale labels all 5 points")
    return sorted(labels, key=lambda label: label["value"])


def is_discrete(scale: Mapping[str, Any]) -> bool:
    """Every kind but ``continuous`` takes integers only."""
    return bool(scale["kind"] != "continuous")


def scale_points(scale: Mapping[str, Any]) -> list[int] | None:
    """The integer points of a discrete kind (min..max), None for a continuous scale."""
    return list(range(int(scale["min"]), int(scale["max"]) + 1)) if is_discrete(scale) else None


def is_valid_value(scale: Mapping[str, Any], value: Any) -> bool:
    """min ≤ v ≤ max, finite, and an integer on every kind but continuous."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return False
    if not scale["min"] <= value <= scale["max"]:
        return False
    return not is_discrete(scale) or float(value).is_integer()


def validate_value(scale: Mapping[str, Any], value: Any, item: str = "value") -> None:
    """Raise ValueError naming ``item`` unless ``value`` is a value of the scale."""
    if is_valid_value(scale, value):
        return
    lo, hi = scale["min"], scale["max"]
    kind = "an integer" if is_discrete(scale) else "a number"
    raise ValueError(f"{item}: {value!r} is not {kind} from {lo:g} to {hi:g} ({scale['kind']})")


def midpoint(scale: Mapping[str, Any]) -> float:
    """(L + H) / 2, the neutral point of the scale."""
    return (float(scale["min"]) + float(scale["max"])) / 2.0


def acceptable_cut(scale: Mapping[str, Any] | None = None) -> int | float:
    """The default "acceptable from" cut of a scale: 3 on ACR-5 (the reference study),
    else the midpoint rounded up to a point of the scale (0..6: 3, 1..7: 4, 0..100: 50)."""
    if scale is None or scale["kind"] in ("acr5", "dcr5"):
        return DEFAULT_ACCEPTABLE_CUT
    return math.ceil(midpoint(scale))


def gob_cut(scale: Mapping[str, Any]) -> float:
    """Lowest "good or better" value: L + ¾·(H − L), the point 4 of ACR 1..5 (P.800 %GoB)."""
    lo, hi = float(scale["min"]), float(scale["max"])
    return lo + 0.75 * (hi - lo)


def pow_cut(scale: Mapping[str, Any]) -> float:
    """Highest "poor or worse" value: L + ¼·(H − L), the point 2 of ACR 1..5 (P.800 %PoW)."""
    lo, hi = float(scale["min"]), float(scale["max"])
    return lo + 0.25 * (hi - lo)


def parse_item(raw: Any, field: str = "item") -> dict[str, Any]:
    """Validate one item {key, question {en, de}, scale, required (default true)}."""
    if not isinstance(raw, Mapping):
        raise ValueError(f"{field}: expected an object with key, question and scale")
    unknown = sorted(set(raw) - {"key", "question", "scale", "required"})
    if unknown:
        raise ValueError(f"{field}.{unknown[0]}: unknown field")
    key = raw.get("key")
    if not isinstance(key, str) or not ITEM_KEY_PATTERN.fullmatch(key):
        raise ValueError(
            f"{field}.key: {key!r} must match [a-z][a-z0-9_]{{0,39}} (lower case slug)"
        )
    required = raw.get("required", True)
    if not isinstance(required, bool):
        raise ValueError(f"{field}.required: expected true or false")
    return {
        "key": key,
        "question": _text(raw.get("question"), f"{field}.question"),
        "scale": parse_scale(raw.get("scale"), f"{field}.scale"),
        "required": required,
    }


def parse_items(raw: Any, field: str = "items") -> list[dict[str, Any]]:
    """Validate the ordered item list: 1..8 items with unique keys."""
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_ITEMS:
        raise ValueError(f"{field}: expected a list of 1 to {MAX_ITEMS} items")
    items = [parse_item(entry, f"{field}[{i}]") for i, entry in enumerate(raw)]
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item["key"] in seen:
            raise ValueError(f"{field}[{i}].key: {item['key']!r} is used twice")
        seen.add(item["key"])
    return items


def parse_acceptance(
    raw: Any, items: Sequence[Mapping[str, Any]], field: str = "acceptance"
) -> dict[str, Any]:
    """Validate the acceptance rule against the items.

    ``{"item": key}`` for a binary item (acceptable iff value = 1) or ``{"item": key,
    "min": v}`` (acceptable iff value ≥ v, v a value of the item's scale above its minimum).
    """
    if not isinstance(raw, Mapping):
        raise ValueError(f"{field}: expected {{'item': key}} or {{'item': key, 'min': value}}")
    unknown = sorted(set(raw) - {"item", "min"})
    if unknown:
        raise ValueError(f"{field}.{unknown[0]}: unknown field")
    by_key = {item["key"]: item for item in items}
    key = raw.get("item")
    if key not in by_key:
        raise ValueError(f"{field}.item: {key!r} is not one of the items ({', '.join(by_key)})")
    scale = by_key[key]["scale"]
    if raw.get("min") is None:
        if scale["kind"] != "binary":
            raise ValueError(f"{field}.min: required for the non-binary item {key!r}")
        return {"item": key}
    cut = _number(raw["min"], f"{field}.min")
    if not (is_valid_value(scale, cut) and cut > scale["min"]):
        raise ValueError(
            f"{field}.min: {cut:g} must be a value of item {key!r}'s scale above its minimum"
        )
    return {"item": key, "min": cut}


def primary_item(items: Sequence[Mapping[str, Any]]) -> str:
    """The item the top-level results describe: the first non-binary item (else the first)."""
    for item in items:
        if item["scale"]["kind"] != "binary":
            return str(item["key"])
    return str(items[0]["key"])


def _item(key: str, en: str, de: str, scale: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "question": {"en": en, "de": de}, "scale": scale, "required": True}


_OVERALL_ITEM: Final = _item(
    OVERALL,
    "How would you rate the overall quality of the game?",
    "Wie bewerten Sie die Gesamtqualität des Spiels?",
    default_scale("acr5"),
)
#: The default instrument (and the example study's): one ACR-5 item "overall".
DEFAULT_ITEMS: Final[tuple[dict[str, Any], ...]] = (_OVERALL_ITEM,)
DEFAULT_ACCEPTANCE: Final[dict[str, Any]] = {"item": OVERALL, "min": DEFAULT_ACCEPTABLE_CUT}
#: Gaming instrument after ITU-T P.809: overall quality (ACR-5), input and video quality on
#: the extended continuous 7-point scale, and acceptance (yes/no).
GAMING_PRESET: Final[tuple[dict[str, Any], ...]] = (
    _OVERALL_ITEM,
    _item(
        "input_quality",
        "How well did the game respond to your input (responsiveness, precise control)?",
        "Wie gut hat das Spiel auf Ihre Eingaben reagiert (Reaktionsschnelligkeit, präzise "
        "Steuerung)?",
        default_scale("continuous"),
    ),
    _item(
        "video_quality",
        "How would you rate the quality of the video (sharpness, fluidity, no artefacts)?",
        "Wie bewerten Sie die Qualität des Videos (Schärfe, Flüssigkeit, keine Bildfehler)?",
        default_scale("continuous"),
    ),
    _item(
        "acceptance",
        "Would you accept this quality for playing this game?",
        "Würden Sie diese Qualität zum Spielen dieses Spiels akzeptieren?",
        default_scale("binary"),
    ),
)


@dataclass(frozen=True)
class Sidecar:
    """The item declaration of a tidy CSV: items, acceptance rule, fast-rating floor."""

    items: tuple[dict[str, Any], ...]
    acceptance: dict[str, Any]
    min_response_ms: int

    def item(self, key: str) -> dict[str, Any]:
        return next(item for item in self.items if item["key"] == key)

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(item["key"] for item in self.items)

    def __deepcopy__(self, memo: dict[int, Any]) -> Sidecar:
        """Itself: a sidecar is not changed after it is built (:meth:`to_dict` hands out
        copies). pandas deep-copies ``DataFrame.attrs``, where validation keeps the sidecar,
        on every derived frame; copying it each time was ~10 % of an analysis's CPU."""
        return self

    def to_dict(self) -> dict[str, Any]:
        return {
            "items": _copy(self.items),
            "acceptance": dict(self.acceptance),
            "min_response_ms": self.min_response_ms,
        }


def default_sidecar() -> Sidecar:
    """What a CSV without an ``item`` column means: one ACR-5 item "overall", cut 3."""
    return Sidecar(tuple(_copy(DEFAULT_ITEMS)), dict(DEFAULT_ACCEPTANCE), DEFAULT_MIN_RESPONSE_MS)


def parse_sidecar(raw: Any) -> Sidecar:
    """Validate ``{"items": [...], "acceptance": {...}, "min_response_ms": int}``.

    ``acceptance`` defaults to the first binary item, else the first item with cut at its
    midpoint rounded up (3 on ACR-5); ``min_response_ms`` defaults to 1000.
    """
    if not isinstance(raw, Mapping):
        raise ValueError("sidecar: expected an object with 'items'")
    unknown = sorted(set(raw) - {"items", "acceptance", "min_response_ms"})
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown field of the sidecar")
    items = parse_items(raw.get("items"))
    acceptance_raw = raw.get("acceptance")
    if acceptance_raw is None:
        binary = [item["key"] for item in items if item["scale"]["kind"] == "binary"]
        first = items[0]
        acceptance_raw = (
            {"item": binary[0]}
            if binary
            else {"item": first["key"], "min": acceptable_cut(first["scale"])}
        )
    acceptance = parse_acceptance(acceptance_raw, items)
    floor = raw.get("min_response_ms", DEFAULT_MIN_RESPONSE_MS)
    if isinstance(floor, bool) or not isinstance(floor, int) or floor < 0:
        raise ValueError("min_response_ms: expected an integer >= 0")
    return Sidecar(tuple(items), acceptance, floor)
