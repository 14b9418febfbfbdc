"""Per-condition statistics of ratings on a scale: n, MOS, SOS, 95 % CI of the MOS, %GoB, %PoW.

Definitions (ITU-T P.800 / P.1401 / P.913; Hoßfeld et al., QoMEX 2011):

* MOS = (1/n) Σ rᵢ; SOS = sample standard deviation with ddof = 1.
* CI = MOS ± t(1 − α/2, n − 1) · SOS / √n with the Student t quantile (P.1401 §7.3).
  ITU-R BT.500 uses the normal quantile 1.96, which is too narrow for small n
  (t(0.975, 9) = 2.262, t(0.975, 29) = 2.045).
* The interval is then clipped to the scale [L, H] (a MOS cannot leave it) and flagged:
  ``ci95_status`` = "ok" (inside), "clipped" (an end was moved to L or H) or
  "n_too_small" (n < 2: no interval, bounds None/NaN) — :func:`bounded_interval`
  (docs/methods.md, "Intervals").
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
from qoe_analysis.schema.stats_types import CiStatus
from qoe_analysis.tabular import Grouping, group_codes
from qoe_analysis.tidy.design import ACR_MAX, ACR_MIN, GAME, RATING, SCENARIO

__all__ = [
    "ALL_GAMES",
    "CI_STATUSES",
    "Bounds",
    "CiStatus",
    "bounded_interval",
    "condition_table",
    "mos_confidence_interval",
    "rating_histograms",
    "scale_bounds",
    "summarise_histograms",
    "t_quantile",
]

ALL_GAMES = "all"
_ACR5 = default_scale("acr5")

CI_STATUSES: tuple[CiStatus, ...] = ("ok", "clipped", "n_too_small")
Bounds = tuple[float, float]


def scale_bounds(scale: dict[str, Any]) -> Bounds:
    """The ends (min, max) of a scale as floats: what a MOS interval is clipped to."""
    return (float(scale["min"]), float(scale["max"]))


def bounded_interval(centre: Any, half: Any, n: Any, bounds: Bounds | None) -> tuple[Any, Any, Any]:
    """(low, high, status) of the interval centre ± half with each end clipped into
    ``bounds`` = [L, H].

    Elementwise (arrays or scalars): for n < 2 the bounds are NaN and the status
    "n_too_small"; else low = min(max(centre − half, L), H), high = min(max(centre + half,
    L), H) and the status "clipped" when an end lay strictly outside the scale, "ok"
    otherwise (the numbers are then the unclipped ones, bit for bit). A MOS lies on the
    scale, so only its outer end can move; an estimate off the scale (the subject model's
    quality) can get [L, L] or [H, H]. ``bounds`` None: no clipping. The status is an
    object array (a str for scalar input).
    """
    c = np.asarray(centre, dtype=np.float64)
    h = np.asarray(half, dtype=np.float64)
    few = np.asarray(n, dtype=np.float64) < 2
    with np.errstate(invalid="ignore"):
        low = np.where(few, np.nan, c - h)
        high = np.where(few, np.nan, c + h)
        if bounds is None:
            clipped = np.zeros(np.shape(low), dtype=bool)
        else:
            lo, hi = bounds
            outside = [(end < lo) | (end > hi) for end in (low, high)]
            clipped = outside[0] | outside[1]
            # np.clip keeps NaN (no interval) as NaN
            low = np.where(outside[0], np.clip(low, lo, hi), low)
            high = np.where(outside[1], np.clip(high, lo, hi), high)
    status = np.where(few, "n_too_small", np.where(clipped, "clipped", "ok")).astype(object)
    if np.ndim(low) == 0:
        return float(low), float(high), str(status)
    return low, high, status


def t_quantile(q: float, df: Any) -> Any:
    """Student t quantile t(q, df) (inverse CDF, ``scipy.stats.t.ppf``) for 0 < q < 1 and
    df > 0. A float for a scalar ``df``, an array for an array."""
    out = stats.t.ppf(q, df)
    return float(out) if np.ndim(out) == 0 else out


def mos_confidence_interval(
    ratings: Sequence[float] | np.ndarray[Any, Any],
    level: float = 0.95,
    *,
    bounds: Bounds | None = None,
) -> tuple[float, float, float]:
    """Return (MOS, low, high): MOS ± t((1 + level)/2, n − 1)·S/√n (Student t interval),
    clipped to ``bounds`` = (L, H) when given (:func:`bounded_interval`).

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
    low, high, _ = bounded_interval(mos, half, n, bounds)
    return (mos, low, high)


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
    bounds: Bounds | None,
) -> pd.DataFrame:
    """The summary columns per group: n, MOS, SOS, the CI MOS ± t(1 − α/2, n − 1)·SOS/√n
    (P.1401 §7.3; none for n = 1) clipped to ``bounds`` with its ``ci95_status``
    (:func:`bounded_interval`), %GoB and %PoW (``gob``/``pow_`` given as fractions)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        df = np.maximum(n - 1, 1).astype(np.float64)
        tq = np.where(n > 1, t_quantile((1.0 + level) / 2.0, df), np.nan)
        half = tq * sos / np.sqrt(n)
    low, high, status = bounded_interval(mos, half, n, bounds)
    return pd.DataFrame(
        {
            "n": n.astype(np.int64),
            "mos": mos,
            "sos": sos,
            "ci95_low": low,
            "ci95_high": high,
            "ci95_status": status,
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
    bounds: Bounds | None = None,
) -> pd.DataFrame:
    """n, MOS, SOS (ddof = 1), t-based CI (clipped to ``bounds``, default the first and
    last column: the ends of the scale) with ``ci95_status``, %GoB (share ≥ ``gob_from``)
    and %PoW (share ≤ ``pow_to``) from rating histograms whose columns are the scale points.

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
        bounds=(float(points[0]), float(points[-1])) if bounds is None else bounds,
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
    bounds: Bounds | None = None,
) -> pd.DataFrame:
    """The columns of :func:`summarise_histograms` (without ``n_k``) from the ratings
    themselves, per group of ``by`` (continuous scales, where no histogram exists); the CI
    is clipped to ``bounds`` (None: not clipped)."""
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
        bounds=bounds,
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
    ci95_high, ci95_status, gob_pct, pow_pct`` and, on a discrete ``scale`` (default
    ACR-5), the count ``n_k`` of every scale point k. The CI is clipped to the scale's
    [min, max] (:func:`bounded_interval`). ``conditions`` may pass ``group_codes(df,
    [SCENARIO, GAME])`` made already.
    """
    scale = _ACR5 if scale is None else scale
    cuts: dict[str, Any] = {
        "gob_from": gob_cut(scale),
        "pow_to": pow_cut(scale),
        "bounds": scale_bounds(scale),
    }
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
