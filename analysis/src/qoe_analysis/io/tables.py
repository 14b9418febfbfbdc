"""The CSV tables and the tree's rules that ``qoe-analysis analyze --out`` writes beside the
JSON document, each read from the document's sections. Text cells are escaped against
spreadsheet formulas (:mod:`qoe_analysis.io.csv_cells`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from qoe_analysis.io.csv_cells import escape_text_cell
from qoe_analysis.io.marginals_text import marginal_rows

__all__ = ["escaped", "write_tables"]


def escaped(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its text cells escaped against spreadsheet formulas (a game ``=x`` is
    written ``'=x``); numbers unchanged."""
    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or str(out[column].dtype).startswith(("str", "string")):
            out[column] = out[column].map(
                lambda cell: escape_text_cell(cell) if isinstance(cell, str) else cell
            )
    return out


def _write(frame: pd.DataFrame, path: Path) -> None:
    escaped(frame).to_csv(path, index=False)


def write_tables(doc: Mapping[str, Any], out: Path) -> None:
    """conditions, intra-/inter-rater, P.913 screening, subject model, rater status,
    weights, thresholds, per-item MOS and MOS by factor level (``marginals``, one row per
    point) as CSV files in ``out``; ``tree_rules.txt``."""
    rel = doc["reliability"]
    subject = doc["subject_model"]
    _write(pd.DataFrame(doc["conditions"]).drop(columns=["distribution"]), out / "conditions.csv")
    _write(pd.DataFrame(rel["intra"]), out / "intra_rater.csv")
    _write(pd.DataFrame(rel["screening"]["p913"]["per_rater"]), out / "p913_screening.csv")
    _write(pd.DataFrame(subject["conditions"]), out / "subject_model_conditions.csv")
    _write(pd.DataFrame(subject["raters"]), out / "subject_model_raters.csv")
    _write(_rater_status(rel), out / "rater_status.csv")
    inter = pd.DataFrame(rel["inter"])
    quantiles = inter.pop("quantiles").apply(lambda q: pd.Series(q or {}))
    _write(
        pd.concat([inter.drop(columns=["scenarios"]), quantiles], axis=1), out / "inter_rater.csv"
    )
    _write(_weights(doc["weights"]), out / "weights.csv")
    _write(_thresholds(doc["thresholds"]), out / "thresholds.csv")
    _write(
        pd.DataFrame(
            [{"item": key, **row} for key, entry in doc["per_item"].items() for row in entry["mos"]]
        ).drop(columns=["distribution"]),
        out / "items_mos.csv",
    )
    _write(marginal_rows(doc["marginals"]), out / "mos_by_factor.csv")
    (out / "tree_rules.txt").write_text(
        "\n".join(r["text"] for r in doc["tree"]["rules"]) + "\n", encoding="utf-8"
    )


def _rater_status(rel: dict[str, Any]) -> pd.DataFrame:
    """One row per rater: each screening rule's status and its reason."""
    reasons = {
        "intra_rater": {r["rater_id"]: r["reason"] for r in rel["intra"]},
        "p913": {r["rater_id"]: r["reason"] for r in rel["screening"]["p913"]["per_rater"]},
        "straight_lining": {
            r["rater_id"]: r["reason"] for r in rel["screening"]["straight_lining"]["per_rater"]
        },
    }
    # the straight-lining table lists only the raters it flags
    default = {"straight_lining": "ratings vary within every session"}
    rows = []
    for entry in rel["rater_status"]:
        row = {"rater_id": entry["rater_id"]}
        for rule, why in reasons.items():
            row[f"{rule}_status"] = entry.get(rule)
            row[f"{rule}_reason"] = why.get(entry["rater_id"], default.get(rule))
        rows.append(row)
    return pd.DataFrame(rows)


def _weights(weights: dict[str, Any]) -> pd.DataFrame:
    factors = list(weights["weka"])
    return pd.DataFrame(
        {
            "factor": factors,
            "weka_info_gain_bits": [weights["weka"][f] for f in factors],
            "rapidminer_weight": [weights["rapidminer"][f] for f in factors],
            "rapidminer_gain_bits": [weights["rapidminer_gain_bits"][f] for f in factors],
        }
    )


def _thresholds(thresholds: dict[str, Any]) -> pd.DataFrame:
    rows = []
    for pace, per_dir in thresholds["by_pace"].items():
        for direction in ("downstream", "upstream", "both"):
            for key, entry in per_dir.get(direction, {}).items():
                scalars = {k: v for k, v in entry.items() if not isinstance(v, list)}
                rows.append({"pace": pace, "direction": direction, "quantity": key, **scalars})
    return pd.DataFrame(rows)
