"""Assemble the analysis document (the JSON printed by ``qoe-analysis analyze``).

:func:`analyze` validates the table, computes every section and returns plain Python
objects (dict / list / str / float / int / bool / None; NaN becomes None), so the result can
be passed to ``json.dumps`` as is. The numbers come from the pure functions of the other
modules; this module only selects rows and arranges the output.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis import __version__
from qoe_analysis.conditions import ALL_GAMES, condition_table
from qoe_analysis.design import GAME, PACE, RATER, RATING, REQUIRED_COLUMNS, SCENARIO, SESSION
from qoe_analysis.information_gain import rapidminer_weights, weka_weights
from qoe_analysis.p913 import R1_THRESHOLD, R2_THRESHOLD, p913_iterated_screening
from qoe_analysis.reliability import (
    inter_rater_agreement,
    intra_rater_reliability,
    no_group_reason,
    scenario_groups,
    straight_lining,
    straight_lining_status,
)
from qoe_analysis.report_notes import NoReliableRatersError, no_reliable_message, pilot_notes
from qoe_analysis.sos_hypothesis import fit_sos_parameter
from qoe_analysis.study_factors import (
    constant_factors,
    factor_columns_in,
    factor_info,
    varying_factor_columns,
)
from qoe_analysis.subject_model import fit_subject_model
from qoe_analysis.tabular import group_codes
from qoe_analysis.thresholds import kpi_thresholds
from qoe_analysis.tree import fit_rep_tree, predict
from qoe_analysis.tree_rules import tree_rules, tree_to_dict
from qoe_analysis.validation import validate_ratings

__all__ = ["NoReliableRatersError", "analyze", "factor_frame", "json_ready"]

Progress = Callable[[float, str], None]
P913_THRESHOLD = R1_THRESHOLD


def json_ready(value: Any) -> Any:
    """Recursively convert numpy scalars/arrays to Python and non-finite floats to None."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return [json_ready(v) for v in value.tolist()]
    if isinstance(value, np.bool_ | bool):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        f = float(value)
        return f if math.isfinite(f) else None
    return value


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """DataFrame rows as dicts with None for missing values (fast path for large tables)."""
    columns = list(frame.columns)
    arrays = []
    for c in columns:
        values = frame[c].to_numpy()
        if values.dtype.kind == "f":
            arrays.append([None if not math.isfinite(v) else v for v in values.tolist()])
        else:
            arrays.append(values.tolist())
    return [dict(zip(columns, row, strict=True)) for row in zip(*arrays, strict=True)]


def _with_status(frame: pd.DataFrame, status: str) -> list[str]:
    return sorted(frame.loc[frame["status"] == status, RATER].astype(str).tolist())


def _rater_status(statuses: dict[str, pd.DataFrame]) -> list[dict[str, Any]]:
    """One entry per rater: {rater_id, <rule>: status} for every rule (the reasons are in
    each rule's own table, so large studies do not carry them twice)."""
    merged: dict[str, dict[str, Any]] = {}
    for rule, frame in statuses.items():
        raters = frame[RATER].astype(str).tolist()
        for rater, status in zip(raters, frame["status"].astype(str).tolist(), strict=True):
            entry = merged.get(rater)
            if entry is None:
                entry = merged[rater] = {RATER: rater}
            entry[rule] = status
    return [merged[k] for k in sorted(merged)]


def factor_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The factors: every impairment factor column that varies (registry order; constant
    ones carry no information and are left out), game pace, game (unless it only restates
    the pace), and every extra per-rater/per-session column."""
    present = set(factor_columns_in(table.columns))
    extra = [c for c in table.columns if c not in REQUIRED_COLUMNS and c not in present]
    columns = [*varying_factor_columns(table), PACE]
    if table[GAME].nunique() > table[PACE].nunique():
        columns.append(GAME)
    return table[[*columns, *extra]]


def _sos_section(conds: pd.DataFrame) -> dict[str, Any]:
    per_game = conds[conds[GAME] != ALL_GAMES]
    overall = fit_sos_parameter(per_game["mos"].to_numpy(), per_game["sos"].to_numpy())
    by_game = {
        str(g): fit_sos_parameter(sub["mos"].to_numpy(), sub["sos"].to_numpy()).to_dict()
        for g, sub in per_game.groupby(GAME, sort=True)
    }
    return {**overall.to_dict(), "by_game": by_game}


def analyze(
    df: pd.DataFrame,
    *,
    acceptable_from: int = 3,
    reliable_only: bool = False,
    seed: int = 0,
    reliability_cutoff: float = 0.6,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Full analysis of a ratings table; returns the JSON-ready document (see docs/methods.md).

    ``reliable_only`` restricts conditions, weights, tree and thresholds to the raters that
    pass the intra-rater rule (|ρ| > ``reliability_cutoff``); the reliability section and
    the SOS comparison always cover both groups.
    """

    def report(fraction: float, stage: str) -> None:
        if progress is not None:
            progress(fraction, stage)

    if not 1 <= acceptable_from <= 5:
        raise ValueError("acceptable_from must lie in 1..5")
    report(0.0, "validating")
    table = validate_ratings(df)
    present = factor_columns_in(table.columns)
    varying = varying_factor_columns(table)
    report(0.1, "reliability")
    groups = scenario_groups(table)
    intra = intra_rater_reliability(table, groups, cutoff=reliability_cutoff)
    reliable_ids = intra.loc[intra["reliable"], RATER].tolist()
    p913, p913_summary = p913_iterated_screening(table)
    flat = straight_lining(table)
    flat_status = straight_lining_status(table, flat)
    statuses = {
        "intra_rater": intra[[RATER, "status", "reason"]],
        "p913": p913[[RATER, "status", "reason"]],
        "straight_lining": flat_status,
    }
    inter = inter_rater_agreement(table, groups, seed=seed)
    reliable_mask = table[RATER].isin(set(reliable_ids)).to_numpy()

    report(0.35, "conditions")
    conds_all = condition_table(table)
    conds_reliable = condition_table(table[reliable_mask]) if reliable_mask.any() else None
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
    cond_out = conds.join(network, on=SCENARIO)
    counts = cond_out[[f"n_{k}" for k in range(1, 6)]].to_numpy()
    distributions = [{str(k + 1): int(c) for k, c in enumerate(row)} for row in counts]
    cond_out = cond_out.drop(columns=[f"n_{k}" for k in range(1, 6)])
    cond_out["distribution"] = pd.Series(distributions, index=cond_out.index, dtype=object)

    report(0.4, "subject_model")
    subject = fit_subject_model(table)

    report(0.45, "sos_hypothesis")
    sos_all = _sos_section(conds_all)
    sos_rel = _sos_section(conds_reliable) if conds_reliable is not None else None
    sos_used = sos_rel if reliable_only else sos_all
    assert sos_used is not None

    report(0.55, "information_gain")
    factors = factor_frame(analysed)
    y = (analysed[RATING].to_numpy() >= acceptable_from).astype(np.int64)
    weka, cuts = weka_weights(factors, y)
    rapid, rapid_raw = rapidminer_weights(factors, y)

    report(0.7, "tree")
    profiles = group_codes(factors, list(factors.columns))
    root = fit_rep_tree(factors, y, seed=seed, profiles=profiles)
    accuracy = float((predict(root, profiles[1])[profiles[0]] == y).mean())

    report(0.85, "thresholds")
    impairments = [c for c in varying if c in factors.columns]
    thresholds = kpi_thresholds(
        factors, y, root, acceptable_from, profiles=profiles, impairments=impairments
    )

    report(0.95, "assembling")
    doc: dict[str, Any] = {
        "meta": {
            "qoe_analysis_version": __version__,
            "n_ratings": len(table),
            "n_raters": int(table[RATER].nunique()),
            "n_sessions": int(group_codes(table, [RATER, SESSION])[1].shape[0]),
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
        },
        "conditions": _records(cond_out),
        "sos_hypothesis": {
            "formula": "SOS^2 = a * (-MOS^2 + 6*MOS - 5)",
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
            "inter": inter,
            "screening": {
                "p913": {
                    "threshold": P913_THRESHOLD,
                    "r2_threshold": R2_THRESHOLD,
                    **{k: v for k, v in p913_summary.items() if k != "r1_threshold"},
                    "per_rater": [],  # filled below
                    "rejected": _with_status(p913, "unreliable"),
                    "not_assessable": _with_status(p913, "not_assessable"),
                },
                "straight_lining": {
                    "sessions": _records(flat),
                    "rejected": sorted(set(flat[RATER].tolist())),
                    # every rater not listed here is reliable: ratings vary in every session
                    "per_rater": _records(flat_status[flat_status["status"] != "reliable"]),
                },
            },
            "rejected_by_rule": {
                rule: _with_status(frame, "unreliable") for rule, frame in statuses.items()
            },
            "not_assessable_by_rule": {
                rule: _with_status(frame, "not_assessable") for rule, frame in statuses.items()
            },
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
            "target": f"acceptable = rating >= {acceptable_from}",
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
        "notes": pilot_notes(table, groups, subject, thresholds, varying, sos_used.get("a")),
    }
    out: dict[str, Any] = json_ready(doc)
    out["reliability"]["intra"] = _records(intra)
    out["reliability"]["screening"]["p913"]["per_rater"] = _records(p913)
    out["reliability"]["rater_status"] = _rater_status(statuses)
    out["subject_model"]["not_identifiable"] = subject.not_identifiable
    out["subject_model"]["conditions"] = _records(subject.conditions)
    out["subject_model"]["raters"] = _records(subject.raters)
    report(1.0, "done")
    return out
