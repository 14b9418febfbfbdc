"""Inter-rater agreement: Spearman ρ between the sessions' ratings of the same scenarios.

Following Hoßfeld et al. (as used in the dissertation, ch. 4.2.2): for each game (and all
games pooled) and each scenario group (the factor groups of
:func:`qoe_analysis.stats.scenario_groups.scenario_groups` and *all* = every scenario),
every session's rating vector over the group's scenarios is ranked once; the Spearman ρ of
two sessions is the dot product of their centred, unit-norm rank vectors. The mean over
all pairs is exact: (‖Σ zᵢ‖² − n) / (n(n − 1)); quantiles use all pairs up to
``max_exact_sessions`` sessions and a seeded random sample of 100,000 pairs beyond.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats  # type: ignore[import-untyped]

from qoe_analysis.stats.scenario_groups import ScenarioGroup
from qoe_analysis.stats.sessions import Sessions, session_codes
from qoe_analysis.tabular import column_codes
from qoe_analysis.tidy.design import GAME, RATING, SCENARIO

__all__ = [
    "inter_rater_agreement",
    "pairwise_spearman_summary",
    "spearman_summary_from_unit_vectors",
    "unit_rank_vectors",
]

_QUANTILES = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)


def unit_rank_vectors(
    matrix: np.ndarray[Any, Any],
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, np.dtype[np.bool_]]]:
    """Rows ranked (average ties), centred and scaled to unit norm; mask of usable rows.

    The Spearman ρ of rows i and j is then the dot product zᵢ·zⱼ. Constant rows (ρ
    undefined) are not usable.
    """
    if matrix.size == 0:
        return np.zeros(matrix.shape), np.zeros(matrix.shape[0], dtype=bool)
    # average ranks per row (ties share their mean rank); a row with a NaN is all NaN
    ranks = stats.rankdata(matrix, axis=1)
    centred = ranks - ranks.mean(axis=1, keepdims=True)
    norm = np.sqrt((centred**2).sum(axis=1))
    usable = norm > 1e-12
    z = np.zeros_like(centred)
    z[usable] = centred[usable] / norm[usable, None]
    return z, usable


def spearman_summary_from_unit_vectors(
    z: np.ndarray[Any, Any],
    *,
    n_constant: int,
    rng: np.random.Generator,
    max_exact_sessions: int = 1500,
    n_sampled_pairs: int = 100_000,
) -> dict[str, Any]:
    """Summary of ρ = zᵢ·zⱼ over all pairs of rows of ``z`` (see module doc)."""
    n = int(z.shape[0])
    result: dict[str, Any] = {
        "n_raters": n,
        "n_constant": n_constant,
        "n_pairs": n * (n - 1) // 2,
        "mean": None,
        "mean_abs": None,
        "sd": None,
        "quantiles": None,
        "sampled": False,
    }
    if n < 2:
        return result
    total = z.sum(axis=0)
    result["mean"] = float((total @ total - n) / (n * (n - 1)))
    if n <= max_exact_sessions:
        gram = z @ z.T
        values = gram[np.triu_indices(n, k=1)]
    else:
        i = rng.integers(0, n, size=n_sampled_pairs)
        j = rng.integers(0, n - 1, size=n_sampled_pairs)
        j = j + (j >= i)  # skip i: a uniform pair of distinct rows
        # np.take copies the same rows as z[i] at a fraction of the cost of fancy indexing
        values = np.einsum("ij,ij->i", np.take(z, i, axis=0), np.take(z, j, axis=0))
        result["sampled"] = True
    values = np.clip(values, -1.0, 1.0)
    result["mean_abs"] = float(np.abs(values).mean())
    result["sd"] = float(values.std(ddof=1)) if values.size > 1 else None
    quantiles = np.quantile(values, _QUANTILES)
    result["quantiles"] = {
        f"q{round(q * 100):02d}": float(v) for q, v in zip(_QUANTILES, quantiles, strict=True)
    }
    return result


def pairwise_spearman_summary(
    matrix: np.ndarray[Any, Any],
    *,
    rng: np.random.Generator,
    max_exact_sessions: int = 1500,
    n_sampled_pairs: int = 100_000,
) -> dict[str, Any]:
    """Summary of Spearman ρ over all pairs of rows of ``matrix`` (rows = raters).

    Rows with a constant vector (ρ undefined) are excluded and counted. Returns n_raters,
    n_constant, n_pairs, mean, mean_abs (over the pairs used for quantiles), sd,
    quantiles and whether the quantiles come from a random sample of pairs.
    """
    z, usable = unit_rank_vectors(matrix)
    return spearman_summary_from_unit_vectors(
        z[usable],
        n_constant=int((~usable).sum()),
        rng=rng,
        max_exact_sessions=max_exact_sessions,
        n_sampled_pairs=n_sampled_pairs,
    )


def inter_rater_agreement(
    df: pd.DataFrame,
    groups: dict[str, ScenarioGroup],
    *,
    seed: int = 0,
    max_exact_sessions: int = 1500,
    sessions: Sessions | None = None,
) -> list[dict[str, Any]]:
    """Pairwise Spearman agreement between sessions per game (and "all") and group.

    Groups: the factor groups of :func:`scenario_groups` plus "all" (every scenario).
    Sessions missing a scenario of the group are left out of that group (counted).
    """
    rng = np.random.default_rng(seed)
    session_code, session_table = session_codes(df) if sessions is None else sessions
    scen_codes, scen_names = column_codes(df[SCENARIO])
    scen_names = np.array([str(n) for n in scen_names], dtype=object)
    full = np.full((len(session_table), len(scen_names)), np.nan)
    full[session_code, scen_codes] = df[RATING].to_numpy(dtype=np.float64)
    game_of_session = session_table[GAME].astype(str).to_numpy()
    group_columns: dict[str, np.ndarray[Any, Any]] = {
        name: np.flatnonzero(np.isin(scen_names, g.scenarios)) for name, g in groups.items()
    }
    group_columns["all"] = np.arange(len(scen_names))
    games = [*sorted(set(game_of_session.tolist())), "all"]
    ranked = {}
    for name, cols in group_columns.items():  # rank every session once per group
        sub = full[:, cols]
        complete = ~np.isnan(sub).any(axis=1)
        z = np.zeros(sub.shape)
        usable = np.zeros(len(sub), dtype=bool)
        z[complete], usable[complete] = unit_rank_vectors(sub[complete])
        ranked[name] = (z, usable, complete)
    out = []
    for game in games:
        rows = np.ones(len(session_table), bool) if game == "all" else game_of_session == game
        for name, cols in group_columns.items():
            z, usable, complete = ranked[name]
            summary = spearman_summary_from_unit_vectors(
                np.compress(rows & usable, z, axis=0),
                n_constant=int((rows & complete & ~usable).sum()),
                rng=rng,
                max_exact_sessions=max_exact_sessions,
            )
            out.append(
                {
                    "game": str(game),
                    "group": name,
                    "scenarios": [str(s) for s in scen_names[cols]],
                    "n_incomplete": int((rows & ~complete).sum()),
                    **summary,
                }
            )
    return out
