"""A seeded synthetic study rated with the gaming preset (four items, long format).

The overall rating (ACR-5) comes from :func:`qoe_analysis.synthetic.generate_study`; per
rating slot the other items are derived from it and the slot's network condition:

* ``input_quality`` (continuous 1..7) = clip(6.6 − 0.011·mean one-way delay [ms] + b + ε),
  rounded to 0.1, with b ~ N(0, 0.3²) per rater and ε ~ N(0, 0.4²);
* ``video_quality`` (continuous 1..7) = clip(6.4 − 1.6·mean loss [%] + b + ε), likewise;
* ``acceptance`` (binary) = 1 iff overall ≥ 3, so that the acceptance item and the cut
  "overall ≥ 3" define the same target (tests rely on this);
* ``response_ms`` ~ 4000·LogNormal(0, 0.35) per slot (the same on every item row of the
  slot); the raters in ``fast_raters`` answer in 300..700 ms; ``since_end_ms`` =
  response_ms + 1500.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.scales import GAMING_PRESET
from qoe_analysis.synthetic import generate_study
from qoe_analysis.tidy.columns import (
    DS_DELAY,
    DS_LOSS,
    IDENTITY_COLUMNS,
    ITEM,
    RATER,
    RATING,
    RESPONSE_MS,
    SINCE_END_MS,
    TRAINING,
    US_DELAY,
    US_LOSS,
)

__all__ = ["gaming_sidecar", "generate_item_study"]


def gaming_sidecar(min_response_ms: int = 1000) -> dict[str, Any]:
    """The sidecar JSON of the gaming preset with acceptance from the binary item."""
    return {
        "items": [dict(item) for item in GAMING_PRESET],
        "acceptance": {"item": "acceptance"},
        "min_response_ms": min_response_ms,
    }


def _clip_round(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.asarray(np.round(np.clip(values, 1.0, 7.0), 1), dtype=np.float64)


def generate_item_study(
    participants: int = 12,
    sessions: int = 12,
    *,
    seed: int = 0,
    fast_raters: Sequence[str] = (),
) -> pd.DataFrame:
    """The long tidy table (identity, factors, item, rating, training, response_ms,
    since_end_ms, per-rater columns), four rows per rating slot, no training rows."""
    wide, _ = generate_study(participants, sessions, seed=seed)
    rng = np.random.default_rng(seed + 1)
    n = len(wide)
    raters = wide[RATER].astype(str).to_numpy()
    names, rater_index = np.unique(raters, return_inverse=True)
    bias = rng.normal(0.0, 0.3, size=(2, names.size))
    delay = (wide[DS_DELAY].to_numpy() + wide[US_DELAY].to_numpy()) / 2.0
    loss = (wide[DS_LOSS].to_numpy() + wide[US_LOSS].to_numpy()) / 2.0
    input_quality = _clip_round(
        6.6 - 0.011 * delay + bias[0, rater_index] + rng.normal(0.0, 0.4, n)
    )
    video_quality = _clip_round(6.4 - 1.6 * loss + bias[1, rater_index] + rng.normal(0.0, 0.4, n))
    overall = wide[RATING].to_numpy()
    response = np.round(4000.0 * rng.lognormal(0.0, 0.35, n))
    fast = np.isin(raters, list(fast_raters))
    response[fast] = rng.integers(300, 700, int(fast.sum()))
    values = {
        "overall": overall.astype(np.float64),
        "input_quality": input_quality,
        "video_quality": video_quality,
        "acceptance": (overall >= 3).astype(np.float64),
    }
    factors = [c for c in wide.columns if c not in (*IDENTITY_COLUMNS, RATING)]
    network = [DS_DELAY, US_DELAY, DS_LOSS, US_LOSS]
    extra = [c for c in factors if c not in network]
    frames = []
    for order, (key, rating) in enumerate(values.items()):
        frame = wide[[*IDENTITY_COLUMNS, *network]].copy()
        frame[ITEM] = key
        frame[RATING] = rating
        frame[TRAINING] = 0
        frame[RESPONSE_MS] = response
        frame[SINCE_END_MS] = response + 1500.0
        frame[extra] = wide[extra].to_numpy()
        frame["_slot"] = np.arange(n)
        frame["_order"] = order
        frames.append(frame)
    long = pd.concat(frames).sort_values(["_slot", "_order"], kind="stable")
    return long.drop(columns=["_slot", "_order"]).reset_index(drop=True)
