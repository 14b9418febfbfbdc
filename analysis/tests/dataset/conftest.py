"""Shared data of the dataset tests: the P.809-like dataset of fixtures/data/p809_dataset, and
a small hand-made descriptor with its tables."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

REPO = Path(__file__).resolve().parents[3]
DATASET = REPO / "fixtures" / "data" / "p809_dataset"
DESCRIPTOR = DATASET / "descriptor.json"


def small_descriptor(**schema_extra: Any) -> dict[str, Any]:
    """One file ``a.csv``: player, game, a 0–6 rating, delay in both directions."""
    return {
        "profile": "qoe-lab-dataset",
        "version": 1,
        "name": "small",
        "resources": [{"path": "a.csv"}],
        "schema": {
            "missingValues": ["", "NA"],
            "fields": [
                {"name": "Player", "type": "string", "role": "rater"},
                {"name": "Game", "type": "string", "role": "game"},
                {
                    "name": "QoE",
                    "type": "integer",
                    "role": "rating",
                    "scale": {"min": 0, "max": 6},
                    "acceptable_from": 4,
                },
                {
                    "name": "Delay",
                    "type": "number",
                    "role": "factor",
                    "factor": "delay",
                    "direction": "both",
                    "unit": "ms",
                },
            ],
            **schema_extra,
        },
    }


def table(rows: list[list[Any]], columns: list[str]) -> pd.DataFrame:
    """A table of text cells, as the reader gives it."""
    return pd.DataFrame([[str(c) for c in row] for row in rows], columns=columns, dtype=object)


def small_rows(n_players: int = 3, delays: tuple[int, ...] = (0, 50, 100, 200)) -> pd.DataFrame:
    """Every player rates every delay in one game; ratings fall with the delay."""
    rows = [
        [f"Player {p + 1}", "Racing", str(max(0, 6 - i - p % 2)), str(d)]
        for p in range(n_players)
        for i, d in enumerate(delays)
    ]
    return table(rows, ["Player", "Game", "QoE", "Delay"])
