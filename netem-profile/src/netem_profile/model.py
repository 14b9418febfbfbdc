"""Immutable profile objects: one :class:`DirectionProfile` per direction.

A profile names each direction by what it means for the game, never by interface:
``upstream`` = client→server, ``downstream`` = server→client. The attributes are the
registry's fields (:mod:`netem_profile.fields`) in registry order, and their defaults are
the registry's neutral values, so a default-constructed direction adds no impairment.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from netem_profile.fields import FIELDS, GILBERT_ELLIOTT_FIELDS

__all__ = ["DIRECTIONS", "DIRECTION_LABELS", "DirectionProfile", "GilbertElliott", "Profile"]

#: The two directions of a profile, in a fixed order.
DIRECTIONS: tuple[str, str] = ("upstream", "downstream")
#: Human-readable names used in every message.
DIRECTION_LABELS: dict[str, str] = {
    "upstream": "client→server",
    "downstream": "server→client",
}

_GE = {f.name: f for f in GILBERT_ELLIOTT_FIELDS}


def _number(name: str) -> float:
    """The neutral value of the registry's number field ``name``."""
    return float(FIELDS[name].neutral or 0)


def _integer(name: str) -> int:
    return int(FIELDS[name].neutral or 0)


def _choice(name: str) -> str:
    return str(FIELDS[name].neutral)


@dataclass(frozen=True)
class GilbertElliott:
    """Gilbert–Elliott loss model (two-state Markov chain, evaluated per packet)."""

    p_pct: float  # good→bad transition probability
    r_pct: float  # bad→good transition probability
    loss_bad_pct: float = float(_GE["loss_bad_pct"].neutral or 0)  # loss in the bad state (1-h)
    loss_good_pct: float = float(_GE["loss_good_pct"].neutral or 0)  # in the good state (1-k)

    def mean_loss_pct(self) -> float:
        """Stationary loss rate of the chain, in percent: π_bad = p / (p + r)."""
        p, r = self.p_pct / 100, self.r_pct / 100
        if p + r == 0:
            return self.loss_good_pct
        bad = p / (p + r)
        return 100 * (bad * self.loss_bad_pct / 100 + (1 - bad) * self.loss_good_pct / 100)

    def to_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class DirectionProfile:
    """The impairment of one direction. All defaults are neutral."""

    delay_ms: float = _number("delay_ms")
    jitter_ms: float = _number("jitter_ms")
    jitter_distribution: str = _choice("jitter_distribution")
    delay_correlation_pct: float = _number("delay_correlation_pct")
    loss_pct: float = _number("loss_pct")
    loss_correlation_pct: float = _number("loss_correlation_pct")
    gilbert_elliott: GilbertElliott | None = None
    rate_kbit: int = _integer("rate_kbit")
    duplicate_pct: float = _number("duplicate_pct")
    reorder_pct: float = _number("reorder_pct")
    reorder_correlation_pct: float = _number("reorder_correlation_pct")
    corrupt_pct: float = _number("corrupt_pct")
    queue_limit_packets: int = _integer("queue_limit_packets")

    def is_neutral(self) -> bool:
        """True when the direction adds no impairment (queue limit/distribution ignored)."""
        return (
            DirectionProfile(
                queue_limit_packets=self.queue_limit_packets,
                jitter_distribution=self.jitter_distribution,
            )
            == self
        )

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["gilbert_elliott"] = (
            self.gilbert_elliott.to_dict() if self.gilbert_elliott is not None else None
        )
        return out


@dataclass(frozen=True)
class Profile:
    """A full profile: one :class:`DirectionProfile` per direction."""

    upstream: DirectionProfile = field(default_factory=DirectionProfile)
    downstream: DirectionProfile = field(default_factory=DirectionProfile)

    def direction(self, name: str) -> DirectionProfile:
        if name not in DIRECTIONS:
            raise KeyError(name)
        result: DirectionProfile = getattr(self, name)
        return result

    def to_dict(self) -> dict[str, Any]:
        """The full document with every field explicit (parse_profile(to_dict()) == self)."""
        return {"upstream": self.upstream.to_dict(), "downstream": self.downstream.to_dict()}
