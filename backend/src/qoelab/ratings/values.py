"""A rating's values: one number per rating item, each on its item's scale.

The scale rules are :mod:`qoe_analysis.scales` (a value is valid iff min <= v <= max and,
on every kind but continuous, an integer). A DCR item (ITU-T P.800 annex D) rates the
degradation relative to the baseline, so it needs a rated baseline earlier in the session.
"""

from __future__ import annotations

from typing import Any

from qoe_analysis import scales

OVERALL = scales.OVERALL


class ItemError(ValueError):
    """A value the items refuse; ``item`` names the item at fault (None: the whole body)."""

    def __init__(self, message: str, item: str | None = None) -> None:
        super().__init__(message)
        self.item = item


def is_single_overall(items: list[dict[str, Any]]) -> bool:
    """True for a study whose only item is "overall" (the legacy ``score`` body fits it)."""
    return len(items) == 1 and items[0]["key"] == OVERALL


def needs_baseline(items: list[dict[str, Any]]) -> bool:
    """Does any item depend on whether a baseline was rated (a DCR item)? When none does,
    :func:`asked_items` and :func:`clean_values` give the same answer for either value of
    ``baseline_rated``, so the callers skip the query that finds out (a rating poll of such
    a study is one query instead of two)."""
    return any(item["scale"]["kind"] == "dcr5" for item in items)


def asked_items(items: list[dict[str, Any]], *, baseline_rated: bool) -> list[dict[str, Any]]:
    """The items the rating screen asks: DCR items only once a baseline has been rated."""
    return [i for i in items if baseline_rated or i["scale"]["kind"] != "dcr5"]


def clean_values(
    items: list[dict[str, Any]], values: Any, *, baseline_rated: bool = True
) -> dict[str, int | float]:
    """``values`` checked against ``items`` (raise :class:`ItemError` naming the item).

    Refused: not an object, an unknown key, a value outside its scale or not an integer on
    a discrete scale, a required item without a value, and a DCR value while
    ``baseline_rated`` is false (a DCR item is not asked then, so not required either).
    Integer-valued numbers on discrete scales are stored as integers; the result keeps the
    items' order.
    """
    if not isinstance(values, dict):
        raise ItemError("values: an object {item key: number}")
    known = {item["key"]: item for item in items}
    for key in values:
        if key not in known:
            raise ItemError(
                f"{key}: not a rating item of this study (items: {', '.join(known)})", str(key)
            )
    cleaned: dict[str, int | float] = {}
    for key, item in known.items():
        value = values.get(key)
        scale = item["scale"]
        required = item.get("required", True)
        if scale["kind"] == "dcr5" and not baseline_rated:
            if value is not None:
                raise ItemError(
                    f"{key}: a DCR rating compares with the baseline, and no baseline has "
                    "been rated in this session yet",
                    key,
                )
            continue  # not asked before a baseline was rated, even when required
        if value is None:
            if required:
                raise ItemError(f"{key}: a value is required", key)
            continue
        try:
            scales.validate_value(scale, value, key)
        except ValueError as exc:
            raise ItemError(str(exc), key) from None
        cleaned[key] = int(value) if scales.is_discrete(scale) else float(value)
    return cleaned
