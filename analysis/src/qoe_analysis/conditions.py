"""Per-condition statistics of ACR ratings: n, MOS, SOS, 95 % CI of the MOS, %GoB, %PoW.

Definitions (ITU-T P.800 / P.1401 / P.913; Hoßfeld et al., QoMEX 2011):

* MOS = (1/n) Σ rᵢ; SOS = sample standard deviation with ddof = 1.
* CI = MOS ± t(1 − α/2, n − 1) · SOS / √n with the Student t quantile (P.1401 §7.3).
  ITU-R BT.500 uses the normal quantile 1.96, which is too narrow for small n
  (t(0.975, 9) = 2.262, t(0.975, 29) = 2.045).
* %GoB = share of ratings ≥ 4 ("good or better"), %PoW = share ≤ 2 ("poor or worse").

Everything is computed from the 5-bin rating histogram per group, so the cost after one
grouping pass is O(number of conditions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats  # type: ignore[import-untyped]

from qoe_analysis.design import ACR_MAX, ACR_MIN, GAME, RATING, SCENARIO
from qoe_analysis.tabular import group_codes

__all__ = [
    "ALL_GAMES",
    "condition_table",
    "mos_confidence_interval",
    "rating_histograms",
    "summarise_histograms",
]

ALL_GAMES = "all"
_LEVELS = np.arange(ACR_MIN, ACR_MAX + 1, dtype=np.float64)


def mos_confidence_interval(
    ratings: Sequence[float] | np.ndarray[Any, Any], level: float = 0.95
) -> tuple[float, float, float]:
    """Return (MOS, low, high): MOS ± t((1 + level)/2, n − 1)·S/√n (Student t interval).

    The interval is undefined (NaN) for n < 2.
    """
    x = np.asarray(ratings, dtype=np.float64)
    n = x.size
    if n == 0:
        return (float("nan"), float("nan"), float("nan"))
    mos = float(x.mean())
    if n < 2:
        return (mos, float("nan"), float("nan"))
    half = float(stats.t.ppf((1.0 + level) / 2.0, n - 1)) * float(x.std(ddof=1)) / np.sqrt(n)
    return (mos, mos - half, mos + half)


def rating_histograms(df: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Counts of each ACR level (columns 1..5) per group of ``by`` (sorted group keys)."""
    codes, keys = group_codes(df, list(by))
    levels = df[RATING].to_numpy(dtype=np.int64) - ACR_MIN
    n_levels = ACR_MAX - ACR_MIN + 1
    flat = np.bincount(codes * n_levels + levels, minlength=len(keys) * n_levels)
    counts = pd.DataFrame(
        flat.reshape(len(keys), n_levels), columns=list(range(ACR_MIN, ACR_MAX + 1))
    )
    keys = keys.astype({c: str for c in by if not pd.api.types.is_numeric_dtype(keys[c])})
    counts.index = pd.MultiIndex.from_frame(keys)
    return counts.sort_index()


def summarise_histograms(counts: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """n, MOS, SOS (ddof = 1), t-based CI, %GoB and %PoW from rating histograms.

    SOS² = (Σ cₖ (k − MOS)²) / (n − 1) over levels k with counts cₖ.
    """
    c = counts.to_numpy(dtype=np.float64)
    n = c.sum(axis=1)
    mos = (c @ _LEVELS) / n
    ss = (c * (_LEVELS[None, :] - mos[:, None]) ** 2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        sos = np.where(n > 1, np.sqrt(ss / np.maximum(n - 1, 1)), np.nan)
        tq = np.where(n > 1, stats.t.ppf((1.0 + level) / 2.0, np.maximum(n - 1, 1)), np.nan)
        half = tq * sos / np.sqrt(n)
    levels = counts.columns.to_numpy()
    out = pd.DataFrame(
        {
            "n": n.astype(np.int64),
            "mos": mos,
            "sos": sos,
            "ci95_low": mos - half,
            "ci95_high": mos + half,
            "gob_pct": 100.0 * c[:, levels >= 4].sum(axis=1) / n,
            "pow_pct": 100.0 * c[:, levels <= 2].sum(axis=1) / n,
        },
        index=counts.index,
    )
    for k in levels:
        out[f"n_{k}"] = counts[k].to_numpy()
    return out


def condition_table(df: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Statistics per (scenario, game) and per scenario over all games (game = "all").

    Returns one row per condition with columns ``scenario, game, n, mos, sos, ci95_low,
    ci95_high, gob_pct, pow_pct, n_1 … n_5``.
    """
    per_game = rating_histograms(df, [SCENARIO, GAME])
    pooled = per_game.groupby(level=SCENARIO, sort=True).sum()
    pooled.index = pd.MultiIndex.from_arrays(
        [pooled.index, [ALL_GAMES] * len(pooled)], names=[SCENARIO, GAME]
    )
    table = summarise_histograms(pd.concat([per_game, pooled]), level=level)
    return table.reset_index()
