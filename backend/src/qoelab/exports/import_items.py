"""The CSV import's rating items: long-format rows (one per rating and item) into ratings.

A row's ``item`` (without the column: the study's only item, else ``overall``) must be
one of the study's rating items and its ``rating`` a value of the item's scale
(:func:`qoe_analysis.scales.validate_value`).
The rows of one rating (same session, scenario and ``training`` flag) become one rating
with a value per item; their ``response_ms``/``since_end_ms`` must agree.
"""

from __future__ import annotations

from typing import Any

from qoe_analysis import scales
from qoe_analysis.tidy_columns import ITEM

from qoelab.exports.import_cells import ImportRejected, number_cell
from qoelab.studies.models import Scenario


def implicit_item(items: dict[str, dict[str, Any]]) -> str | None:
    """The item of a CSV without an ``item`` column: the study's only item, else ``overall``
    when declared (the analysis reads such a file the same way), else None."""
    if len(items) == 1:
        return next(iter(items))
    return scales.OVERALL if scales.OVERALL in items else None


def item_value(
    row: dict[str, str], items: dict[str, dict[str, Any]], implicit: str | None, line: int
) -> tuple[str, int | float]:
    """The row's item (``implicit`` without the column) and its value on the item's scale."""
    item = row.get(ITEM) or implicit or scales.OVERALL
    declared = items.get(item)
    if declared is None:
        raise ImportRejected(
            f"item: {item!r} is not a rating item of this study ({', '.join(items)}); "
            "declare it in the study's rating_items first",
            line,
        )
    value = number_cell(row, "rating", line)
    try:
        scales.validate_value(declared["scale"], value, f"rating: item {item}")
    except ValueError as exc:
        raise ImportRejected(str(exc), line) from None
    return item, int(value) if scales.is_discrete(declared["scale"]) else value


def milliseconds(row: dict[str, str], column: str, line: int) -> int | None:
    raw = row.get(column) or ""
    if raw == "":
        return None
    value = number_cell(row, column, line)
    if value < 0 or not value.is_integer():
        raise ImportRejected(f"{column}: {raw!r} is not a whole number of milliseconds", line)
    return int(value)


def add_value(
    ratings: list[dict[str, Any]],
    row: dict[str, str],
    scenario: Scenario,
    applied: dict[str, Any],
    training: bool,
    item: str,
    value: int | float,
    line: int,
) -> None:
    """Add the row's value to its rating (same scenario and training flag) in the session's
    ``ratings``: a new rating for the first item, else one more value of the same rating."""
    times = {column: milliseconds(row, column, line) for column in ("response_ms", "since_end_ms")}
    rating = next(
        (r for r in ratings if r["scenario"] == scenario and r["training"] == training), None
    )
    if rating is None:
        ratings.append(
            {
                "scenario": scenario,
                "training": training,
                "values": {item: value},
                "applied": applied,
                "line": line,
                **times,
            }
        )
        return
    for column, ms in times.items():
        if ms != rating[column]:
            raise ImportRejected(
                f"{column}: {row.get(column) or 'empty'} differs from the other items of this "
                f"rating of scenario {row['scenario']} (line {rating['line']})",
                line,
            )
    rating["values"][item] = value


def order_entry(row: dict[str, Any]) -> dict[str, Any]:
    """The imported session's order entry for a rating (training slots as in the lab)."""
    scenario = row["scenario"]
    if row["training"]:
        return {"scenario": scenario.pk, "code": scenario.code, "round": 0, "training": True}
    return {"scenario": scenario.pk, "code": scenario.code, "round": 1}
