"""Sessions of a ratings table as integer codes, shared by the reliability statistics."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.tabular import group_codes
from qoe_analysis.tidy.design import GAME, RATER, SESSION

__all__ = ["Sessions", "session_codes"]

Sessions = tuple[np.ndarray[Any, Any], pd.DataFrame]


def session_codes(df: pd.DataFrame) -> Sessions:
    """Integer code per row for (rater_id, session_id) and the table of sessions (+ game).

    The game is constant within a session (validated), so adding it does not split
    sessions: the codes are those of (rater_id, session_id) alone. The reliability
    functions take them as ``sessions=`` so that one grouping serves them all."""
    return group_codes(df, [RATER, SESSION, GAME])
