"""The CSV import's rating items: long-format rows (one per rating and item) into ratings.

A row's ``item`` (without the column: the study's only item, else ``overall``) is one of
the study's rating items and its ``rating`` a value of the item's scale (checked by the
analysis' contract, :mod:`qoelab.exports.import_table`).
The rows of one rating (same session, scenario and ``training`` flag) become one rating
with a value per item; their ``response_ms``/``since_end_ms`` must agree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from qoe_analysis import scales

from qoelab.exports.import_cells import ImportRejected
from qoelab.studies.models import Scenario


def implicit_item(items: Mapping[str, Any]) -> str | None:
    """The item of a CSV without an ``item`` column: the study's only item, else ``overall``
    when declared (the analysis reads such a file the same way), else None."""
    if len(items) == 1:
        return next(iter(items))
    return scales.OVERALL if scales.OVERALL in items else None


TIME_COLUMNS = ("response_ms", "since_end_ms")


def milliseconds(column: str, value: float | None, line: int) -> int | None:
    """A time: empty (not measured) or a whole number of ms (the contract checked that it
    is a number ≥ 0)."""
    if value is None:
        return None
    if not float(value).is_integer():
        raise ImportRejected(f"{column}: {value:g} is not a whole number of milliseconds", line)
    return int(value)


#: What an agent backend or version cell may hold (the agent's names: netlink, dry-run…).
_PROVENANCE_TEXT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,39}")


def imported_provenance(row: dict[str, str], line: int) -> dict[str, Any]:
    """``Rating.provenance`` of an imported row: the file's ``agent_backend`` and
    ``agent_version`` (a round trip of the export keeps them), else backend ``import``.
    What the file says is kept as said: the rating's ``source`` "import" marks that this
    server verified none of it."""
    cells = {column: row.get(column, "") for column in ("agent_backend", "agent_version")}
    for column, text in cells.items():
        if text and not _PROVENANCE_TEXT.fullmatch(text):
            raise ImportRejected(
                f"{column}: {text!r} is not a backend name or version "
                "(letters, digits, . _ + -; at most 40 characters)",
                line,
            )
    provenance: dict[str, Any] = {"backend": cells["agent_backend"] or "import"}
    if cells["agent_version"]:
        provenance["agent_version"] = cells["agent_version"]
    return provenance


def add_value(
    ratings: dict[tuple[int, bool], dict[str, Any]],
    scenario: Scenario,
    label: str,
    applied: dict[str, Any],
    training: bool,
    item: str,
    value: int | float,
    times: dict[str, int | None],
    line: int,
    provenance: dict[str, Any] | None = None,
) -> None:
    """Add a row's value to its rating (same scenario and training flag) in the session's
    ``ratings`` (keyed by scenario row and training flag, in the order of their first line):
    a new rating for the first item, else one more value of the same rating (whose times
    and provenance must agree)."""
    provenance = provenance if provenance is not None else {"backend": "import"}
    slot = (scenario.id, training)  # .id: a plain attribute, .pk a property
    rating = ratings.get(slot)
    if rating is None:
        ratings[slot] = {
            "scenario": scenario,
            "training": training,
            "values": {item: value},
            "applied": applied,
            "provenance": provenance,
            "line": line,
            "response_ms": times.get("response_ms"),
            "since_end_ms": times.get("since_end_ms"),
        }
        return
    times = {column: times.get(column) for column in TIME_COLUMNS}
    if provenance != rating["provenance"]:
        raise ImportRejected(
            "agent_backend/agent_version differ from the other items of this rating of "
            f"scenario {label} (line {rating['line']})",
            line,
        )
    for column, ms in times.items():
        if ms != rating[column]:
            shown = "empty" if ms is None else ms
            raise ImportRejected(
                f"{column}: {shown} differs from the other items of this "
                f"rating of scenario {label} (line {rating['line']})",
                line,
            )
    rating["values"][item] = value


def order_entry(row: dict[str, Any]) -> dict[str, Any]:
    """The imported session's order entry for a rating (training slots as in the lab)."""
    scenario = row["scenario"]
    if row["training"]:
        return {"scenario": scenario.pk, "code": scenario.code, "round": 0, "training": True}
    return {"scenario": scenario.pk, "code": scenario.code, "round": 1}
