"""Every per-rating result for one item on its own scale: MOS with t-CI per condition, the
SOS hypothesis with the scale's bounds, %GoB/%PoW, reliability screening and the subject
model (the ``per_item`` section of the analysis document).

* MOS and CI: MOS ± t(0.975, n − 1)·SOS/√n (ITU-T P.1401 §7.3),
  :mod:`qoe_analysis.stats.conditions`.
* SOS hypothesis on [L, H]: SOS² = a·(−MOS² + (L+H)·MOS − L·H) (Hoßfeld et al. 2011),
  :mod:`qoe_analysis.stats.sos_hypothesis`.
* %GoB = share ≥ L + ¾·(H − L), %PoW = share ≤ L + ¼·(H − L): the ACR points 4 and 2 of
  ITU-T P.800 mapped linearly onto the item's scale.
* Reliability (intra-rater, ITU-T P.913 screening, straight-lining, inter-rater) and the
  subject model (ITU-T P.910 annex / P.913 MLE) work on any numeric rating.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, cast

import numpy as np
import pandas as pd

from qoe_analysis.jsonable import json_ready, records
from qoe_analysis.scales import gob_cut, pow_cut, scale_points
from qoe_analysis.schema.stats_types import ConditionMos, PerItem, SosSection
from qoe_analysis.stats.conditions import ALL_GAMES, condition_table
from qoe_analysis.stats.p913 import p913_iterated_screening
from qoe_analysis.stats.reliability import (
    ScenarioGroup,
    Sessions,
    inter_rater_agreement,
    intra_rater_reliability,
    scenario_groups,
    session_codes,
    straight_lining,
    straight_lining_status,
)
from qoe_analysis.stats.sos_hypothesis import fit_sos_parameter, sos_formula
from qoe_analysis.stats.subject_model import SubjectModelFit, fit_subject_model
from qoe_analysis.tabular import group_codes
from qoe_analysis.tidy.design import GAME, RATER, RATING, SCENARIO

__all__ = [
    "GOB_POW_MAPPING",
    "ItemStats",
    "condition_records",
    "gob_pow_section",
    "item_section",
    "item_stats",
    "sos_section",
    "with_status",
]

GOB_POW_MAPPING = (
    "ITU-T P.800 %GoB (ratings >= 4) and %PoW (ratings <= 2) on ACR 1..5, mapped linearly "
    "onto a scale from L to H: GoB = share >= L + 3/4 (H - L), PoW = share <= L + 1/4 (H - L)"
)


@dataclass(frozen=True)
class ItemStats:
    """The rater screening, condition table and subject model of one item's ratings."""

    table: pd.DataFrame
    scale: dict[str, Any]
    groups: dict[str, ScenarioGroup]
    intra: pd.DataFrame
    p913: pd.DataFrame
    p913_summary: dict[str, Any]
    flat: pd.DataFrame
    flat_status: pd.DataFrame
    inter: list[dict[str, Any]]
    conds_all: pd.DataFrame
    subject: SubjectModelFit
    sessions: Sessions  # code per row and table of the distinct (rater_id, session_id, game)

    @property
    def n_sessions(self) -> int:
        """Distinct (rater_id, session_id)."""
        return len(self.sessions[1])

    @property
    def statuses(self) -> dict[str, pd.DataFrame]:
        return {
            "intra_rater": self.intra[[RATER, "status", "reason"]],
            "p913": self.p913[[RATER, "status", "reason"]],
            "straight_lining": self.flat_status,
        }

    @cached_property
    def status_lists(self) -> dict[str, dict[str, list[str]]]:
        """``{status: {rule: sorted rater ids}}`` for "unreliable" and "not_assessable",
        made once: the report and the primary item's section show the same lists."""
        return {
            status: {rule: with_status(frame, status) for rule, frame in self.statuses.items()}
            for status in ("unreliable", "not_assessable")
        }

    @property
    def reliable_ids(self) -> list[Any]:
        return list(self.intra.loc[self.intra["reliable"], RATER].tolist())


def item_stats(
    table: pd.DataFrame, scale: dict[str, Any], *, seed: int, reliability_cutoff: float
) -> ItemStats:
    """Screen the raters and summarise the conditions of one item (all raters)."""
    groups = scenario_groups(table)
    # one grouping by condition (scenario × game) for the screening, the condition table
    # and the subject model, and one by session for every rater rule
    conditions = group_codes(table, [SCENARIO, GAME])
    p913, p913_summary = p913_iterated_screening(table, conditions=conditions)
    sessions = session_codes(table)
    flat = straight_lining(table, sessions=sessions)
    return ItemStats(
        table=table,
        scale=scale,
        groups=groups,
        intra=intra_rater_reliability(
            table, groups, cutoff=reliability_cutoff, sessions=sessions, scale=scale
        ),
        p913=p913,
        p913_summary=p913_summary,
        flat=flat,
        flat_status=straight_lining_status(table, flat, sessions=sessions),
        inter=inter_rater_agreement(table, groups, seed=seed, sessions=sessions),
        sessions=sessions,
        conds_all=condition_table(table, scale=scale, conditions=conditions),
        subject=fit_subject_model(
            table, conditions=conditions, bounds=(scale["min"], scale["max"])
        ),
    )


def with_status(frame: pd.DataFrame, status: str) -> list[str]:
    """The sorted ids (as text) of the raters whose ``status`` is ``status``."""
    ids = frame[RATER].to_numpy()[frame["status"].to_numpy() == status].tolist()
    return sorted(v if type(v) is str else str(v) for v in ids)


def condition_records(conds: pd.DataFrame, scale: dict[str, Any]) -> pd.DataFrame:
    """The condition table with ``distribution`` {point: count} instead of the ``n_k``
    columns (None on a continuous scale)."""
    points = scale_points(scale)
    out = conds.copy()
    if points is None:
        out["distribution"] = pd.Series([None] * len(out), index=out.index, dtype=object)
        return out
    columns = [f"n_{k}" for k in points]
    counts = out[columns].to_numpy()
    distributions = [{str(k): int(c) for k, c in zip(points, row, strict=True)} for row in counts]
    out = out.drop(columns=columns)
    out["distribution"] = pd.Series(distributions, index=out.index, dtype=object)
    return out


def sos_section(conds: pd.DataFrame, scale: dict[str, Any]) -> SosSection:
    """SOS-hypothesis fit over the scenario × game conditions, overall and per game
    (JSON-ready: an undefined number is None)."""
    low, high = scale["min"], scale["max"]
    per_game = conds[conds[GAME] != ALL_GAMES]
    overall = fit_sos_parameter(per_game["mos"].to_numpy(), per_game["sos"].to_numpy(), low, high)
    by_game = {
        str(g): fit_sos_parameter(sub["mos"].to_numpy(), sub["sos"].to_numpy(), low, high).to_dict()
        for g, sub in per_game.groupby(GAME, sort=True)
    }
    section: SosSection = json_ready({**overall.to_dict(), "by_game": by_game})
    return section


def gob_pow_section(table: pd.DataFrame, scale: dict[str, Any]) -> dict[str, Any]:
    """Shares of all ratings that are good-or-better / poor-or-worse on the item's scale."""
    r = table[RATING].to_numpy(dtype=np.float64)
    gob, pow_ = gob_cut(scale), pow_cut(scale)
    return {
        "gob_from": gob,
        "pow_to": pow_,
        "mapping": GOB_POW_MAPPING,
        "n": int(r.size),
        "gob_pct": 100.0 * float(np.mean(r >= gob)) if r.size else None,
        "pow_pct": 100.0 * float(np.mean(r <= pow_)) if r.size else None,
    }


def item_section(
    stats: ItemStats, subject_records: tuple[list[Any], list[Any]] | None = None
) -> PerItem:
    """The ``per_item`` entry of one item, JSON-ready (the large tables are converted by
    :func:`~qoe_analysis.jsonable.records` directly, the rest by ``json_ready``).
    ``subject_records`` may pass the subject model's condition and rater records when they
    exist already (the primary item's, in the top-level section)."""
    scale = stats.scale
    subject = stats.subject
    out: PerItem = json_ready(
        {
            "scale": scale,
            "n": len(stats.table),
            "n_raters": int(stats.table[RATER].nunique()),
            "mos": [],  # filled below
            "sos": {
                "formula": sos_formula(scale["min"], scale["max"]),
                "bounds": [scale["min"], scale["max"]],
                "fitted_on": "scenario x game conditions with n >= 2, all raters",
                **sos_section(stats.conds_all, scale),
            },
            "gob_pow": gob_pow_section(stats.table, scale),
            "reliability": {
                "reliable_raters": stats.reliable_ids,
                "rejected_by_rule": stats.status_lists["unreliable"],
                "not_assessable_by_rule": stats.status_lists["not_assessable"],
                "p913": {k: v for k, v in stats.p913_summary.items() if k != "r1_threshold"},
                "inter": stats.inter,
            },
            "subject_model": {
                **{k: v for k, v in subject.to_dict().items() if k != "not_identifiable"},
                "not_identifiable": [],  # filled below
                "conditions": [],
                "raters": [],
            },
        }
    )
    out["mos"] = cast(list[ConditionMos], records(condition_records(stats.conds_all, scale)))
    out["subject_model"]["not_identifiable"] = cast(Any, subject.not_identifiable)
    if subject_records is None:
        subject_records = (records(subject.conditions), records(subject.raters))
    conditions, raters = cast(tuple[Any, Any], subject_records)
    out["subject_model"]["conditions"], out["subject_model"]["raters"] = conditions, raters
    return out
