"""A planning hint: how many raters per condition a design needs (``doc["planning"]``).

**MOS interval.** A condition rated by n raters (one rating each) has the 95 % interval
MOS ± t(1 − (1 − c)/2, n − 1)·sd/√n (Student t, ITU-T P.1401 §7.3; c = 0.95). The raters
needed for a half width h are the smallest n ≥ 2 with

    t(1 − (1 − c)/2, n − 1) · sd / √n ≤ h

(:func:`raters_for_interval`; the left side falls with n, so the first n that meets it is
the answer). sd = 1 and h = 0.5 need 18 raters: t(0.975, 17)·1/√18 = 2.1098/4.2426 = 0.4973,
while 17 give t(0.975, 16)/√17 = 2.1199/4.1231 = 0.5142.

**The sd assumed**, in this order:

1. the study's pooled within-condition SD, √(Σ(nᵢ − 1)·SOSᵢ² / Σ(nᵢ − 1)) over the
   scenario × game conditions with nᵢ ≥ 2 (the one-way ANOVA error SD);
2. else the SOS hypothesis (Hoßfeld, Schatz & Egger, "SOS: The MOS is not enough!",
   QoMEX 2011) at mid-scale with the study's fitted *a*: SOS² = a·(MOS − L)(H − MOS), at
   MOS = (L + H)/2 SOS = √a·(H − L)/2 (:func:`sos_sd`), the largest SOS the hypothesis
   gives on [L, H];
3. else the same with the prior a = :data:`PRIOR_SOS_A` = 0.25 (SOS = (H − L)/4, 1.0 on
   ACR 1–5). *a* does not depend on the scale's range (Hoßfeld, Heegaard, Varela & Möller,
   "QoE beyond the MOS", Quality and User Experience 2016), so one prior serves every
   scale; 0.25 is a quarter of the largest possible a (1: every rating at a scale end)
   and at the high end of the a values those papers report for ACR studies, i.e. a
   cautious planning value (the example study fits a = 0.36).

**Screening.** The rater screens judge only on enough evidence (issue 31): ITU-T P.913
screening uses conditions rated by ≥ :data:`~qoe_analysis.stats.p913.MIN_RATERS_PER_CONDITION`
raters, the intra-rater correlation a scenario group with ≥
:data:`~qoe_analysis.stats.intra_rater.MIN_RATINGS` ratings over ≥
:data:`~qoe_analysis.stats.intra_rater.MIN_LEVELS` levels per rater.

The frontend's design generator mirrors :func:`raters_for_interval` and :func:`sos_sd`
(same formula, same prior) to show the hint before any rating exists.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats  # type: ignore[import-untyped]

from qoe_analysis.schema.document import Planning, SdBasis
from qoe_analysis.stats.conditions import ALL_GAMES
from qoe_analysis.stats.intra_rater import MIN_LEVELS, MIN_RATINGS
from qoe_analysis.stats.p913 import MIN_RATERS_PER_CONDITION
from qoe_analysis.tabular import column_codes, group_codes
from qoe_analysis.tidy.design import GAME, RATER, SCENARIO

__all__ = [
    "CONFIDENCE",
    "HALF_WIDTH",
    "PRIOR_SOS_A",
    "planning_section",
    "pooled_within_sd",
    "raters_for_interval",
    "sos_sd",
]

HALF_WIDTH = 0.5
CONFIDENCE = 0.95
#: The prior SOS parameter when the study has no condition with two ratings (module doc).
PRIOR_SOS_A = 0.25
#: Largest (condition x rater) bitmap used to find the distinct pairs; a sort beyond it.
BITMAP_LIMIT = 50_000_000


def raters_for_interval(
    sd: float, half_width: float = HALF_WIDTH, confidence: float = CONFIDENCE
) -> int:
    """The smallest n ≥ 2 with t(1 − (1 − c)/2, n − 1)·sd/√n ≤ ``half_width`` (c =
    ``confidence``; t = ``scipy.stats.t.ppf``): the raters per condition (one rating each)
    for a Student-t MOS interval no wider than ± ``half_width``. sd = 0 gives 2 (an
    interval needs two ratings).

    Search: t(q, n − 1) > z(q) (the normal quantile) for every n, so no n below
    (z·sd/h)² meets the rule; start there and step up until it holds.
    """
    if not (math.isfinite(sd) and sd >= 0):
        raise ValueError(f"sd must be a finite number >= 0, got {sd}")
    if not (math.isfinite(half_width) and half_width > 0):
        raise ValueError(f"half_width must be > 0, got {half_width}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    q = 1.0 - (1.0 - confidence) / 2.0
    n = max(2, math.ceil((float(stats.norm.ppf(q)) * sd / half_width) ** 2))
    while float(stats.t.ppf(q, n - 1)) * sd / math.sqrt(n) > half_width:
        n += 1
    return n


def sos_sd(a: float, low: float, high: float, mos: float | None = None) -> float:
    """SOS = √(a·(MOS − L)(H − MOS)) of the SOS hypothesis on [L, H] (Hoßfeld et al. 2011);
    at mid-scale (``mos`` None: MOS = (L + H)/2) that is √a·(H − L)/2."""
    m = (low + high) / 2.0 if mos is None else mos
    return math.sqrt(max(a * (m - low) * (high - m), 0.0))


def pooled_within_sd(conditions: pd.DataFrame) -> tuple[float | None, int]:
    """(√(Σ(nᵢ − 1)·SOSᵢ² / Σ(nᵢ − 1)), number of conditions used) over the per-game
    conditions (game ≠ "all") with nᵢ ≥ 2 of a condition table; (None, 0) without any."""
    per_game = conditions[conditions[GAME].astype(str) != ALL_GAMES]
    n = per_game["n"].to_numpy(dtype=np.float64)
    sos = per_game["sos"].to_numpy(dtype=np.float64)
    used = (n >= 2) & np.isfinite(sos)
    if not used.any():
        return None, 0
    df = n[used] - 1.0
    return float(np.sqrt(np.sum(df * sos[used] ** 2) / np.sum(df))), int(used.sum())


def _median_raters(conditions: pd.DataFrame, ratings: pd.DataFrame | None) -> float | None:
    """Median over the scenario × game conditions of their distinct raters (of their
    ratings, n, without ``ratings``)."""
    if ratings is not None and len(ratings):
        codes, keys = group_codes(ratings, [SCENARIO, GAME])
        raters, _ = column_codes(ratings[RATER])
        width = int(raters.max()) + 1
        key = codes.astype(np.int64) * width + raters
        if len(keys) * width <= BITMAP_LIMIT:  # a bitmap of the pairs: no sort
            seen = np.zeros(len(keys) * width, dtype=bool)
            seen[key] = True
            pairs = np.flatnonzero(seen)
        else:
            key = np.sort(key)
            pairs = key[np.r_[True, key[1:] != key[:-1]]]
        per_condition = np.bincount(pairs // width, minlength=len(keys))
        return float(np.median(per_condition))
    per_game = conditions[conditions[GAME].astype(str) != ALL_GAMES]
    return float(np.median(per_game["n"].to_numpy())) if len(per_game) else None


def planning_section(
    conditions: pd.DataFrame,
    scale: dict[str, Any],
    sos_a: float | None,
    *,
    ratings: pd.DataFrame | None = None,
) -> Planning:
    """The ``planning`` section: raters per condition for a MOS interval of ±0.5 at 95 %
    (sd: module doc, in order) and the screens' minimums, beside the study's median raters
    per condition (distinct raters in ``ratings`` when given, else ratings per condition).
    ``conditions`` is the document's condition table, ``sos_a`` the fitted SOS parameter."""
    low, high = float(scale["min"]), float(scale["max"])
    pooled, n_used = pooled_within_sd(conditions)
    basis: SdBasis
    if pooled is not None:
        sd, basis = pooled, "pooled_within_condition"
        source = (
            f"pooled within-condition SD of this study's {n_used} conditions (scenario x "
            "game) with >= 2 ratings: sqrt(sum (n_i - 1) SOS_i^2 / sum (n_i - 1))"
        )
    elif sos_a is not None and math.isfinite(sos_a):
        sd, basis = sos_sd(sos_a, low, high), "sos_fitted"
        source = (
            f"SOS hypothesis at mid-scale with this study's a = {sos_a:.3f}: "
            f"sqrt(a) * ({high:g} - {low:g}) / 2 (Hossfeld et al., QoMEX 2011)"
        )
    else:
        sd, basis = sos_sd(PRIOR_SOS_A, low, high), "sos_prior"
        source = (
            f"no condition has 2 ratings yet: SOS hypothesis at mid-scale with the prior "
            f"a = {PRIOR_SOS_A} (a cautious value for ACR studies; Hossfeld, Schatz & Egger, "
            f"'SOS: The MOS is not enough!', QoMEX 2011): sqrt(a) * ({high:g} - {low:g}) / 2"
        )
    need = raters_for_interval(sd, HALF_WIDTH, CONFIDENCE)
    median = _median_raters(conditions, ratings)
    have = "no condition yet" if median is None else f"a median of {median:g} per condition"
    note = (
        f"A 95 % MOS interval of +-{HALF_WIDTH:g} needs {need} raters per condition "
        f"(one rating each, SD {sd:.2f}); this study has {have}. Screening needs >= "
        f"{MIN_RATERS_PER_CONDITION} raters per condition (ITU-T P.913) and >= {MIN_RATINGS} "
        f"ratings over >= {MIN_LEVELS} levels per scenario group and rater (intra-rater)."
    )
    return {
        "half_width": HALF_WIDTH,
        "confidence": CONFIDENCE,
        "sd_assumed": sd,
        "sd_basis": basis,
        "sd_source": source,
        "raters_per_condition_for_interval": need,
        "raters_per_condition_for_p913": MIN_RATERS_PER_CONDITION,
        "ratings_per_group_for_intra": MIN_RATINGS,
        "levels_per_group_for_intra": MIN_LEVELS,
        "median_raters_per_condition": median,
        "note": note,
    }
