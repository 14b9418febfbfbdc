"""The values that pass between the steering service's parts.

Probes produce :class:`PathMeasurement` per path; the decider turns them, with the policy,
into :class:`Decision` s; an :class:`~qoe_steer.actuators.base.Actuator` carries a decision
out on the controller. Times are ``time.monotonic()`` seconds unless a name says ``_unix``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Direction = Literal["upstream", "downstream"]


@dataclass(frozen=True)
class PathSpec:
    """One path between the game server and its clients.

    ``probe_host``/``probe_port``: the reflector reached over this path;
    ``port``: what the actuator steers the flow to (an OpenFlow port number or name).
    """

    id: str
    probe_host: str
    probe_port: int
    port: str


@dataclass(frozen=True)
class FlowSpec:
    """The game flow that is steered: a 5-tuple match and the policy class it belongs to."""

    id: str
    policy_class: str
    match: dict[str, Any]


@dataclass(frozen=True)
class DirectionStats:
    """One direction of a path over the window: percentiles with their sample counts.

    ``delay_ms_p*``: one-way delay percentiles of the received probes; ``jitter_ms``:
    the p95 of |IPDV| (RFC 3393, consecutive received probes); ``loss_pct``: lost / sent.
    """

    sent: int
    received: int
    loss_pct: float
    delay_ms_p50: float | None
    delay_ms_p95: float | None
    delay_ms_p99: float | None
    jitter_ms: float | None


@dataclass(frozen=True)
class PathMeasurement:
    """A path's window of probe results; ``fresh`` is False when it is too old or too thin."""

    path: str
    at: float
    window_s: float
    upstream: DirectionStats
    downstream: DirectionStats
    fresh: bool
    stale_reason: str | None = None

    def as_policy_path(self, delay_key: str = "delay_ms_p95") -> dict[str, Any]:
        """This measurement in ``policy check``'s measurements format (one path)."""
        out: dict[str, Any] = {"id": self.path}
        for name in ("upstream", "downstream"):
            stats: DirectionStats = getattr(self, name)
            entry: dict[str, Any] = {
                "delay_ms": getattr(stats, delay_key) or 0.0,
                "loss_pct": stats.loss_pct,
            }
            if stats.jitter_ms is not None:
                entry["jitter_ms"] = stats.jitter_ms
            out[name] = entry
        return out


@dataclass(frozen=True)
class Decision:
    """What the decider wants for one flow: stay or move, and why (for the event log)."""

    flow: str
    policy_class: str
    from_path: str | None
    to_path: str
    action: Literal["stay", "move", "hold_best"]
    reason: str
    evidence: dict[str, Any] = field(default_factory=dict)
