"""Seeded P.809-like randomised studies on a 0–6 scale with a known acceptability truth.

Shaped after a public ITU-T P.809 cloud-gaming dataset: per round the one-way delay,
jitter and random loss of each direction are drawn independently and uniformly from
discrete levels (so that two rounds rarely share a condition), two games (one fast-paced,
one slow-paced), a 0–6 rating scale, many players of whom two give most ratings.

Rating model (a cumulative-logit rater model, McCullagh 1980): for rater r in round i

    η_i  = β0 + β_pace[pace_i] + Σ_f β_f · x_if
           + β_ddl · ds_delay_i/100 · ds_loss_i + β_udl · us_delay_i/100 · us_loss_i
    q_ir = η_i + b_r + ε_ir,     b_r ~ N(0, τ²) (rater bias),  ε_ir ~ Logistic(0, 1) (noise)
    rating = #{k : q_ir > c_k},  c = (c_1 < … < c_6) with c_4 = 0,

so that ``acceptable = rating ≥ 4`` (the sidecar's acceptance rule) holds with
P(acceptable | rater) = logistic(η_i + b_r). Delay and jitter are in ms (slopes per ms),
loss in % (slopes per %). The population-averaged truth that a model fitted across raters
estimates is P(acceptable) = E_b[logistic(η + b)], computed by Gauss–Hermite quadrature
(:meth:`P809Truth.p_acceptable`).

Raters: the first two players ("dominant") give ``dominant_share`` of the ratings between
them, the others share the rest (at least one rating each). Every player's rounds are cut
into sessions of at most ``rounds_per_session`` rounds, each session plays one game (random),
and no session rates a condition twice (a repeated draw is drawn again). The scenario code
names the condition (its level indices), so a scenario has one network condition.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.tidy.columns import GAME, PACE, RATER, RATING, SCENARIO, SESSION

__all__ = [
    "FACTORS",
    "P809Players",
    "P809Truth",
    "p809_conditions",
    "p809_dataset",
    "p809_players",
    "p809_sidecar",
]

#: the factor columns the generator varies (delay, jitter, loss; each direction)
FACTORS: tuple[str, ...] = (
    "ds_delay_ms",
    "us_delay_ms",
    "ds_jitter_ms",
    "us_jitter_ms",
    "ds_loss_pct",
    "us_loss_pct",
)
GAMES = {"racing": "fast", "puzzle": "slow"}
#: rating thresholds c_1..c_6 of the latent score (c_4 = 0: acceptable = rating >= 4)
CUTS = (-4.5, -3.0, -1.5, 0.0, 1.5, 3.0)
ACCEPTABLE_FROM = 4


def _default_levels() -> dict[str, tuple[float, ...]]:
    return {
        "ds_delay_ms": (0.0, 25.0, 50.0, 100.0, 150.0),
        "us_delay_ms": (0.0, 25.0, 50.0, 100.0, 150.0),
        "ds_jitter_ms": (0.0, 5.0, 10.0, 25.0),
        "us_jitter_ms": (0.0, 5.0, 10.0, 25.0),
        "ds_loss_pct": (0.0, 0.5, 1.0, 2.0, 3.0),
        "us_loss_pct": (0.0, 0.5, 1.0, 2.0, 3.0),
    }


def _default_slopes() -> dict[str, float]:
    return {
        "ds_delay_ms": -0.008,
        "us_delay_ms": -0.005,
        "ds_jitter_ms": -0.03,
        "us_jitter_ms": -0.015,
        "ds_loss_pct": -0.5,
        "us_loss_pct": -0.25,
    }


@dataclass(frozen=True)
class P809Truth:
    """True parameters of :func:`p809_dataset` and the population quantities they imply."""

    intercept: float = 3.0
    pace_effect: dict[str, float] = field(default_factory=lambda: {"fast": -0.6, "slow": 0.0})
    slopes: dict[str, float] = field(default_factory=_default_slopes)
    #: coefficient of ds_delay/100 · ds_loss and of us_delay/100 · us_loss (per 100 ms · %)
    interaction: tuple[float, float] = (-0.2, -0.1)
    bias_sd: float = 1.0
    levels: dict[str, tuple[float, ...]] = field(default_factory=_default_levels)

    def linear_predictor(self, frame: pd.DataFrame) -> np.ndarray[Any, np.dtype[np.float64]]:
        """η per row of ``frame`` (the rater-specific logit without the bias b_r).

        ``frame`` holds ``game_pace`` and any of the factor columns; ``both_X`` sets
        ``ds_X`` and ``us_X``; a missing factor is 0 (unimpaired)."""
        n = len(frame)
        x = {f: _column(frame, f, n) for f in FACTORS}
        pace = frame[PACE].astype(str).to_numpy()
        eta = np.full(n, self.intercept, dtype=np.float64)
        eta += np.array([self.pace_effect[p] for p in pace], dtype=np.float64)
        for f, beta in self.slopes.items():
            eta += beta * x[f]
        eta += self.interaction[0] * x["ds_delay_ms"] / 100.0 * x["ds_loss_pct"]
        eta += self.interaction[1] * x["us_delay_ms"] / 100.0 * x["us_loss_pct"]
        return eta

    def p_acceptable(
        self, frame: pd.DataFrame, nodes: int = 40
    ) -> np.ndarray[Any, np.dtype[np.float64]]:
        """Population-averaged true P(acceptable) per row: ∫ logistic(η + τz) φ(z) dz,
        by ``nodes``-point Gauss–Hermite quadrature (z = √2·u, weights / √π)."""
        u, w = np.polynomial.hermite.hermgauss(nodes)
        eta = self.linear_predictor(frame)
        z = eta[:, None] + self.bias_sd * np.sqrt(2.0) * u[None, :]
        p = 0.5 * (1.0 + np.tanh(0.5 * z))  # logistic, overflow-free
        return np.asarray(p @ w / np.sqrt(np.pi), dtype=np.float64)

    def to_dict(self) -> dict[str, Any]:
        return {
            "intercept": self.intercept,
            "pace_effect": dict(self.pace_effect),
            "slopes": dict(self.slopes),
            "interaction": {
                "ds_delay_ms/100*ds_loss_pct": self.interaction[0],
                "us_delay_ms/100*us_loss_pct": self.interaction[1],
            },
            "bias_sd": self.bias_sd,
            "cuts": list(CUTS),
            "acceptable_from": ACCEPTABLE_FROM,
            "levels": {k: list(v) for k, v in self.levels.items()},
        }


def _column(frame: pd.DataFrame, factor: str, n: int) -> np.ndarray[Any, np.dtype[np.float64]]:
    both = "both_" + factor[3:]
    if factor in frame.columns:
        return frame[factor].to_numpy(dtype=np.float64)
    if both in frame.columns:
        return frame[both].to_numpy(dtype=np.float64)
    return np.zeros(n, dtype=np.float64)


def p809_sidecar() -> dict[str, Any]:
    """The items sidecar: one item ``quality`` on 0..6, acceptable = quality ≥ 4."""
    return {
        "items": [
            {
                "key": "quality",
                "question": {
                    "en": "How would you rate the overall quality of the game?",
                    "de": "Wie bewerten Sie die Gesamtqualität des Spiels?",
                },
                "scale": {"kind": "discrete", "min": 0, "max": 6, "step": 1},
                "required": True,
            }
        ],
        "acceptance": {"item": "quality", "min": ACCEPTABLE_FROM},
        "min_response_ms": 1000,
    }


def _ratings_per_player(
    rng: np.random.Generator, n_players: int, n_ratings: int, dominant_share: float
) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Two dominant players split ``dominant_share`` of the ratings; the rest get ≥ 1 each."""
    if n_players < 3 or n_ratings < n_players + 2:
        raise ValueError("need at least 3 players and more ratings than players")
    dominant = round(dominant_share * n_ratings)
    rest = n_ratings - dominant
    others = n_players - 2
    if dominant < 2 or rest < others:
        raise ValueError("dominant_share leaves fewer ratings than the other players")
    first = dominant // 2 + int(rng.integers(0, dominant % 2 + 1))
    extra = rng.multinomial(rest - others, np.full(others, 1.0 / others))
    return np.concatenate([[first, dominant - first], 1 + extra]).astype(np.int64)


def _draw_conditions(
    rng: np.random.Generator, sessions: np.ndarray[Any, Any], sizes: tuple[int, ...]
) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Level indices (rows × factors), redrawn until no session repeats a condition."""
    idx = np.stack([rng.integers(0, k, sessions.size) for k in sizes], axis=1)
    radix = np.cumprod((1, *sizes[:-1]))
    for _ in range(100):
        key = sessions.astype(np.int64) * int(np.prod(sizes)) + idx @ radix
        dup = pd.Series(key).duplicated().to_numpy()
        if not dup.any():
            return idx
        idx[dup] = np.stack([rng.integers(0, k, int(dup.sum())) for k in sizes], axis=1)
    raise RuntimeError("could not draw distinct conditions per session")


@dataclass(frozen=True)
class P809Players:
    """The players of one :func:`p809_dataset`: ids, ratings per player and rater biases b_r."""

    ids: np.ndarray[Any, np.dtype[Any]]
    counts: np.ndarray[Any, np.dtype[np.int64]]
    bias: np.ndarray[Any, np.dtype[np.float64]]

    def p_acceptable(
        self, frame: pd.DataFrame, player: np.ndarray[Any, Any], truth: P809Truth
    ) -> np.ndarray[Any, np.dtype[np.float64]]:
        """P(acceptable | condition, player) = logistic(η + b_player) per row of ``frame``
        (``player``: index into :attr:`ids` per row)."""
        z = truth.linear_predictor(frame) + self.bias[np.asarray(player, dtype=np.intp)]
        return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)), dtype=np.float64)


def _streams(seed: int) -> tuple[np.random.Generator, np.random.Generator]:
    """Independent streams for the players and for the rounds of a dataset, so that the
    players of a seed can be drawn again without its rounds (:func:`p809_players`)."""
    players, rounds = np.random.default_rng(seed).spawn(2)
    return players, rounds


def p809_players(
    seed: int,
    *,
    n_players: int = 78,
    n_ratings: int = 2500,
    dominant_share: float = 0.75,
    truth: P809Truth | None = None,
) -> P809Players:
    """The players (ratings per player, biases) of ``p809_dataset(seed, …)`` with the same
    options: for data "from the same truth and the same players" (a fresh test set)."""
    truth = truth or P809Truth()
    rng, _ = _streams(seed)
    counts = _ratings_per_player(rng, n_players, n_ratings, dominant_share)
    bias = rng.normal(0.0, truth.bias_sd, n_players)
    width = len(str(n_players))
    ids = np.array([f"p{i + 1:0{width}d}" for i in range(n_players)], dtype=object)
    return P809Players(ids=ids, counts=counts, bias=bias)


def p809_dataset(
    seed: int,
    *,
    n_players: int = 78,
    n_ratings: int = 2500,
    dominant_share: float = 0.75,
    rounds_per_session: int = 10,
    truth: P809Truth | None = None,
) -> tuple[pd.DataFrame, P809Truth]:
    """(tidy ratings table, truth); fully determined by ``seed`` and the options.

    The table has the identity columns, the six factor columns of :data:`FACTORS` and
    ``rating`` (0..6, no ``item`` column): validate it with the sidecar of
    :func:`p809_sidecar` (``validate_ratings(df, sidecar=parse_sidecar(p809_sidecar()))``).
    The players come from :func:`p809_players` (same seed and options).
    """
    truth = truth or P809Truth()
    cast = p809_players(
        seed,
        n_players=n_players,
        n_ratings=n_ratings,
        dominant_share=dominant_share,
        truth=truth,
    )
    _, rng = _streams(seed)
    counts = cast.counts
    who = np.repeat(np.arange(n_players), counts)
    # round number within the player, then session = (player, round // rounds_per_session)
    rank = np.arange(who.size) - np.repeat(np.cumsum(counts) - counts, counts)
    sess_key = who * (int(counts.max()) // rounds_per_session + 1) + rank // rounds_per_session
    session, _ = pd.factorize(sess_key)
    n_sess = int(session.max()) + 1
    game_names = np.array(list(GAMES), dtype=object)
    session_game = game_names[rng.integers(0, len(GAMES), n_sess)]
    sizes = tuple(len(truth.levels[f]) for f in FACTORS)
    idx = _draw_conditions(rng, np.asarray(session), sizes)
    frame: dict[str, Any] = {
        RATER: cast.ids[who],
        SESSION: np.array([f"s{i + 1:0{len(str(n_sess))}d}" for i in range(n_sess)])[session],
        GAME: session_game[session],
    }
    frame[PACE] = np.array([GAMES[g] for g in frame[GAME]], dtype=object)
    frame[SCENARIO] = np.array(["".join(map(str, row)) for row in idx.tolist()], dtype=object)
    frame[SCENARIO] = "C" + frame[SCENARIO]
    for j, f in enumerate(FACTORS):
        frame[f] = np.asarray(truth.levels[f], dtype=np.float64)[idx[:, j]]
    df = pd.DataFrame(frame)
    q = truth.linear_predictor(df) + cast.bias[who] + rng.logistic(0.0, 1.0, who.size)
    df[RATING] = (q[:, None] > np.asarray(CUTS)[None, :]).sum(axis=1).astype(np.int64)
    return df, truth


def p809_conditions(seed: int, n: int, truth: P809Truth | None = None) -> pd.DataFrame:
    """``n`` fresh rounds' conditions as :func:`p809_dataset` draws them (game uniform,
    every factor level uniform and independent), without players or ratings."""
    truth = truth or P809Truth()
    rng = np.random.default_rng(seed)
    games = np.array(list(GAMES), dtype=object)[rng.integers(0, len(GAMES), n)]
    frame: dict[str, Any] = {GAME: games, PACE: np.array([GAMES[g] for g in games], dtype=object)}
    for f in FACTORS:
        levels = np.asarray(truth.levels[f], dtype=np.float64)
        frame[f] = levels[rng.integers(0, len(levels), n)]
    return pd.DataFrame(frame)
