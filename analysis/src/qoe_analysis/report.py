"""The analysis pipeline: from a ratings table to the typed analysis document.

:func:`analyze` runs named steps, each returning a typed piece: the validated study, the
rater screening, the conditions, the "acceptable" target, weights, tree and thresholds,
and the assembled :class:`~qoe_analysis.schema.AnalysisDocument` (plain Python values;
NaN becomes None), which ``json.dumps`` takes as is. The numbers come from the pure
functions of :mod:`qoe_analysis.stats` and :mod:`qoe_analysis.models`; this module and
:mod:`qoe_analysis.report_sections` only select rows and arrange the output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from qoe_analysis import __version__
from qoe_analysis.evidence.notes import NoReliableRatersError, no_reliable_message, pilot_notes
from qoe_analysis.evidence.planning import planning_section
from qoe_analysis.evidence.warnings import document_warnings
from qoe_analysis.item_report import acceptance_target, item_report_sections
from qoe_analysis.jsonable import json_ready, records
from qoe_analysis.marginal_report import study_marginals
from qoe_analysis.models.information_gain import (
    class_weighted_profiles,
    rapidminer_weights,
    weka_weights,
)
from qoe_analysis.models.joint_model import joint_model_section
from qoe_analysis.models.thresholds import kpi_thresholds
from qoe_analysis.models.tree import fit_rep_tree, min_leaf_for
from qoe_analysis.models.tree_evidence import tree_evidence
from qoe_analysis.models.tree_nodes import TreeNode, predict
from qoe_analysis.models.tree_rules import tree_rules, tree_to_dict
from qoe_analysis.report_sections import (
    agent_backends,
    dry_run_note,
    factor_frame,
    plain,
    reliability_section,
    rows_of,
    sos_hypothesis_section,
    subject_model_section,
    weights_section,
)
from qoe_analysis.report_sections import rater_status as _rater_status
from qoe_analysis.report_study import Study, validated_study
from qoe_analysis.scales import Sidecar
from qoe_analysis.schema import AnalysisDocument, Meta, MosByFactor, Notes
from qoe_analysis.schema.joint_types import JointModel
from qoe_analysis.schema.model_types import Thresholds, Tree, Weights
from qoe_analysis.schema.stats_types import Condition, SosSection
from qoe_analysis.stats.conditions import condition_table
from qoe_analysis.stats.factor_mos import mos_by_factor
from qoe_analysis.stats.per_item import ItemStats, condition_records, item_stats, sos_section
from qoe_analysis.stats.reliability import no_group_reason
from qoe_analysis.study_factors import (
    constant_factors,
    factor_columns_in,
    factor_info,
    merged_in,
    select_factors,
)
from qoe_analysis.tabular import group_codes
from qoe_analysis.tidy.columns import DRY_RUN
from qoe_analysis.tidy.design import GAME, PACE, RATER, RATING, SCENARIO

if TYPE_CHECKING:
    from typing import Protocol

    from qoe_analysis.schema.dataset_types import DatasetSummary
    from qoe_analysis.schema.document import DocWarning

    class DatasetFacts(Protocol):
        """What :func:`analyze` reads of a dataset: a
        :class:`~qoe_analysis.dataset.loader.LoadedDataset`, or the summary and warnings the
        web app stored with a study imported from one (qoelab.datasets)."""

        @property
        def summary(self) -> DatasetSummary: ...

        @property
        def warnings(self) -> list[DocWarning]: ...


__all__ = [
    "NoReliableRatersError",
    "_rater_status",
    "analyze",
    "factor_frame",
    "json_ready",
    "rows_of",
]

Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class Conditions:
    """The analysed ratings (reliable raters only when asked), their conditions and fits."""

    analysed: pd.DataFrame
    rows: pd.DataFrame  # condition table with the factor values, as in the document
    sos_used: SosSection
    sos_all: SosSection
    sos_reliable: SosSection | None


@dataclass(frozen=True)
class Target:
    """The factors and the 0/1 "acceptable" target the models learn from."""

    factors: pd.DataFrame
    y: np.ndarray[Any, Any]
    text: str
    profiles: tuple[np.ndarray[Any, Any], pd.DataFrame]
    raters: np.ndarray[Any, Any] | None = None  # the rater of each row (the joint model's clusters)


def _reliability(study: Study, *, seed: int, cutoff: float) -> ItemStats:
    """Rater screening, condition table and subject model of the primary item."""
    return item_stats(study.table, study.scale, seed=seed, reliability_cutoff=cutoff)


def _conditions(
    study: Study, stats: ItemStats, reliable_only: bool, cutoff: float, min_raters: int = 1
) -> Conditions:
    """The conditions and SOS fits of all raters and of the reliable ones; raises
    :class:`NoReliableRatersError` when ``reliable_only`` would keep fewer than
    ``min_raters`` raters (or no rating)."""
    table, scale = study.table, study.scale
    reliable = rows_of(table[RATER], stats.reliable_ids)
    # the condition table reads only these columns: copy them alone, not the whole table
    conds_reliable = (
        condition_table(table[[SCENARIO, GAME, RATING]][reliable], scale=scale)
        if reliable.any()
        else None
    )
    analysed = table[reliable] if reliable_only else table
    if len(analysed) == 0 or (reliable_only and len(stats.reliable_ids) < min_raters):
        gap = None if stats.groups else no_group_reason(table)
        message = no_reliable_message(stats.intra, cutoff, gap, max(min_raters, 1))
        raise NoReliableRatersError(message)
    conds = conds_reliable if reliable_only else stats.conds_all
    assert conds is not None
    present = factor_columns_in(table.columns)
    # the rows carry ds_X/us_X and, for a merged factor, both_X (study_factors)
    scenarios = table.drop_duplicates(SCENARIO).set_index(SCENARIO)
    network = select_factors(scenarios, [*present, *merged_in(study.varying)])
    sos_all = sos_section(stats.conds_all, scale)
    sos_reliable = sos_section(conds_reliable, scale) if conds_reliable is not None else None
    sos_used = sos_reliable if reliable_only else sos_all
    assert sos_used is not None
    return Conditions(
        analysed=analysed,
        rows=condition_records(conds.join(network, on=SCENARIO), scale),
        sos_used=sos_used,
        sos_all=sos_all,
        sos_reliable=sos_reliable,
    )


def _target(study: Study, stats: ItemStats, conds: Conditions, reliable_only: bool) -> Target:
    """The acceptance item's ratings as factors and a 0/1 target."""
    decided, y, text = acceptance_target(
        study.split,
        study.primary,
        study.acceptance,
        conds.analysed,
        stats.reliable_ids,
        reliable_only,
    )
    factors = factor_frame(decided, merged_in(study.varying))
    profiles = group_codes(factors, list(factors.columns))
    return Target(factors, y, text, profiles, decided[RATER].to_numpy())


def _weights(target: Target) -> Weights:
    """Information gain of every factor: computed from the distinct profiles and their
    class counts, the same numbers as from every rating (whole-number weights)."""
    weighted = class_weighted_profiles(*target.profiles, target.y)
    weka, cuts = weka_weights(*weighted)
    rapid, rapid_raw = rapidminer_weights(*weighted)
    return weights_section(target.text, weka, rapid, cuts, rapid_raw)


def _tree(target: Target, seed: int) -> tuple[TreeNode, Tree]:
    """The REPTree-style decision tree, its training and cross-validated accuracy, the
    majority-class accuracy and the recurrence of its root split (models.tree_evidence)."""
    factors, y, profiles = target.factors, target.y, target.profiles
    min_leaf = min_leaf_for(len(y))
    root = fit_rep_tree(factors, y, seed=seed, min_leaf=min_leaf, profiles=profiles)
    accuracy = float((predict(root, profiles[1])[profiles[0]] == y).mean())
    section: Tree = {
        "method": "REPTree recipe: information-gain splits (sklearn, entropy), min_leaf = "
        "max(2, ceil(n/100)) ratings per leaf, reduced-error pruning on a stratified 1/3 "
        "hold-out, back-fitted; cv_accuracy: stratified k-fold, the recipe refitted per fold",
        "seed": seed,
        "training_accuracy": accuracy,
        "min_leaf": min_leaf,
        **tree_evidence(root, profiles, y, seed=seed),
        "root": cast(Any, tree_to_dict(root)),
        "rules": cast(Any, tree_rules(root)),
    }
    return root, plain(section)


def _thresholds(study: Study, target: Target, root: TreeNode) -> Thresholds:
    """KPI thresholds per pace and direction (tree and logistic model)."""
    factors, y, profiles = target.factors, target.y, target.profiles
    acceptable_from = study.acceptable_from
    impairments = [c for c in study.varying if c in factors.columns]
    thresholds = kpi_thresholds(
        factors,
        y,
        root,
        acceptable_from,
        profiles=profiles,
        impairments=impairments,
        target=None if target.text == f"rating >= {acceptable_from}" else target.text,
    )
    return plain(cast(Thresholds, thresholds))


def _joint(study: Study, target: Target) -> JointModel:
    """The joint acceptability model on the target's rows, clustered by their raters, and
    its corner per pace class (:mod:`qoe_analysis.models.joint_model`)."""
    raters = target.raters
    assert raters is not None and len(raters) == len(target.y)
    kpis = [c for c in study.varying if c in target.factors.columns]
    return plain(joint_model_section(target.factors, target.y, raters, kpis))


def _meta(
    study: Study, stats: ItemStats, conds: Conditions, target: Target, options: dict[str, Any]
) -> Meta:
    table = study.table
    backends = agent_backends(table)
    games = table.drop_duplicates(GAME)[[GAME, PACE]].to_numpy()
    merged = merged_in(study.varying)
    meta: Meta = {
        "qoe_analysis_version": __version__,
        "n_ratings": len(table),
        "n_raters": int(table[RATER].nunique()),
        "n_sessions": stats.n_sessions,
        "n_ratings_analysed": len(conds.analysed),
        "acceptable_from": study.acceptable_from,
        "reliable_only": options["reliable_only"],
        "reliability_cutoff": options["reliability_cutoff"],
        "min_reliable_raters": options["min_reliable_raters"],
        "min_reliable_share": options["min_reliable_share"],
        "n_reliable_raters": len(stats.reliable_ids),
        # share of all raters the intra-rater rule calls reliable (what reliable_only keeps)
        "reliable_share": len(stats.reliable_ids) / max(int(table[RATER].nunique()), 1),
        "seed": options["seed"],
        "games": {str(g): str(p) for g, p in games},
        "factors": list(target.factors.columns),
        "network_factors": study.varying,
        "constant_factors": constant_factors(table),
        "factor_info": cast(Any, factor_info([*factor_columns_in(table.columns), *merged])),
        "merged_factors": merged,
        "primary_item": study.primary,
        "acceptance": cast(Any, study.acceptance),
        "min_response_ms": study.split.sidecar.min_response_ms,
        # provenance (issue 13): a dry-run agent applied nothing to a kernel
        "agent_backends": backends,
        "n_ratings_dry_run": None if backends is None else backends.get(DRY_RUN, 0),
    }
    return plain(meta)


def _assemble(
    study: Study,
    stats: ItemStats,
    conds: Conditions,
    target: Target,
    models: tuple[Weights, Tree, Thresholds],
    options: dict[str, Any],
) -> AnalysisDocument:
    """The document: the primary item's sections, then the per-item ones."""
    weights, tree, thresholds = models
    table, subject = study.table, stats.subject
    notes = pilot_notes(
        table,
        stats.groups,
        subject,
        thresholds,
        study.varying,
        conds.sos_used.get("a"),
        study.scale,
        sessions=stats.sessions,
    )
    notes.update(dry_run_note(agent_backends(table), len(table)))
    # the primary item's per_item entry shows the same subject tables: the same lists
    subject_records = (records(subject.conditions), records(subject.raters))
    rows = cast(list[Condition], records(conds.rows))
    sections = item_report_sections(
        study.split,
        study.primary,
        stats,
        seed=options["seed"],
        reliability_cutoff=options["reliability_cutoff"],
        primary_subject_records=subject_records,
    )
    return {
        "meta": _meta(study, stats, conds, target, options),
        "conditions": plain(rows),
        "mos_by_factor": _mos_by_factor(conds, study.varying, study.scale),
        "marginals": study_marginals(
            study.split,
            study.primary,
            conds.analysed,
            study.varying,
            stats.reliable_ids if options["reliable_only"] else None,
        ),
        "sos_hypothesis": sos_hypothesis_section(
            study.scale, conds.sos_used, conds.sos_all, conds.sos_reliable
        ),
        "reliability": reliability_section(
            stats, options["reliability_cutoff"], study.quality_control
        ),
        "subject_model": subject_model_section(stats, subject_records),
        "weights": weights,
        "tree": tree,
        "thresholds": thresholds,
        "joint_model": _joint(study, target),
        "notes": cast(Notes, notes),
        **sections,
        "warnings": [],  # analyze() fills it last: the rules read every section
        "planning": planning_section(
            conds.rows, study.scale, conds.sos_used.get("a"), ratings=conds.analysed
        ),
    }


def _mos_by_factor(conds: Conditions, varying: list[str], scale: dict[str, Any]) -> MosByFactor:
    """Pooled MOS per factor level over the conditions of the document (CIs clipped to
    the scale)."""
    return mos_by_factor(conds.rows, varying, bounds=(scale["min"], scale["max"]))


def analyze(
    df: pd.DataFrame,
    *,
    acceptable_from: float | None = None,
    reliable_only: bool = False,
    seed: int = 0,
    reliability_cutoff: float = 0.6,
    progress: Progress | None = None,
    sidecar: Sidecar | None = None,
    min_reliable_raters: int = 3,
    min_reliable_share: float = 0.5,
    dataset: DatasetFacts | None = None,
    exclude_qc_failed: bool = False,
) -> AnalysisDocument:
    """Full analysis of a ratings table; returns the document (see docs/methods.md).

    The table is the long tidy table (:mod:`qoe_analysis.tidy.columns`); ``sidecar``
    declares its items (default: the one a validation stored, else "overall" on ACR-5).
    Training rows are removed before anything is computed. The top-level sections describe
    the primary item (:func:`qoe_analysis.scales.primary_item`); weights, tree and
    thresholds predict "acceptable" from the sidecar's acceptance rule, or from primary
    item >= ``acceptable_from`` when that is given. ``per_item`` repeats the per-rating
    results for every item on its scale.

    ``reliable_only`` restricts conditions, weights, tree and thresholds to the raters that
    pass the intra-rater rule on the primary item (ρ < −``reliability_cutoff`` on a design
    where a random rater passes with p <= 0.01, :mod:`qoe_analysis.stats.intra_rater`); the
    reliability section and the SOS comparison always cover both groups. It refuses
    (:class:`NoReliableRatersError`, with the numbers) when it would keep fewer than
    ``min_reliable_raters`` raters; ``meta.reliable_share`` (kept / all raters) is compared
    with ``min_reliable_share`` by the warnings.

    ``dataset`` (when ``df`` is its ``ratings``, :func:`qoe_analysis.dataset.load_dataset`,
    or the same data as a web app stored it) puts its summary in ``meta.dataset`` and its
    warnings first in ``warnings``.

    Quality-control rows (``kind`` trap / hidden_reference) never enter a statistic; the
    raters failing them are listed in ``reliability.screening.quality_control`` and, with
    ``exclude_qc_failed``, left out of everything (default: flagged only).
    """

    def step(fraction: float, stage: str) -> None:
        if progress is not None:
            progress(fraction, stage)

    options = {
        "reliable_only": reliable_only,
        "seed": seed,
        "reliability_cutoff": reliability_cutoff,
        "min_reliable_raters": min_reliable_raters,
        "min_reliable_share": min_reliable_share,
    }
    step(0.0, "validating")
    study = validated_study(df, sidecar, acceptable_from, exclude_qc_failed)
    step(0.1, "reliability")
    stats = _reliability(study, seed=seed, cutoff=reliability_cutoff)
    step(0.35, "conditions")
    conds = _conditions(study, stats, reliable_only, reliability_cutoff, min_reliable_raters)
    step(0.55, "information_gain")
    target = _target(study, stats, conds, reliable_only)
    weights = _weights(target)
    step(0.7, "tree")
    root, tree = _tree(target, seed)
    step(0.85, "thresholds")
    thresholds = _thresholds(study, target, root)
    step(0.95, "assembling")
    doc = _assemble(study, stats, conds, target, (weights, tree, thresholds), options)
    # last: the warnings read every section of the document (docs/methods.md, "Warnings")
    doc["warnings"] = document_warnings(doc, conds.analysed)
    if dataset is not None:  # how the data was read comes first (qoe_analysis.dataset)
        doc["meta"]["dataset"] = dataset.summary
        doc["warnings"] = [*dataset.warnings, *doc["warnings"]]
    step(1.0, "done")
    return doc
