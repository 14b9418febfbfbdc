"""The ``marginals`` section as a table: aligned text for a terminal (``qoe-analysis
marginals``) and one row per point for CSV (``--csv``, and ``mos_by_factor.csv`` beside
``analyze --out``'s document)."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

__all__ = ["ROW_COLUMNS", "WIDTH", "aligned", "marginal_rows", "marginals_text"]

#: The heading's line width (the tables are as wide as their cells).
WIDTH = 100

#: The CSV's columns, one row per point of a series.
ROW_COLUMNS = (
    "item",
    "factor",
    "unit",
    "game",
    "point",
    "level",
    "low",
    "high",
    "n",
    "n_raters",
    "mos",
    "sos",
    "ci95_low",
    "ci95_high",
    "ci95_status",
)
_HEADER = ("game", "level", "n", "raters", "MOS", "SOS", "95 % CI", "status")
_RIGHT = frozenset({2, 3, 4, 5})
_BINNINGS = {
    "levels": "tested levels",
    "quantiles": "equal-count bins",
    "top_levels": "most-rated levels",
}


def marginal_rows(section: Mapping[str, Any]) -> pd.DataFrame:
    """One row per point of every series (columns :data:`ROW_COLUMNS`)."""
    units = {f["factor"]: f["unit"] for f in section["factors"]}
    rows = [
        {
            "item": s["item"],
            "factor": s["factor"],
            "unit": units.get(s["factor"], ""),
            "game": s["game"],
            "point": p["label"],
            **{k: p[k] for k in ROW_COLUMNS[5:]},
        }
        for s in section["series"]
        for p in s["points"]
    ]
    return pd.DataFrame(rows, columns=list(ROW_COLUMNS))


def aligned(
    header: Sequence[str], rows: Sequence[Sequence[str]], right: frozenset[int]
) -> list[str]:
    """The rows under the header in columns two spaces apart, the ``right`` ones (by
    position) aligned right, the others left; no trailing blanks."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(
            cell.rjust(w) if i in right else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in [header, *rows]
    ]


def _fixed(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _interval(point: Mapping[str, Any]) -> str:
    if point["ci95_low"] is None:
        return "-"
    return f"[{point['ci95_low']:.3f}, {point['ci95_high']:.3f}]"


def _row(game: str, point: Mapping[str, Any]) -> list[str]:
    return [
        game,
        point["label"],
        str(point["n"]),
        str(point["n_raters"]),
        _fixed(point["mos"]),
        _fixed(point["sos"]),
        _interval(point),
        point["ci95_status"],
    ]


def _title(item: str, factor: Mapping[str, Any]) -> str:
    unit = f"; {factor['unit']}" if factor["unit"] else ""
    how = _BINNINGS.get(factor["binning"], factor["binning"])
    return f"item {item}, factor {factor['factor']} ({factor['label']}{unit}; {how})"


def marginals_text(section: Mapping[str, Any]) -> str:
    """The section as text: a heading, then per item and factor one aligned table of its
    points per game and over all games ("all"), and the ratings without a value."""
    factors = {f["factor"]: f for f in section["factors"]}
    blocks: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for s in section["series"]:
        blocks.setdefault((s["item"], s["factor"]), []).append(s)
    heading = (
        f"MOS by factor level ({section['raters']} raters): {section['method']}",
        f"points: {section['binning']}",
    )
    lines = [
        line for text in heading for line in textwrap.wrap(text, WIDTH, break_on_hyphens=False)
    ]
    for (item, factor), series in blocks.items():
        rows = [_row(s["game"], p) for s in series for p in s["points"]]
        lines += ["", _title(item, factors[factor]), *aligned(_HEADER, rows, _RIGHT)]
        missing = [f"{s['game']} {s['n_missing']}" for s in series if s["n_missing"]]
        if missing:
            lines.append(f"ratings without a value (in no point): {', '.join(missing)}")
    lines += [""] + [f"no view of {k}: {why}" for k, why in section["notes"].items()]
    return "\n".join(lines).rstrip("\n") + "\n"
