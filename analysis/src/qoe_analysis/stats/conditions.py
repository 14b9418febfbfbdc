"""Per-condition statistics of ratings on a scale: n, MOS, SOS, 95 % CI of the MOS, %GoB, %PoW.

Definitions (ITU-T P.800 / P.1401 / P.913; Hoßfeld et al., QoMEX 2011):

* MOS = (1/n) Σ rᵢ; SOS = sample standard deviation with ddof = 1.
* CI = MOS ± t(1 − α/2, n − 1) · SOS / √n with the Student t quantile (P.1401 §7.3).
  ITU-R BT.500 uses the normal quantile 1.96, which is too narrow for small n
  (t(0.975, 9) = 2.262, t(0.975, 29) = 2.045).
* %GoB = share of ratings ≥ 4 ("good or better"), %PoW = share ≤ 2 ("poor or worse") on
  ACR 1..5 (P.800); on a scale from L to H the points 4 and 2 map to L + ¾·(H − L) and
  L + ¼·(H − L) (:func:`qoe_analysis.scales.gob_cut` / :func:`~qoe_analysis.scales.pow_cut`).

On a discrete scale everything is computed from the rating histogram per group (one bin
per scale point), so the cost after one grouping pass is O(number of conditions); on a
continuous scale from the values grouped directly (no histogram).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats  # type: ignore[import-untyped]

from qoe_analysis.scales import default_scale, gob_cut, pow_cut, scale_points
from qoe_analysis.tabular import Grouping, group_codes
from qoe_analysis.tidy.design import ACR_MAX, ACR_MIN, GAME, RATING, SCENARIO

__all__ = [
    "ALL_GAMES",
    "condition_table",
    "mos_confidence_interval",
    "rating_histograms",
    "summarise_histograms",
    "t_quantile",
]

ALL_GAMES = "all"
_ACR5 = default_scale("acr5")


def t_quantile(q: float, df: Any) -> Any:
    """Student t quantile t(q, df) (inverse CDF, ``scipy.stats.t.ppf``) for 0 < q < 1 and
    df > 0. A float for a scalar ``df``, an array for an array."""
    out = stats.t.ppf(q, df)
    return float(out) if np.ndim(out) == 0 else out


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
    half = t_quantile((1.0 + level) / 2.0, n - 1) * float(x.std(ddof=1)) / np.sqrt(n)
    return (mos, mos - half, mos + half)


def rating_histograms(
    df: pd.DataFrame,
    by: Sequence[str],
    low: int = ACR_MIN,
    high: int = ACR_MAX,
    *,
    groups: Grouping | None = None,
) -> pd.DataFrame:
    """Counts of each scale point (columns low..high, default ACR 1..5) per group of ``by``
    (sorted group keys); ``groups`` may pass ``group_codes(df, by)`` made already."""
    codes, keys = group_codes(df, list(by)) if groups is None else groups
    levels = df[RATING].to_numpy(dtype=np.int64) - low
    n_levels = high - low + 1
    flat = np.bincount(codes * n_levels + levels, minlength=len(keys) * n_levels)
    counts = pd.DataFrame(flat.reshape(len(keys), n_levels), columns=list(range(low, high + 1)))
    keys = keys.astype({c: str for c in by if not pd.api.types.is_numeric_dtype(keys[c])})
    counts.index = pd.MultiIndex.from_frame(keys)
    return counts.sort_index()


def _summary_frame(
    n: np.ndarray[Any, Any],
    mos: np.ndarray[Any, Any],
    sos: np.ndarray[Any, Any],
    level: float,
    *,
    gob: np.ndarray[Any, Any],
    pow_: np.ndarray[Any, Any],
    index: pd.Index,
) -> pd.DataFrame:
    """The summary columns per group: n, MOS, SOS, the CI MOS ± t(1 − α/2, n − 1)·SOS/√n
    (P.1401 §7.3; none for n = 1), %GoB and %PoW (``gob``/``pow_`` given as fractions)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.maximum(n - 1, 1).astype(np.float64)
        tq = np.where(n > 1, t_quantile((1.0 + level) / 2.0, df), np.nan)
        half = tq * sos / np.sqrt(n)
    return pd.DataFrame(
        {
            "n": n.astype(np.int64),
            "mos": mos,
            "sos": sos,
            "ci95_low": mos - half,
            "ci95_high": mos + half,
            "gob_pct": 100.0 * gob,
            "pow_pct": 100.0 * pow_,
        },
        index=index,
    )


def summarise_histograms(
    counts: pd.DataFrame,
    level: float = 0.95,
    gob_from: float = 4.0,
    pow_to: float = 2.0,
) -> pd.DataFrame:
    """n, MOS, SOS (ddof = 1), t-based CI, %GoB (share ≥ ``gob_from``) and %PoW (share ≤
    ``pow_to``) from rating histograms whose columns are the scale points.

    SOS² = (Σ cₖ (k − MOS)²) / (n − 1) over levels k with counts cₖ.
    """
    c = counts.to_numpy(dtype=np.float64)
    points = counts.columns.to_numpy(dtype=np.float64)
    n = c.sum(axis=1)
    mos = (c @ points) / n
    ss = (c * (points[None, :] - mos[:, None]) ** 2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        sos = np.where(n > 1, np.sqrt(ss / np.maximum(n - 1, 1)), np.nan)
    levels = counts.columns.to_numpy()
    out = _summary_frame(
        n,
        mos,
        sos,
        level,
        gob=c[:, levels >= gob_from].sum(axis=1) / n,
        pow_=c[:, levels <= pow_to].sum(axis=1) / n,
        index=counts.index,
    )
    for k in levels:
        out[f"n_{k}"] = counts[k].to_numpy()
    return out


def summarise_values(
    df: pd.DataFrame,
    by: Sequence[str],
    level: float = 0.95,
    gob_from: float = 4.0,
    pow_to: float = 2.0,
) -> pd.DataFrame:
    """The columns of :func:`summarise_histograms` (without ``n_k``) from the ratings
    themselves, per group of ``by`` (continuous scales, where no histogram exists)."""
    codes, keys = group_codes(df, list(by))
    r = df[RATING].to_numpy(dtype=np.float64)
    frame = pd.DataFrame({"g": codes, "r": r, "gob": r >= gob_from, "pow": r <= pow_to})
    agg = frame.groupby("g", sort=True).agg(
        n=("r", "size"),
        mos=("r", "mean"),
        sos=("r", "std"),
        gob=("gob", "mean"),
        pw=("pow", "mean"),
    )
    n = agg["n"].to_numpy(dtype=np.float64)
    sos = np.where(n > 1, agg["sos"].to_numpy(dtype=np.float64), np.nan)
    mos = agg["mos"].to_numpy(dtype=np.float64)
    keys = keys.astype({c: str for c in by if not pd.api.types.is_numeric_dtype(keys[c])})
    out = _summary_frame(
        n,
        mos,
        sos,
        level,
        gob=agg["gob"].to_numpy(dtype=np.float64),
        pow_=agg["pw"].to_numpy(dtype=np.float64),
        index=pd.MultiIndex.from_frame(keys),
    )
    return out.sort_index()


def condition_table(
    df: pd.DataFrame,
    level: float = 0.95,
    scale: dict[str, Any] | None = None,
    *,
    conditions: Grouping | None = None,
) -> pd.DataFrame:
    """Statistics per (scenario, game) and per scenario over all games (game = "all").

    Returns one row per condition with columns ``scenario, game, n, mos, sos, ci95_low,
    ci95_high, gob_pct, pow_pct`` and, on a discrete ``scale`` (default ACR-5), the count
    ``n_k`` of every scale point k. ``conditions`` may pass ``group_codes(df, [SCENARIO,
    GAME])`` made already.
    """
    scale = _ACR5 if scale is None else scale
    cuts = {"gob_from": gob_cut(scale), "pow_to": pow_cut(scale)}
    points = scale_points(scale)
    if points is None:
        per_game_values = summarise_values(df, [SCENARIO, GAME], level, **cuts)
        pooled_values = summarise_values(df, [SCENARIO], level, **cuts)
        pooled_values.index = pd.MultiIndex.from_arrays(
            [pooled_values.index.get_level_values(0), [ALL_GAMES] * len(pooled_values)],
            names=[SCENARIO, GAME],
        )
        return pd.concat([per_game_values, pooled_values]).reset_index()
    per_game = rating_histograms(df, [SCENARIO, GAME], points[0], points[-1], groups=conditions)
    pooled = per_game.groupby(level=SCENARIO, sort=True).sum()
    pooled.index = pd.MultiIndex.from_arrays(
        [pooled.index, [ALL_GAMES] * len(pooled)], names=[SCENARIO, GAME]
    )
    table = summarise_histograms(pd.concat([per_game, pooled]), level=level, **cuts)
    return table.reset_index()
