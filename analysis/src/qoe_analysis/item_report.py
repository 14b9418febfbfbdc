"""The rating-item sections of the analysis document and the "acceptable" target.

"Acceptable" (the target of weights, tree and thresholds) follows the study's acceptance
rule (:func:`qoe_analysis.scales.parse_acceptance`): per rating slot, the binary acceptance
item's value = 1, or the rule's item ≥ its cut (default: overall ≥ 3 on ACR-5, the
reference study's rule). The new sections are ``items``, ``per_item``,
``item_correlations``, ``response_times``, ``fast_raters`` and ``training``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.items import ItemTables
from qoe_analysis.jsonable import json_ready
from qoe_analysis.scales import Sidecar, parse_acceptance
from qoe_analysis.schema.document import ItemSections
from qoe_analysis.schema.stats_types import PerItem
from qoe_analysis.stats.item_correlations import item_correlations
from qoe_analysis.stats.per_item import ItemStats, item_section, item_stats
from qoe_analysis.stats.response_times import fast_raters, response_times_by_item
from qoe_analysis.tidy.design import RATER, RATING

__all__ = ["ItemSections", "acceptance_target", "item_report_sections", "resolve_acceptance"]


def resolve_acceptance(
    sidecar: Sidecar, primary: str, acceptable_from: float | None, rated: list[str]
) -> dict[str, Any]:
    """The acceptance rule: primary item ≥ ``acceptable_from`` when given (CLI
    ``--acceptable-from``), else the sidecar's rule; its item must have ratings."""
    if acceptable_from is not None:
        rule = parse_acceptance({"item": primary, "min": acceptable_from}, sidecar.items)
    else:
        rule = dict(sidecar.acceptance)
    if rule["item"] not in rated:
        raise ValueError(f"acceptance.item: item {rule['item']!r} has no (non-training) rating")
    return rule


def acceptance_target(
    split: ItemTables,
    primary: str,
    acceptance: dict[str, Any],
    analysed: pd.DataFrame,
    reliable_ids: list[Any],
    reliable_only: bool,
) -> tuple[pd.DataFrame, np.ndarray[Any, Any], str]:
    """The ratings table to learn from, its 0/1 target and the target as text.

    The rows are the acceptance item's ratings (one per slot; the factors are the slot's),
    restricted to the reliable raters of the primary item when ``reliable_only``.
    """
    key = acceptance["item"]
    if key == primary:
        decided = analysed
    else:
        decided = split.tables[key]
        if reliable_only:
            decided = decided[decided[RATER].isin(set(reliable_ids)).to_numpy()]
    values = decided[RATING].to_numpy()
    if "min" in acceptance:
        cut = acceptance["min"]
        y = (values >= cut).astype(np.int64)
        target = f"rating >= {cut}" if key == primary else f"{key} >= {cut:g}"
    else:
        y = (values == 1).astype(np.int64)
        target = f"{key} == 1"
    return decided, y, target


def item_report_sections(
    split: ItemTables,
    primary: str,
    primary_stats: ItemStats,
    *,
    seed: int,
    reliability_cutoff: float,
    primary_subject_records: tuple[list[Any], list[Any]] | None = None,
) -> ItemSections:
    """``items``, ``per_item``, ``item_correlations``, ``response_times``,
    ``fast_raters`` and ``training`` (all raters, training rows excluded).
    ``primary_subject_records`` (conditions, raters) reuses the top-level subject-model
    tables for the primary item."""
    sidecar = split.sidecar
    rated = split.rated_keys
    per_item: dict[str, PerItem] = {}
    for key in rated:
        if key == primary:
            per_item[key] = item_section(primary_stats, primary_subject_records)
            continue
        stats = item_stats(
            split.tables[key],
            sidecar.item(key)["scale"],
            seed=seed,
            reliability_cutoff=reliability_cutoff,
        )
        per_item[key] = item_section(stats)
    small: dict[str, Any] = json_ready(
        {
            "items": [
                {**item, "n": len(split.tables[item["key"]]) if item["key"] in rated else 0}
                for item in sidecar.items
            ],
            "item_correlations": item_correlations(split.tables, rated),
            "response_times": response_times_by_item(split.long, sidecar.keys),
            "fast_raters": fast_raters(split.long, sidecar.min_response_ms),
            "training": {"excluded_rows": split.training_excluded},
        }
    )
    # per_item is JSON-ready already (item_section)
    return {
        "items": small["items"],
        "per_item": per_item,
        "item_correlations": small["item_correlations"],
        "response_times": small["response_times"],
        "fast_raters": small["fast_raters"],
        "training": small["training"],
    }
