"""Seeded generator of synthetic cloud-gaming QoE studies with known true parameters.

Model (one rating per session × scenario; every session plays one game through all
scenarios of table 4.1):

    impairment(g, x) = s_dd[g]·ds_delay/100 + s_ud[g]·us_delay/100
                       + s_dl[g]·ds_loss + s_ul[g]·us_loss
    q = q0 + b_r − γ_r · impairment + ε,   b_r ~ N(0, τ²),  ε ~ N(0, σ_r²)
    rating = clip(⌊q + 0.5⌋, 1, 5)        (ACR rounding to the nearest category)

with per-pace sensitivities s (per 100 ms of one-way delay, per % of loss). Raters are of
three types: *consistent* (γ = 1, σ = σ_c), *inconsistent* (γ = γ_i small, σ = σ_i large:
they barely follow the conditions) and *straight-liners* (the same rating, ⌊q0 + b_r +
0.5⌋ clipped, for every scenario). Age, skill and attitude are drawn independently and have
no effect, so their true information gain is 0.

The truth returned beside the data holds the parameters, the rater types and population
quantities computed exactly from the model (no sampling): the rating distribution, MOS and
SOS per scenario × game, the SOS parameter *a* fitted on them, and the population
information gain (best binary split, bits) of each network factor and of the game pace.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.models.information_gain import best_binary_split_gain, info_gain_from_table
from qoe_analysis.stats.sos_hypothesis import fit_sos_parameter
from qoe_analysis.tidy.design import (
    DISSERTATION_FACTORS,
    DISSERTATION_GAMES,
    DISSERTATION_SCENARIOS,
    DS_DELAY,
    DS_LOSS,
    GAME,
    PACE,
    RATER,
    RATING,
    SCENARIO,
    SESSION,
    US_DELAY,
    US_LOSS,
)

# SciPy and scikit-learn are imported inside the functions that use them: importing
# qoe_analysis (and the CLI) stays cheap, see docs/performance.md.

__all__ = ["StudyModel", "generate_study", "population_rating_distribution"]

SKILLS = ("low", "medium", "high")
SKILL_SHARES = (0.392, 0.446, 0.152)  # dissertation ch. 4.2.2 (sums to 0.99; renormalised)
ATTITUDES = ("positive", "negative")


@dataclass(frozen=True)
class StudyModel:
    """True parameters of the generator (defaults shaped after the dissertation's results)."""

    q0: float = 4.4
    # pace -> (s_ds_delay per 100 ms, s_us_delay per 100 ms, s_ds_loss per %, s_us_loss per %)
    sensitivity: dict[str, tuple[float, float, float, float]] = field(
        default_factory=lambda: {
            "fast": (0.95, 0.50, 2.4, 1.0),
            "medium": (0.65, 0.32, 3.4, 1.1),
            "slow": (0.45, 0.22, 2.8, 0.9),
        }
    )
    bias_sd: float = 0.3
    noise_sd_consistent: float = 0.45
    noise_sd_inconsistent: float = 1.2
    attention_inconsistent: float = 0.15
    share_inconsistent: float = 0.2
    share_straight_liner: float = 0.02

    def to_dict(self) -> dict[str, Any]:
        return {
            "q0": self.q0,
            "sensitivity": {
                pace: dict(zip(DISSERTATION_FACTORS, map(float, s), strict=True))
                for pace, s in self.sensitivity.items()
            },
            "sensitivity_units": "rating points per 100 ms one-way delay / per % loss",
            "bias_sd": self.bias_sd,
            "noise_sd_consistent": self.noise_sd_consistent,
            "noise_sd_inconsistent": self.noise_sd_inconsistent,
            "attention_inconsistent": self.attention_inconsistent,
            "share_inconsistent": self.share_inconsistent,
            "share_straight_liner": self.share_straight_liner,
        }


def _rating_probs(mu: np.ndarray[Any, Any], sd: float) -> np.ndarray[Any, Any]:
    """P(clip(⌊q + 0.5⌋, 1, 5) = k), q ~ N(mu, sd²), for k = 1..5 (rows follow mu)."""
    edges = np.array([1.5, 2.5, 3.5, 4.5])
    from scipy import stats  # type: ignore[import-untyped]

    cdf = stats.norm.cdf((edges[None, :] - np.asarray(mu)[:, None]) / sd)
    cdf = np.concatenate([np.zeros((cdf.shape[0], 1)), cdf, np.ones((cdf.shape[0], 1))], axis=1)
    return np.diff(cdf, axis=1)


def population_rating_distribution(
    model: StudyModel, pace: str, x: tuple[float, float, float, float]
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Exact rating distribution (k = 1..5) of a random rater under condition ``x``."""
    imp = float(
        _impairment_vectorised(model, np.array([pace], dtype=object), np.array([x], np.float64))[0]
    )
    shares = {
        "consistent": 1.0 - model.share_inconsistent - model.share_straight_liner,
        "inconsistent": model.share_inconsistent,
        "straight_liner": model.share_straight_liner,
    }
    p = shares["consistent"] * _rating_probs(
        np.array([model.q0 - imp]), float(np.hypot(model.bias_sd, model.noise_sd_consistent))
    )
    p += shares["inconsistent"] * _rating_probs(
        np.array([model.q0 - model.attention_inconsistent * imp]),
        float(np.hypot(model.bias_sd, model.noise_sd_inconsistent)),
    )
    p += shares["straight_liner"] * _rating_probs(np.array([model.q0]), model.bias_sd)
    return np.asarray(p[0])


def _assign_games(
    rng: np.random.Generator, participants: int, sessions: int, games: list[str]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """(participant index, game) per session; extra sessions repeat with a new game."""
    extra = sessions - participants
    if extra < 0 or extra > participants * (len(games) - 1):
        raise ValueError(
            f"sessions must lie in [participants, participants*{len(games)}], got {sessions}"
        )
    # Each participant gets a random permutation of the games; the first k_p are played.
    n_sessions = np.ones(participants, dtype=np.int64)
    for _ in range(len(games) - 1):
        if extra == 0:
            break
        eligible = np.flatnonzero(n_sessions < len(games))
        take = rng.choice(eligible, size=min(extra, eligible.size), replace=False)
        n_sessions[take] += 1
        extra -= take.size
    perms = np.argsort(rng.random((participants, len(games))), axis=1)
    who = np.repeat(np.arange(participants), n_sessions)
    slot = np.arange(who.size) - np.repeat(np.cumsum(n_sessions) - n_sessions, n_sessions)
    game_idx = perms[who, slot]
    return who, np.asarray(games, dtype=object)[game_idx]


def generate_study(
    participants: int = 58,
    sessions: int = 79,
    *,
    seed: int = 0,
    model: StudyModel | None = None,
    scenarios: dict[str, tuple[float, float, float, float]] | None = None,
    games: dict[str, str] | None = None,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Generate a study: (tidy ratings table, truth dictionary). Fully determined by ``seed``.

    Defaults give the shape of the dissertation's study: 58 participants, 79 sessions,
    790 ratings over the ten scenarios of table 4.1 and three games.
    """
    model = model or StudyModel()
    scenarios = scenarios or DISSERTATION_SCENARIOS
    games = games or DISSERTATION_GAMES
    rng = np.random.default_rng(seed)
    game_names = list(games)

    width = len(str(participants))
    rater_ids = np.array([f"P{i + 1:0{width}d}" for i in range(participants)], dtype=object)
    kind = rng.choice(
        np.array(["consistent", "inconsistent", "straight_liner"], dtype=object),
        size=participants,
        p=[
            1.0 - model.share_inconsistent - model.share_straight_liner,
            model.share_inconsistent,
            model.share_straight_liner,
        ],
    )
    bias = rng.normal(0.0, model.bias_sd, participants)
    age = rng.integers(18, 46, participants)
    skill = rng.choice(
        np.array(SKILLS, dtype=object),
        size=participants,
        p=np.array(SKILL_SHARES) / sum(SKILL_SHARES),
    )

    who, game = _assign_games(rng, participants, sessions, game_names)
    n_sess = who.size
    swidth = len(str(n_sess))
    session_ids = np.array([f"S{i + 1:0{swidth}d}" for i in range(n_sess)], dtype=object)
    attitude = rng.choice(np.array(ATTITUDES, dtype=object), size=n_sess)

    scen_names = list(scenarios)
    n_scen = len(scen_names)
    x = np.array([scenarios[s] for s in scen_names], dtype=np.float64)
    row_sess = np.repeat(np.arange(n_sess), n_scen)
    row_scen = np.tile(np.arange(n_scen), n_sess)
    row_who = who[row_sess]
    pace = np.array([games[g] for g in game], dtype=object)[row_sess]
    imp = _impairment_vectorised(model, pace, x[row_scen])

    row_kind = kind[row_who]
    attention = np.where(row_kind == "inconsistent", model.attention_inconsistent, 1.0)
    noise_sd = np.where(
        row_kind == "inconsistent", model.noise_sd_inconsistent, model.noise_sd_consistent
    )
    q = model.q0 + bias[row_who] - attention * imp + rng.normal(0.0, 1.0, row_sess.size) * noise_sd
    q = np.where(row_kind == "straight_liner", model.q0 + bias[row_who], q)
    rating = np.clip(np.floor(q + 0.5), 1, 5).astype(np.int64)

    df = pd.DataFrame(
        {
            RATER: rater_ids[row_who],
            SESSION: session_ids[row_sess],
            GAME: game[row_sess],
            PACE: pace,
            SCENARIO: np.asarray(scen_names, dtype=object)[row_scen],
            DS_DELAY: x[row_scen, 0],
            US_DELAY: x[row_scen, 1],
            DS_LOSS: x[row_scen, 2],
            US_LOSS: x[row_scen, 3],
            RATING: rating,
            "age": age[row_who],
            "skill": skill[row_who],
            "attitude": attitude[row_sess],
        }
    )
    truth = {
        "generator": "qoe_analysis.synthetic.generate_study",
        "seed": seed,
        "participants": participants,
        "sessions": int(n_sess),
        "ratings": len(df),
        "model": model.to_dict(),
        "games": dict(games),
        "scenarios": {
            k: dict(zip(DISSERTATION_FACTORS, v, strict=True)) for k, v in scenarios.items()
        },
        "inconsistent_raters": sorted(rater_ids[kind == "inconsistent"].tolist()),
        "straight_liners": sorted(rater_ids[kind == "straight_liner"].tolist()),
        "population": _population_truth(model, scenarios, games, game),
    }
    return df, truth


def _impairment_vectorised(
    model: StudyModel, pace: np.ndarray[Any, Any], x: np.ndarray[Any, Any]
) -> np.ndarray[Any, Any]:
    codes, uniques = pd.factorize(pace)
    sens = np.array([model.sensitivity[p] for p in uniques], dtype=np.float64)[codes]
    scale = np.array([0.01, 0.01, 1.0, 1.0])
    return np.asarray((sens * x * scale).sum(axis=1))


def _population_truth(
    model: StudyModel,
    scenarios: dict[str, tuple[float, float, float, float]],
    games: dict[str, str],
    session_games: np.ndarray[Any, Any],
) -> dict[str, Any]:
    levels = np.arange(1, 6, dtype=np.float64)
    conditions = []
    for g, pace in games.items():
        for s, x in scenarios.items():
            p = population_rating_distribution(model, pace, x)
            mos = float(p @ levels)
            sos = float(np.sqrt(p @ (levels - mos) ** 2))
            conditions.append(
                {
                    "scenario": s,
                    "game": g,
                    "mos": mos,
                    "sos": sos,
                    "p_acceptable_from_3": float(p[2:].sum()),
                    "distribution": [float(v) for v in p],
                }
            )
    cond = pd.DataFrame(conditions)
    sos_fit = fit_sos_parameter(cond["mos"].to_numpy(), cond["sos"].to_numpy())
    # Population information gain for "rating >= 3" under the realised game shares.
    share = pd.Series(session_games).value_counts(normalize=True)
    weight = cond["game"].map(share).fillna(0.0).to_numpy() / len(scenarios)
    p_acc = cond["p_acceptable_from_3"].to_numpy()
    y = np.concatenate([np.ones(len(cond), np.int64), np.zeros(len(cond), np.int64)])
    w = np.concatenate([weight * p_acc, weight * (1.0 - p_acc)])
    gains: dict[str, float] = {}
    for i, factor in enumerate(DISSERTATION_FACTORS):
        xs = np.array([scenarios[s][i] for s in cond["scenario"]], dtype=np.float64)
        gains[factor] = best_binary_split_gain(np.concatenate([xs, xs]), y, w)[0]
    pace_of_condition = cond["game"].map(games).to_numpy()
    codes, _ = pd.factorize(np.concatenate([pace_of_condition, pace_of_condition]))
    table = np.zeros((codes.max() + 1, 2))
    np.add.at(table, (codes, y), w)
    gains[PACE] = info_gain_from_table(table)
    for factor in ("age", "skill", "attitude"):
        gains[factor] = 0.0
    order = sorted(gains, key=lambda k: -gains[k])
    return {
        "conditions": conditions,
        "sos_a": sos_fit.a,
        "sos_fit_r2": sos_fit.r2,
        "information_gain_bits_best_split": gains,
        "importance_order": order,
    }
