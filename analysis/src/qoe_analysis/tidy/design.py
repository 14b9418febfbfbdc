"""The test design of the reference study (dissertation, table 4.1) and the column names.

The column names come from :mod:`qoe_analysis.tidy.columns` (re-exported here). Table 4.1 is
one instance of the factor registry (:mod:`netem_profile.factors`): its four factors are the
registry columns :data:`DISSERTATION_FACTORS`; every other factor is at its neutral value.

Delay is one-way per direction in ms, loss in percent. "upstream" = client→server,
"downstream" = server→client. "both" scenarios apply the same value in both directions.
"""

from __future__ import annotations

from typing import Final

from qoe_analysis.tidy.columns import (
    DS_DELAY,
    DS_LOSS,
    GAME,
    NETWORK_FACTORS,
    PACE,
    RATER,
    RATING,
    REQUIRED_COLUMNS,
    SCENARIO,
    SESSION,
    US_DELAY,
    US_LOSS,
    is_factor_column,
)

__all__ = [
    "ACR_MAX",
    "ACR_MIN",
    "DISSERTATION_FACTORS",
    "DISSERTATION_GAMES",
    "DISSERTATION_SCENARIOS",
    "DS_DELAY",
    "DS_LOSS",
    "GAME",
    "NETWORK_FACTORS",
    "PACE",
    "PACE_CLASSES",
    "RATER",
    "RATING",
    "REQUIRED_COLUMNS",
    "SCENARIO",
    "SESSION",
    "US_DELAY",
    "US_LOSS",
]

PACE_CLASSES: Final[tuple[str, ...]] = ("fast", "medium", "slow")
ACR_MIN: Final = 1
ACR_MAX: Final = 5

#: The factor columns table 4.1 varies (registry columns, in registry order).
DISSERTATION_FACTORS: Final[tuple[str, ...]] = NETWORK_FACTORS
assert all(is_factor_column(c) for c in DISSERTATION_FACTORS)

# scenario id -> values of DISSERTATION_FACTORS (ds_delay_ms, us_delay_ms, ds_loss_pct,
# us_loss_pct); table 4.1.
DISSERTATION_SCENARIOS: Final[dict[str, tuple[float, float, float, float]]] = {
    "B": (0.0, 0.0, 0.0, 0.0),
    "D1": (80.0, 80.0, 0.0, 0.0),
    "D2": (200.0, 200.0, 0.0, 0.0),
    "D3": (300.0, 300.0, 0.0, 0.0),
    "L1": (0.0, 0.0, 0.3, 0.3),
    "L2": (0.0, 0.0, 1.0, 1.0),
    "M1": (40.0, 40.0, 1.5, 1.5),
    "M2": (180.0, 180.0, 0.3, 0.3),
    "A1": (0.0, 120.0, 0.0, 1.0),  # client→server (upstream) only
    "A2": (120.0, 0.0, 1.0, 0.0),  # server→client (downstream) only
}

# The three games of the study and their pace class (Claypool et al.).
DISSERTATION_GAMES: Final[dict[str, str]] = {
    "racing": "fast",
    "rpg": "medium",
    "soccer": "slow",
}
