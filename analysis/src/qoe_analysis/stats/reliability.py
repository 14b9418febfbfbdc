"""Rater reliability, one import for its public names.

Following Hoßfeld et al. (as used in the dissertation, ch. 4.2.2), each rule in a module of
its own:

* scenario groups derived from the factors that vary:
  :mod:`qoe_analysis.stats.scenario_groups`;
* intra-rater Spearman ρ against the impairment level: :mod:`qoe_analysis.stats.intra_rater`;
* inter-rater Spearman ρ between sessions: :mod:`qoe_analysis.stats.inter_rater`;
* straight-lining (a session with one rating value): :mod:`qoe_analysis.stats.straight_lining`;
* P.913 subject screening (r1 and r2, iterated): :mod:`qoe_analysis.stats.p913`, on
  :mod:`qoe_analysis.stats.grouped_pearson`.
"""

from __future__ import annotations

from qoe_analysis.stats.grouped_pearson import GroupedPearson, grouped_pearson
from qoe_analysis.stats.inter_rater import (
    inter_rater_agreement,
    pairwise_spearman_summary,
    spearman_summary_from_unit_vectors,
    unit_rank_vectors,
)
from qoe_analysis.stats.intra_rater import intra_rater_reliability, rho_reasons
from qoe_analysis.stats.scenario_groups import (
    FACTOR_GROUPS,
    ScenarioGroup,
    group_name,
    no_group_reason,
    scenario_groups,
)
from qoe_analysis.stats.sessions import Sessions, session_codes
from qoe_analysis.stats.straight_lining import (
    sessions_by_rater,
    straight_lining,
    straight_lining_status,
)

__all__ = [
    "FACTOR_GROUPS",
    "GroupedPearson",
    "ScenarioGroup",
    "Sessions",
    "group_name",
    "grouped_pearson",
    "inter_rater_agreement",
    "intra_rater_reliability",
    "no_group_reason",
    "pairwise_spearman_summary",
    "rho_reasons",
    "scenario_groups",
    "session_codes",
    "sessions_by_rater",
    "spearman_summary_from_unit_vectors",
    "straight_lining",
    "straight_lining_status",
    "unit_rank_vectors",
]
