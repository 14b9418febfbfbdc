"""Assemble the analysis document (the JSON printed by ``qoe-analysis analyze``).

:func:`analyze` validates the table, computes every section and returns plain Python
objects (dict / list / str / float / int / bool / None; NaN becomes None), so the result can
be passed to ``json.dumps`` as is. The numbers come from the pure functions of the other
modules; this module only selects rows and arranges the output.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis import __version__
from qoe_analysis.evidence.notes import NoReliableRatersError, no_reliable_message, pilot_notes
from qoe_analysis.item_report import acceptance_target, item_report_sections, resolve_acceptance
from qoe_analysis.items import ItemTables, split_items
from qoe_analysis.jsonable import json_ready, records, rows_as_dicts
from qoe_analysis.models.information_gain import (
    class_weighted_profiles,
    rapidminer_weights,
    weka_weights,
)
from qoe_analysis.models.thresholds import kpi_thresholds
from qoe_analysis.models.tree import fit_rep_tree, predict
from qoe_analysis.models.tree_rules import tree_rules, tree_to_dict
from qoe_analysis.scales import Sidecar, primary_item
from qoe_analysis.stats.conditions import condition_table
from qoe_analysis.stats.p913 import R1_THRESHOLD, R2_THRESHOLD
from qoe_analysis.stats.per_item import (
    condition_records,
    item_stats,
    sos_section,
)
from qoe_analysis.stats.reliability import no_group_reason
from qoe_analysis.stats.sos_hypothesis import sos_formula
from qoe_analysis.study_factors import (
    constant_factors,
    factor_columns_in,
    factor_info,
    varying_factor_columns,
)
from qoe_analysis.tabular import group_codes
from qoe_analysis.tidy.columns import AGENT_BACKEND, DRY_RUN, PROVENANCE_COLUMNS
from qoe_analysis.tidy.design import GAME, PACE, RATER, RATING, REQUIRED_COLUMNS, SCENARIO
from qoe_analysis.tidy.validation import is_validated, table_sidecar, validate_ratings

__all__ = ["NoReliableRatersError", "analyze", "factor_frame", "json_ready"]

Progress = Callable[[float, str], None]
P913_THRESHOLD = R1_THRESHOLD


def _rater_status(statuses: dict[str, pd.DataFrame]) -> list[dict[str, Any]]:
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
        return rows_as_dicts([RATER, *statuses], [first, *status.values()])
    merged: dict[str, dict[str, Any]] = {}
    for rule in statuses:
        for rater, value in zip(raters[rule], status[rule], strict=True):
            entry = merged.get(rater)
            if entry is None:
                entry = merged[rater] = {RATER: rater}
            entry[rule] = value
    return [merged[k] for k in sorted(merged)]


def rows_of(column: pd.Series, values: list[Any]) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """``column.isin(set(values))`` as a bool array. A categorical column (the validated
    table's rater_id) is tested once per category and the answer spread by its codes
    (1 M ratings: 0.1 s -> a few ms); a missing cell (code −1) is never in ``values``."""
    wanted = set(values)
    if isinstance(column.dtype, pd.CategoricalDtype):
        per_category = np.append(np.asarray(column.cat.categories.isin(wanted), bool), False)
        return per_category[column.cat.codes.to_numpy()]
    return column.isin(wanted).to_numpy()


def factor_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The factors: every impairment factor column that varies (registry order; constant
    ones carry no information and are left out), game pace, game (unless it only restates
    the pace), and every extra per-rater/per-session column (provenance columns are no
    factor: which agent applied an impairment must not explain a rating)."""
    present = set(factor_columns_in(table.columns))
    extra = [
        c
        for c in table.columns
        if c not in REQUIRED_COLUMNS and c not in present and c not in PROVENANCE_COLUMNS
    ]
    columns = [*varying_factor_columns(table), PACE]
    if table[GAME].nunique() > table[PACE].nunique():
        columns.append(GAME)
    return table[[*columns, *extra]]


def _bare(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame (a shallow copy) without ``attrs``."""
    out = frame.copy(deep=False)
    out.attrs = {}
    return out


def _without_attrs(split: ItemTables) -> ItemTables:
    """The item tables without the validation's ``attrs`` (sidecar, weak reference).

    pandas deep-copies ``attrs`` into every frame derived from one (``__finalize__``), a
    few hundred times per analysis (~0.1 s of a 1,200-rating run); once the sidecar is
    read, the analysis needs them no more. Shallow copies: the caller's frame keeps its
    ``attrs``.
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


def analyze(
    df: pd.DataFrame,
    *,
    acceptable_from: float | None = None,
    reliable_only: bool = False,
    seed: int = 0,
    reliability_cutoff: float = 0.6,
    progress: Progress | None = None,
    sidecar: Sidecar | None = None,
) -> dict[str, Any]:
    """Full analysis of a ratings table; returns the JSON-ready document (see docs/methods.md).

    The table is the long tidy table (:mod:`qoe_analysis.tidy.columns`); ``sidecar``
    declares its items (default: the one a validation stored, else "overall" on ACR-5).
    Training rows are removed before anything is computed. The top-level sections describe
    the primary item (:func:`qoe_analysis.scales.primary_item`); weights, tree and
    thresholds predict "acceptable" from the sidecar's acceptance rule, or from primary
    item >= ``acceptable_from`` when that is given. ``per_item`` repeats the per-rating
    results for every item on its scale.

    ``reliable_only`` restricts conditions, weights, tree and thresholds to the raters that
    pass the intra-rater rule (|ρ| > ``reliability_cutoff``) on the primary item; the
    reliability section and the SOS comparison always cover both groups.
    """

    def report(fraction: float, stage: str) -> None:
        if progress is not None:
            progress(fraction, stage)

    report(0.0, "validating")
    # one validation pass: the table load_ratings/validate_ratings returned is used as is
    long_table = df if is_validated(df, sidecar) else validate_ratings(df, sidecar=sidecar)
    sidecar = table_sidecar(long_table)
    split = _without_attrs(split_items(long_table, sidecar))
    primary = primary_item([sidecar.item(k) for k in split.rated_keys])
    acceptance = resolve_acceptance(sidecar, primary, acceptable_from, split.rated_keys)
    acceptable_from = acceptance.get("min", 1)
    table = split.tables[primary]
    scale = sidecar.item(primary)["scale"]
    present = factor_columns_in(table.columns)
    varying = varying_factor_columns(table)
    report(0.1, "reliability")
    stats = item_stats(table, scale, seed=seed, reliability_cutoff=reliability_cutoff)
    groups, intra, p913, flat = stats.groups, stats.intra, stats.p913, stats.flat
    reliable_ids = stats.reliable_ids
    statuses = stats.statuses
    reliable_mask = rows_of(table[RATER], reliable_ids)

    report(0.35, "conditions")
    conds_all = stats.conds_all
    # the condition table reads only these columns: copy them alone, not the whole table
    conds_reliable = (
        condition_table(table[[SCENARIO, GAME, RATING]][reliable_mask], scale=scale)
        if reliable_mask.any()
        else None
    )
    analysed = table[reliable_mask] if reliable_only else table
    if len(analysed) == 0:
        raise NoReliableRatersError(
            no_reliable_message(
                intra, reliability_cutoff, None if groups else no_group_reason(table)
            )
        )
    conds = conds_reliable if reliable_only else conds_all
    assert conds is not None
    network = table.drop_duplicates(SCENARIO).set_index(SCENARIO)[present]
    cond_out = condition_records(conds.join(network, on=SCENARIO), scale)

    report(0.4, "subject_model")
    subject = stats.subject

    report(0.45, "sos_hypothesis")
    sos_all = sos_section(conds_all, scale)
    sos_rel = sos_section(conds_reliable, scale) if conds_reliable is not None else None
    sos_used = sos_rel if reliable_only else sos_all
    assert sos_used is not None

    report(0.55, "information_gain")
    decided, y, target = acceptance_target(
        split, primary, acceptance, analysed, reliable_ids, reliable_only
    )
    factors = factor_frame(decided)
    profiles = group_codes(factors, list(factors.columns))
    # the gains from the distinct profiles and their class counts: the same numbers as from
    # every rating (whole-number weights), for a pass over thousands of rows, not millions
    weighted = class_weighted_profiles(*profiles, y)
    weka, cuts = weka_weights(*weighted)
    rapid, rapid_raw = rapidminer_weights(*weighted)

    report(0.7, "tree")
    root = fit_rep_tree(factors, y, seed=seed, profiles=profiles)
    accuracy = float((predict(root, profiles[1])[profiles[0]] == y).mean())

    report(0.85, "thresholds")
    impairments = [c for c in varying if c in factors.columns]
    thresholds = kpi_thresholds(
        factors,
        y,
        root,
        acceptable_from,
        profiles=profiles,
        impairments=impairments,
        target=None if target == f"rating >= {acceptable_from}" else target,
    )

    report(0.95, "assembling")
    backends = agent_backends(table)
    doc: dict[str, Any] = {
        "meta": {
            "qoe_analysis_version": __version__,
            "n_ratings": len(table),
            "n_raters": int(table[RATER].nunique()),
            "n_sessions": stats.n_sessions,
            "n_ratings_analysed": len(analysed),
            "acceptable_from": acceptable_from,
            "reliable_only": reliable_only,
            "reliability_cutoff": reliability_cutoff,
            "seed": seed,
            "games": {
                str(g): str(p) for g, p in table.drop_duplicates(GAME)[[GAME, PACE]].to_numpy()
            },
            "factors": list(factors.columns),
            "network_factors": varying,
            "constant_factors": constant_factors(table),
            "factor_info": factor_info(present),
            "primary_item": primary,
            "acceptance": acceptance,
            "min_response_ms": sidecar.min_response_ms,
            # provenance (issue 13): a dry-run agent applied nothing to a kernel
            "agent_backends": backends,
            "n_ratings_dry_run": None if backends is None else backends.get(DRY_RUN, 0),
        },
        "conditions": records(cond_out),
        "sos_hypothesis": {
            "formula": sos_formula(scale["min"], scale["max"]),
            "fitted_on": "scenario x game conditions with n >= 2",
            **{k: v for k, v in sos_used.items()},
            "all_raters": sos_all,
            "reliable_raters": sos_rel,
        },
        "reliability": {
            "cutoff": reliability_cutoff,
            "scenario_groups": {name: g.levels for name, g in groups.items()},
            "intra": [],  # filled below (large, already JSON-ready)
            "reliable_raters": reliable_ids,
            "inter": stats.inter,
            "screening": {
                "p913": {
                    "threshold": P913_THRESHOLD,
                    "r2_threshold": R2_THRESHOLD,
                    **{k: v for k, v in stats.p913_summary.items() if k != "r1_threshold"},
                    "per_rater": [],  # filled below
                    "rejected": stats.status_lists["unreliable"]["p913"],
                    "not_assessable": stats.status_lists["not_assessable"]["p913"],
                },
                "straight_lining": {
                    "sessions": records(flat),
                    "rejected": sorted(set(flat[RATER].tolist())),
                    # every rater not listed here is reliable: ratings vary in every session
                    "per_rater": records(
                        stats.flat_status[stats.flat_status["status"] != "reliable"]
                    ),
                },
            },
            "rejected_by_rule": stats.status_lists["unreliable"],
            "not_assessable_by_rule": stats.status_lists["not_assessable"],
            "rater_status": [],  # filled below (large, already JSON-ready)
        },
        "subject_model": {
            "model": "rating = quality[condition] + bias[rater] + inconsistency[rater] * N(0, 1)",
            "method": "maximum likelihood (ITU-T P.910 annex; sureal "
            "MaximumLikelihoodEstimationModelContentOblivious), all raters, "
            "standard errors from the Fisher information, 95 % CI = estimate +- 1.96 se",
            "fitted_on": "all ratings",
            **{k: v for k, v in subject.to_dict().items() if k != "not_identifiable"},
            "not_identifiable": [],  # filled below (can name many raters; JSON-ready)
            "conditions": [],  # filled below
            "raters": [],  # filled below
        },
        "weights": {
            "target": f"acceptable = {target}",
            "weka": weka,
            "rapidminer": rapid,
            "weka_mdl_cut_points": cuts,
            "rapidminer_gain_bits": rapid_raw,
            "conventions": {
                "weka": "InfoGainAttributeEval: MDL-discretised numeric factors, "
                "information gain in bits, not normalised",
                "rapidminer": "Weight by Information Gain: best binary split for numeric "
                "factors, weights normalised as (w - min) / (max - min)",
            },
        },
        "tree": {
            "method": "REPTree recipe: information-gain splits (sklearn, entropy), min 2 per "
            "leaf, reduced-error pruning on a stratified 1/3 hold-out, back-fitted",
            "seed": seed,
            "training_accuracy": accuracy,
            "root": tree_to_dict(root),
            "rules": tree_rules(root),
        },
        "thresholds": thresholds,
        "notes": {
            **pilot_notes(
                table,
                groups,
                subject,
                thresholds,
                varying,
                sos_used.get("a"),
                scale,
                sessions=stats.sessions,
            ),
            **dry_run_note(backends, len(table)),
        },
    }
    out: dict[str, Any] = json_ready(doc)
    out["reliability"]["intra"] = records(intra)
    out["reliability"]["screening"]["p913"]["per_rater"] = records(p913)
    out["reliability"]["rater_status"] = _rater_status(statuses)
    out["subject_model"]["not_identifiable"] = subject.not_identifiable
    # the primary item's section shows the same tables: the same lists (built once; the
    # JSON writer encodes a list it meets twice once, see json_text)
    subject_records = (records(subject.conditions), records(subject.raters))
    out["subject_model"]["conditions"], out["subject_model"]["raters"] = subject_records
    out.update(
        item_report_sections(
            split,
            primary,
            stats,
            seed=seed,
            reliability_cutoff=reliability_cutoff,
            primary_subject_records=subject_records,
        )
    )
    report(1.0, "done")
    return out
