"""A seeded pilot study with one rater per game who rates at random (issue 31's pilot).

Design, as a researcher's own first pilot would have it:

* two games, ``racing`` (fast pace) and ``soccer`` (slow pace);
* a 12-scenario full-factorial grid, the same value on both directions: one-way delay
  0/50/100/200 ms × random loss 0/1/3 %; scenario codes ``D<ms>L<pct>`` (``D0L0`` … ``D200L3``);
* three raters per game, each plays their game once (one session, every scenario once, in a
  random order); one of the three rates **uniformly at random** on ACR 1–5, the other two
  **carefully**:

      q = 4.6 + b_r − s_pace · (0.9·delay/100 + 0.6·loss) + ε,
      rating = clip(⌊q + 0.5⌋, 1, 5),   b_r ~ N(0, 0.25²),   ε ~ N(0, 0.35²)

  with s_pace = 1.2 (fast), 0.8 (slow), so a careful rating falls with the impairment plus
  small noise.

The table is the tidy long format that :func:`qoe_analysis.validate_ratings` accepts (identity
columns, the four delay/loss factor columns, ``rating``; no ``item`` column: one item,
overall quality on ACR-5). 6 sessions, 72 ratings. Fully determined by ``seed``; which of
the three raters of a game is the random one is drawn from the seed too.

In the grid, ``delay_only`` (loss 0: four scenarios, four levels) is the one screening group
the intra-rater rule can count; ``loss_only`` (delay 0: three scenarios) has too few ratings
per session (:mod:`qoe_analysis.stats.intra_rater`). With one session of 12 ratings per
rater and three raters per game, no screen has the evidence to call anyone reliable, and
the random rater must never be called so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.tidy.columns import (
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

__all__ = ["PILOT_DELAYS_MS", "PILOT_GAMES", "PILOT_LOSSES_PCT", "PilotTruth", "pilot_dataset"]

PILOT_GAMES: dict[str, str] = {"racing": "fast", "soccer": "slow"}
PILOT_DELAYS_MS: tuple[float, ...] = (0.0, 50.0, 100.0, 200.0)
PILOT_LOSSES_PCT: tuple[float, ...] = (0.0, 1.0, 3.0)
_PACE_SCALE = {"fast": 1.2, "slow": 0.8}
RATERS_PER_GAME = 3


@dataclass(frozen=True)
class PilotTruth:
    """What the pilot's generator knows: who rated at random and the careful raters' model."""

    seed: int
    random_raters: tuple[str, ...]
    careful_raters: tuple[str, ...]
    games: dict[str, str]
    scenarios: dict[str, tuple[float, float]]  # code -> (delay ms both ways, loss % both ways)
    q0: float = 4.6
    bias_sd: float = 0.25
    noise_sd: float = 0.35
    delay_per_100ms: float = 0.9
    loss_per_pct: float = 0.6
    pace_scale: tuple[tuple[str, float], ...] = tuple(_PACE_SCALE.items())

    def careful_mean(self, pace: str, delay_ms: float, loss_pct: float) -> float:
        """Expected latent score q of a careful rater with bias 0 (before rounding/clipping)."""
        scale = dict(self.pace_scale)[pace]
        impairment = self.delay_per_100ms * delay_ms / 100.0 + self.loss_per_pct * loss_pct
        return self.q0 - scale * impairment

    def to_dict(self) -> dict[str, Any]:
        return {
            "generator": "qoe_analysis.synthetic_pilot.pilot_dataset",
            "seed": self.seed,
            "random_raters": list(self.random_raters),
            "careful_raters": list(self.careful_raters),
            "games": dict(self.games),
            "scenarios": {k: list(v) for k, v in self.scenarios.items()},
            "model": {
                "q0": self.q0,
                "bias_sd": self.bias_sd,
                "noise_sd": self.noise_sd,
                "delay_per_100ms": self.delay_per_100ms,
                "loss_per_pct": self.loss_per_pct,
                "pace_scale": dict(self.pace_scale),
            },
        }


def pilot_scenarios() -> dict[str, tuple[float, float]]:
    """The 12 grid cells: code ``D<ms>L<pct>`` -> (delay ms, loss %), delay-major order."""
    return {f"D{d:g}L{loss:g}": (d, loss) for d in PILOT_DELAYS_MS for loss in PILOT_LOSSES_PCT}


def pilot_dataset(seed: int = 0) -> tuple[pd.DataFrame, PilotTruth]:
    """The pilot's tidy ratings table and its truth (see the module docstring)."""
    rng = np.random.default_rng(seed)
    scenarios = pilot_scenarios()
    codes = np.array(list(scenarios), dtype=object)
    x = np.array(list(scenarios.values()), dtype=np.float64)
    n_scen = len(codes)
    truth_probe = PilotTruth(seed, (), (), dict(PILOT_GAMES), scenarios)
    frames = []
    random_raters: list[str] = []
    careful_raters: list[str] = []
    for g, (game, pace) in enumerate(PILOT_GAMES.items()):
        random_slot = int(rng.integers(RATERS_PER_GAME))
        for slot in range(RATERS_PER_GAME):
            number = g * RATERS_PER_GAME + slot + 1
            rater, session = f"R{number}", f"S{number}"
            order = rng.permutation(n_scen)
            if slot == random_slot:
                rating = rng.integers(1, 6, n_scen)
                random_raters.append(rater)
            else:
                mean = np.array([truth_probe.careful_mean(pace, d, lo) for d, lo in x[order]])
                q = mean + rng.normal(0.0, truth_probe.bias_sd)
                q = q + rng.normal(0.0, truth_probe.noise_sd, n_scen)
                rating = np.clip(np.floor(q + 0.5), 1, 5).astype(np.int64)
                careful_raters.append(rater)
            frames.append(
                pd.DataFrame(
                    {
                        RATER: rater,
                        SESSION: session,
                        GAME: game,
                        PACE: pace,
                        SCENARIO: codes[order],
                        DS_DELAY: x[order, 0],
                        US_DELAY: x[order, 0],
                        DS_LOSS: x[order, 1],
                        US_LOSS: x[order, 1],
                        RATING: rating.astype(np.int64),
                    }
                )
            )
    df = pd.concat(frames, ignore_index=True)
    truth = PilotTruth(
        seed, tuple(random_raters), tuple(careful_raters), dict(PILOT_GAMES), scenarios
    )
    return df, truth
