"""Sections of the analysis document built from computed results: rows selected and
arranged, no statistic computed here (the numbers come from :mod:`qoe_analysis.stats` and
:mod:`qoe_analysis.models`). Used by the pipeline in :mod:`qoe_analysis.report`."""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, TypeVar, cast

import numpy as np
import pandas as pd

from qoe_analysis.items import ItemTables
from qoe_analysis.jsonable import json_ready, records, rows_as_dicts
from qoe_analysis.schema import Reliability, SosHypothesis, SubjectModel
from qoe_analysis.schema.model_types import Weights
from qoe_analysis.schema.stats_types import RaterStatusRow, SosSection
from qoe_analysis.stats.p913 import R1_THRESHOLD
from qoe_analysis.stats.per_item import ItemStats
from qoe_analysis.stats.sos_hypothesis import sos_formula
from qoe_analysis.stats.straight_lining import MIN_RATINGS_PER_SESSION
from qoe_analysis.study_factors import (
    analysed_factors,
    factor_columns_in,
    merged_factor_pairs,
    select_factors,
    varying_factor_columns,
)
from qoe_analysis.tidy.columns import AGENT_BACKEND, DRY_RUN, PROVENANCE_COLUMNS
from qoe_analysis.tidy.design import GAME, PACE, RATER, REQUIRED_COLUMNS

__all__ = [
    "agent_backends",
    "dry_run_note",
    "factor_frame",
    "plain",
    "rater_factor_columns",
    "rater_status",
    "reliability_section",
    "rows_of",
    "sos_hypothesis_section",
    "subject_model_section",
    "weights_section",
    "without_attrs",
]

T = TypeVar("T")

WEIGHT_CONVENTIONS = {
    "weka": "InfoGainAttributeEval: MDL-discretised numeric factors, "
    "information gain in bits, not normalised",
    "rapidminer": "Weight by Information Gain: best binary split for numeric "
    "factors, weights normalised as (w - min) / (max - min)",
}


def plain(value: T) -> T:
    """``value`` with numpy scalars as Python values and NaN/±inf as None (its type kept)."""
    return cast(T, json_ready(value))


def rater_status(statuses: dict[str, pd.DataFrame]) -> list[RaterStatusRow]:
    """One entry per rater: {rater_id, <rule>: status} for every rule (the reasons are in
    each rule's own table, so large studies do not carry them twice).

    The rules' tables normally list the same raters in the same (sorted) order; then the
    entries are built column by column. Otherwise they are merged rater by rater (a rater
    missing from a rule has no key for it)."""
    raters = {rule: frame[RATER].astype(str).tolist() for rule, frame in statuses.items()}
    status = {rule: frame["status"].astype(str).tolist() for rule, frame in statuses.items()}
    columns = list(raters.values())
    first = columns[0] if columns else []
    in_order = all(map(operator.lt, first, first[1:]))  # sorted and distinct
    if in_order and all(column == first for column in columns):
        return cast(
            list[RaterStatusRow], rows_as_dicts([RATER, *statuses], [first, *status.values()])
        )
    merged: dict[str, dict[str, Any]] = {}
    for rule in statuses:
        for rater, value in zip(raters[rule], status[rule], strict=True):
            entry = merged.get(rater)
            if entry is None:
                entry = merged[rater] = {RATER: rater}
            entry[rule] = value
    return [cast(RaterStatusRow, merged[k]) for k in sorted(merged)]


def rows_of(column: pd.Series, values: list[Any]) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """``column.isin(set(values))`` as a bool array. A categorical column (the validated
    table's rater_id) is tested once per category and the answer spread by its codes; a
    missing cell (code −1) is never in ``values``."""
    wanted = set(values)
    if isinstance(column.dtype, pd.CategoricalDtype):
        per_category = np.append(np.asarray(column.cat.categories.isin(wanted), bool), False)
        return per_category[column.cat.codes.to_numpy()]
    return column.isin(wanted).to_numpy()


def factor_frame(table: pd.DataFrame, merged: dict[str, list[str]] | None = None) -> pd.DataFrame:
    """The factors: every impairment factor column that varies (registry order; constant
    ones carry no information and are left out), game pace, game (unless it only restates
    the pace), and every extra per-rater/per-session column (provenance columns are no
    factor: which agent applied an impairment must not explain a rating).

    A factor whose two directions are equal in every rating is one column ``both_X``
    (:func:`~qoe_analysis.study_factors.merged_factor_pairs`) in place of ``ds_X``/``us_X``;
    ``merged`` passes the pairs found on the whole study (default: found on ``table``)."""
    extra = rater_factor_columns(table)
    varying = varying_factor_columns(table)
    pairs = merged_factor_pairs(table, varying) if merged is None else merged
    pairs = {both: pair for both, pair in pairs.items() if pair[0] in varying}
    columns = [*analysed_factors(varying, pairs), PACE]
    if table[GAME].nunique() > table[PACE].nunique():
        columns.append(GAME)
    return select_factors(table, [*columns, *extra])


def rater_factor_columns(table: pd.DataFrame) -> list[str]:
    """The per-rater or per-session columns that are factors: every column that is not an
    identity column, the rating, an impairment factor or provenance (table order)."""
    present = set(factor_columns_in(table.columns))
    return [
        c
        for c in table.columns
        if c not in REQUIRED_COLUMNS and c not in present and c not in PROVENANCE_COLUMNS
    ]


def _bare(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame (a shallow copy) without ``attrs``."""
    out = frame.copy(deep=False)
    out.attrs = {}
    return out


def without_attrs(split: ItemTables) -> ItemTables:
    """The item tables without the validation's ``attrs`` (sidecar, weak reference).

    pandas deep-copies ``attrs`` into every frame derived from one (``__finalize__``), a
    few hundred times per analysis; once the sidecar is read, the analysis needs them no
    more. Shallow copies: the caller's frame keeps its ``attrs``.
    """
    return dataclasses.replace(
        split,
        tables={key: _bare(frame) for key, frame in split.tables.items()},
        long=_bare(split.long),
    )


def agent_backends(table: pd.DataFrame) -> dict[str, int] | None:
    """Ratings per agent backend (``agent_backend``; "" = unknown), None without the column."""
    if AGENT_BACKEND not in table.columns:
        return None
    counts = table[AGENT_BACKEND].astype(str).value_counts()
    return {str(name): int(n) for name, n in sorted(counts.items())}


def dry_run_note(backends: dict[str, int] | None, n_ratings: int) -> dict[str, str]:
    """``{"provenance": reason}`` when ratings were taken on a dry-run agent."""
    dry = (backends or {}).get(DRY_RUN, 0)
    if not dry:
        return {}
    return {
        "provenance": f"{dry} of {n_ratings} ratings were taken on a dry-run agent: no "
        "impairment was applied to a kernel, so they rate an unimpaired game (a rehearsal)"
    }


def sos_hypothesis_section(
    scale: dict[str, Any], used: SosSection, all_raters: SosSection, reliable: SosSection | None
) -> SosHypothesis:
    """The fit used (``used``: reliable raters when ``reliable_only``) and both groups'."""
    return {
        "formula": sos_formula(scale["min"], scale["max"]),
        "fitted_on": "scenario x game conditions with n >= 2",
        "a": used["a"],
        "r2": used["r2"],
        "rmse_sos": used["rmse_sos"],
        "n_conditions": used["n_conditions"],
        "by_game": used["by_game"],
        "all_raters": all_raters,
        "reliable_raters": reliable,
    }


def reliability_section(
    stats: ItemStats, cutoff: float, quality_control: dict[str, Any]
) -> Reliability:
    """Intra/inter-rater reliability and the screening rules of the primary item, with
    the quality-control verdicts (ITU-T P.808)."""
    summary = plain({k: v for k, v in stats.p913_summary.items() if k != "r1_threshold"})
    flat = stats.flat
    return {
        "cutoff": cutoff,
        "scenario_groups": plain({name: g.levels for name, g in stats.groups.items()}),
        "intra": cast(Any, records(stats.intra)),
        "reliable_raters": plain(stats.reliable_ids),
        "inter": plain(cast(Any, stats.inter)),
        "screening": {
            "p913": {
                "threshold": R1_THRESHOLD,
                "r2_threshold": summary["r2_threshold"],
                "rule": summary["rule"],
                "source": summary["source"],
                "r1": summary["r1"],
                "r2": summary["r2"],
                "status": summary["status"],
                "reason": summary["reason"],
                "min_raters_per_condition": summary["min_raters_per_condition"],
                "min_conditions_per_rater": summary["min_conditions_per_rater"],
                "n_conditions_used": summary["n_conditions_used"],
                "n_conditions_total": summary["n_conditions_total"],
                "passes": summary["passes"],
                "rejected_per_pass": summary["rejected_per_pass"],
                "per_rater": cast(Any, records(stats.p913)),
                "rejected": stats.status_lists["unreliable"]["p913"],
                "not_assessable": stats.status_lists["not_assessable"]["p913"],
            },
            "straight_lining": {
                "min_ratings_per_session": MIN_RATINGS_PER_SESSION,
                "sessions": cast(Any, records(flat)),
                "rejected": sorted(set(flat[RATER].tolist())),
                # every rater not listed here is reliable: ratings vary in every judged
                # session
                "per_rater": cast(
                    Any, records(stats.flat_status[stats.flat_status["status"] != "reliable"])
                ),
            },
            "quality_control": cast(Any, quality_control),
        },
        "rejected_by_rule": cast(Any, stats.status_lists["unreliable"]),
        "not_assessable_by_rule": cast(Any, stats.status_lists["not_assessable"]),
        "rater_status": rater_status(stats.statuses),
    }


def subject_model_section(
    stats: ItemStats, subject_records: tuple[list[Any], list[Any]]
) -> SubjectModel:
    """The subject model of the primary item (all raters) with its condition and rater
    tables (``subject_records``, shared with the primary item's ``per_item`` entry)."""
    subject = stats.subject
    fit = plain(subject.to_dict())
    return {
        "model": "rating = quality[condition] + bias[rater] + inconsistency[rater] * N(0, 1)",
        "method": "maximum likelihood (ITU-T P.910 annex; sureal "
        "MaximumLikelihoodEstimationModelContentOblivious), all raters, "
        "standard errors from the Fisher information, 95 % CI = estimate +- 1.96 se",
        "fitted_on": "all ratings",
        "status": fit["status"],
        "condition_columns": fit["condition_columns"],
        "convergence": fit["convergence"],
        "not_identifiable": cast(Any, subject.not_identifiable),
        "conditions": cast(Any, subject_records[0]),
        "raters": cast(Any, subject_records[1]),
    }


def weights_section(
    target: str,
    weka: dict[str, Any],
    rapid: dict[str, Any],
    cuts: dict[str, Any],
    rapid_raw: dict[str, Any],
) -> Weights:
    """Information-gain weights of the factors for "acceptable" (two conventions)."""
    section: Weights = {
        "target": f"acceptable = {target}",
        "weka": weka,
        "rapidminer": rapid,
        "weka_mdl_cut_points": cuts,
        "rapidminer_gain_bits": rapid_raw,
        "conventions": {
            "weka": WEIGHT_CONVENTIONS["weka"],
            "rapidminer": WEIGHT_CONVENTIONS["rapidminer"],
        },
    }
    return plain(section)
