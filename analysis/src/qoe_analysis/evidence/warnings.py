"""The analysis document's ``warnings``: what its numbers cannot support, in plain words.

Each warning is ``{code, message, where}`` (:class:`~qoe_analysis.schema.document.DocWarning`):
``where`` is the dotted document path it concerns, ``message`` states the numbers (have /
need). The rules, in the order the list has them (docs/methods.md, "Warnings"):

* ``thin_evidence`` — a game with < 2 raters, conditions with fewer ratings than a ±0.5 MOS
  interval needs (``planning``), the SOS fit on < 3 conditions;
* ``not_assessable`` — raters a screening rule cannot judge, per rule, with the reasons;
* ``few_reliable_raters`` — ``reliable_only`` keeps less than ``min_reliable_share``;
* ``interval_clipped`` / ``no_interval`` — MOS intervals clipped to the scale / n < 2;
* ``extrapolated`` — logistic thresholds or joint corners beyond the tested levels;
* ``dominant_raters`` — a few raters give half the ratings;
* ``dry_run`` — ratings from dry-run sessions (no impairment applied);
* ``collinear_factors`` / ``merged_factors`` — factors that never vary apart / were merged;
* ``model_weak`` — the tree's cross-validated accuracy is not above the majority class;
* ``marginal_thresholds`` — thresholds located with the other factors at baseline;
* ``no_joint_bound`` — paces (or the whole joint model) without a joint bound;
* ``rater_proxy`` — a per-rater/per-session factor with nearly a level per rater: its weight
  measures rater bias (:mod:`qoe_analysis.evidence.rater_proxy`).

Pure functions; sections another step has not added read as absent (no warning).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from qoe_analysis.evidence.rater_proxy import rater_proxy
from qoe_analysis.evidence.warning_evidence import (
    dominant_raters,
    dry_run,
    few_reliable_raters,
    not_assessable,
    thin_evidence,
)
from qoe_analysis.evidence.warning_models import (
    collinear_factors,
    extrapolated,
    interval_warnings,
    marginal_thresholds,
    merged_factors,
    model_weak,
    no_joint_bound,
)
from qoe_analysis.schema.document import DocWarning
from qoe_analysis.tidy.design import GAME, RATER

__all__ = ["document_warnings", "raters_per_game", "ratings_per_rater"]


def ratings_per_rater(table: pd.DataFrame) -> list[int]:
    """The number of ratings of each rater in ``table`` (one grouping pass)."""
    counts = table[RATER].value_counts(sort=False)
    return [int(n) for n in counts.to_numpy() if n > 0]


def raters_per_game(table: pd.DataFrame) -> dict[str, int]:
    """Distinct raters per game of ``table`` (games that have ratings)."""
    counts = table.groupby(GAME, observed=True, sort=True)[RATER].nunique()
    return {str(g): int(n) for g, n in counts.items() if n > 0}


def document_warnings(
    doc: Mapping[str, Any], table: pd.DataFrame | None = None
) -> list[DocWarning]:
    """Every warning of the document ``doc``; ``table`` is the analysed ratings table (the
    rows behind ``conditions``), needed for raters per game and ratings per rater (without
    it those two rules and ``rater_proxy`` are skipped)."""
    games = raters_per_game(table) if table is not None and len(table) else None
    counts = ratings_per_rater(table) if table is not None and len(table) else []
    return [
        *thin_evidence(doc, games),
        *not_assessable(doc),
        *few_reliable_raters(doc),
        *interval_warnings(doc),
        *extrapolated(doc),
        *dominant_raters(counts),
        *dry_run(doc),
        *collinear_factors(doc),
        *merged_factors(doc),
        *model_weak(doc),
        *marginal_thresholds(doc),
        *no_joint_bound(doc),
        *rater_proxy(doc, table),
    ]
