"""The tidy ratings CSV's required columns: the contract between QoE Lab's export and the analysis.

One row per rating. Delay is one-way per direction in ms, loss in percent; ``ds_`` is
downstream (server→client), ``us_`` upstream (client→server). Any further column is a
per-rater or per-session factor.

Standard library only and imported by the backend at start-up: importing this module must
not pull in pandas or SciPy (a test checks it).
"""

from __future__ import annotations

from typing import Final

RATER: Final = "rater_id"
SESSION: Final = "session_id"
GAME: Final = "game"
PACE: Final = "game_pace"
SCENARIO: Final = "scenario"
DS_DELAY: Final = "ds_delay_ms"
US_DELAY: Final = "us_delay_ms"
DS_LOSS: Final = "ds_loss_pct"
US_LOSS: Final = "us_loss_pct"
RATING: Final = "rating"

NETWORK_FACTORS: Final[tuple[str, ...]] = (DS_DELAY, US_DELAY, DS_LOSS, US_LOSS)
REQUIRED_COLUMNS: Final[tuple[str, ...]] = (
    RATER,
    SESSION,
    GAME,
    PACE,
    SCENARIO,
    *NETWORK_FACTORS,
    RATING,
)
