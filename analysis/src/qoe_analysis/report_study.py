"""The first step of the analysis: the validated study.

The ratings table validated once, its quality-control rows (ITU-T P.808 traps and hidden
references) split off and judged, training rows dropped, the table split by rating item,
and the primary item and the "acceptable" rule chosen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from qoe_analysis.item_report import resolve_acceptance
from qoe_analysis.items import ItemTables, split_items
from qoe_analysis.report_sections import without_attrs
from qoe_analysis.scales import Sidecar, primary_item
from qoe_analysis.study_factors import analysed_factors, merged_factor_pairs, varying_factor_columns
from qoe_analysis.tidy.columns import QC_COLUMNS
from qoe_analysis.tidy.quality_control_rows import (
    apply_quality_control,
    judge_table,
    split_quality_control,
)
from qoe_analysis.tidy.validation import is_validated, table_sidecar, validate_ratings

__all__ = ["Study", "validated_study"]


@dataclass(frozen=True)
class Study:
    """The validated table split by item, the primary item's table and the target rule."""

    split: ItemTables
    primary: str
    table: pd.DataFrame
    scale: dict[str, Any]
    acceptance: dict[str, Any]
    acceptable_from: float
    varying: list[str]
    #: reliability.screening.quality_control (ITU-T P.808 traps and hidden references)
    quality_control: dict[str, Any]


def validated_study(
    df: pd.DataFrame, sidecar: Sidecar | None, acceptable_from: float | None, exclude_qc: bool
) -> Study:
    """Validate once (a table load_ratings/validate_ratings returned is used as is), split
    off the quality-control rows (and the failed raters when ``exclude_qc``), drop
    training rows, pick the primary item and the acceptance rule."""
    qc = judge_table(df)
    if qc is None and any(column in df.columns for column in QC_COLUMNS):
        df, qc, _ = split_quality_control(df)
    long_table = df if is_validated(df, sidecar) else validate_ratings(df, sidecar=sidecar)
    sidecar = table_sidecar(long_table)
    long_table, qc_section = apply_quality_control(long_table, qc, sidecar, exclude=exclude_qc)
    split = without_attrs(split_items(long_table, sidecar))
    primary = primary_item([sidecar.item(k) for k in split.rated_keys])
    acceptance = resolve_acceptance(sidecar, primary, acceptable_from, split.rated_keys)
    table = split.tables[primary]
    return Study(
        split=split,
        primary=primary,
        table=table,
        scale=sidecar.item(primary)["scale"],
        acceptance=acceptance,
        acceptable_from=acceptance.get("min", 1),
        # a factor set to the same level on both directions is one factor, both_X
        varying=analysed_factors(varying_factor_columns(table), merged_factor_pairs(table)),
        quality_control=qc_section,
    )
