"""The ``marginals`` section of a study: which ratings and which factors enter it.

The numbers come from :func:`qoe_analysis.stats.marginals.marginals_section`; this module
picks its inputs the way the rest of the document does, so that the section and the
``qoe-analysis marginals`` command show the same numbers:

* items: every rated item (declaration order), each on its own scale; the primary item's
  ratings are the analysed ones (the reliable raters' under ``reliable_only``, as
  ``conditions``), the other items' are restricted to the same raters;
* factors: the analysed network factors (``meta.network_factors``: the varying registry
  columns, ``both_X`` for a merged pair) and the per-rater or per-session columns that the
  models take as factors (:func:`qoe_analysis.report_sections.rater_factor_columns`);
  the game is the series (per game and "all"), its pace class no factor of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from qoe_analysis.dataset.design import MISSING_LEVEL
from qoe_analysis.items import ItemTables, split_items
from qoe_analysis.report_sections import rater_factor_columns, rows_of, without_attrs
from qoe_analysis.scales import Sidecar, primary_item
from qoe_analysis.schema.marginal_types import Marginals
from qoe_analysis.stats.marginals import marginals_section
from qoe_analysis.study_factors import (
    analysed_factors,
    merged_factor_pairs,
    varying_factor_columns,
)
from qoe_analysis.tidy.design import RATER
from qoe_analysis.tidy.validation import is_validated, table_sidecar, validate_ratings

__all__ = ["study_marginals", "table_marginals"]


def study_marginals(
    split: ItemTables,
    primary: str,
    analysed: pd.DataFrame,
    network: Sequence[str],
    reliable_ids: Sequence[Any] | None = None,
) -> Marginals:
    """The section for the item tables of a study: ``analysed`` is the primary item's table
    as analysed, ``network`` the analysed network factors, ``reliable_ids`` the raters kept
    by ``reliable_only`` (None: all raters)."""
    tables: dict[str, pd.DataFrame] = {}
    for key in split.rated_keys:
        table = analysed if key == primary else split.tables[key]
        if reliable_ids is not None and key != primary:
            table = table[rows_of(table[RATER], list(reliable_ids))]
        if len(table):
            tables[key] = table
    scales = {key: split.sidecar.item(key)["scale"] for key in tables}
    return marginals_section(
        tables,
        scales,
        network,
        rater_factor_columns(split.tables[primary]),
        raters="all" if reliable_ids is None else "reliable",
        # a dataset's questionnaire gap: a level of its own for the models, no value here
        missing_texts=(MISSING_LEVEL,),
    )


def table_marginals(df: pd.DataFrame, sidecar: Sidecar | None = None) -> Marginals:
    """The section of a ratings table, all raters (what ``qoe-analysis marginals`` prints
    and ``analyze`` puts into its document without ``reliable_only``): validated unless it
    is the table :func:`~qoe_analysis.tidy.validation.validate_ratings` returned, training
    rows removed."""
    table = df if is_validated(df, sidecar) else validate_ratings(df, sidecar=sidecar)
    found = table_sidecar(table)
    split = without_attrs(split_items(table, found))
    primary = primary_item([found.item(k) for k in split.rated_keys])
    ratings = split.tables[primary]
    network = analysed_factors(varying_factor_columns(ratings), merged_factor_pairs(ratings))
    return study_marginals(split, primary, ratings, network)
