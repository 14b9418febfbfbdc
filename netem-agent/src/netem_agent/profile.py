"""The impairment profile document shared by the agent and the backend.

A profile names each direction by what it means for the game, never by interface:

* ``upstream``   = client→server
* ``downstream`` = server→client

Every field is optional and defaults to "no impairment"; unknown fields are rejected.
The structural rules live in ``schemas/profile.schema.json`` (JSON Schema, shipped as
package data); this module adds the rules a JSON Schema cannot express (e.g. jitter must
not exceed delay, reordering needs a delay) and turns documents into immutable objects.

This module deliberately imports nothing from the kernel side (no pyroute2, no sockets),
so the backend can import it to validate scenarios.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from functools import lru_cache
from importlib import resources
from typing import Any

__all__ = [
    "DIRECTIONS",
    "DIRECTION_LABELS",
    "DirectionProfile",
    "GilbertElliott",
    "Profile",
    "ProfileError",
    "load_schema",
    "parse_direction",
    "parse_profile",
]

#: The two directions of a profile, in a fixed order.
DIRECTIONS: tuple[str, str] = ("upstream", "downstream")
#: Human-readable names used in every message.
DIRECTION_LABELS: dict[str, str] = {
    "upstream": "client→server",
    "downstream": "server→client",
}

JITTER_DISTRIBUTIONS = ("normal", "pareto", "paretonormal")


class ProfileError(ValueError):
    """A profile document is invalid. ``errors`` lists ``{"path", "message"}`` items."""

    def __init__(self, errors: list[dict[str, str]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{e['path']}: {e['message']}" for e in errors))


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    """The JSON Schema of the profile document (package data)."""
    text = resources.files("netem_agent").joinpath("schemas/profile.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema  # type: ignore[import-untyped]  # lazily: the agent's hot path never needs it twice

    schema = load_schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@dataclass(frozen=True)
class GilbertElliott:
    """Gilbert–Elliott loss model (two-state Markov chain, evaluated per packet)."""

    p_pct: float  # good→bad transition probability
    r_pct: float  # bad→good transition probability
    loss_bad_pct: float = 100.0  # loss probability in the bad state (1-h)
    loss_good_pct: float = 0.0  # loss probability in the good state (1-k)

    def mean_loss_pct(self) -> float:
        """Stationary loss rate of the chain, in percent."""
        p, r = self.p_pct / 100, self.r_pct / 100
        if p + r == 0:
            return self.loss_good_pct
        bad = p / (p + r)
        return 100 * (bad * self.loss_bad_pct / 100 + (1 - bad) * self.loss_good_pct / 100)

    def to_dict(self) -> dict[str, float]:
        return {
            "p_pct": self.p_pct,
            "r_pct": self.r_pct,
            "loss_bad_pct": self.loss_bad_pct,
            "loss_good_pct": self.loss_good_pct,
        }


@dataclass(frozen=True)
class DirectionProfile:
    """The impairment of one direction. All defaults are neutral."""

    delay_ms: float = 0.0
    jitter_ms: float = 0.0
    jitter_distribution: str = "normal"
    delay_correlation_pct: float = 0.0
    loss_pct: float = 0.0
    loss_correlation_pct: float = 0.0
    gilbert_elliott: GilbertElliott | None = None
    rate_kbit: int = 0
    duplicate_pct: float = 0.0
    reorder_pct: float = 0.0
    reorder_correlation_pct: float = 0.0
    corrupt_pct: float = 0.0
    queue_limit_packets: int = 10000

    def is_neutral(self) -> bool:
        """True when the direction adds no impairment (queue limit/distribution ignored)."""
        return (
            DirectionProfile(
                queue_limit_packets=self.queue_limit_packets,
                jitter_distribution=self.jitter_distribution,
            )
            == self
        )

    def _as_kwargs(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_dict(self) -> dict[str, Any]:
        out = self._as_kwargs()
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


def _path(parts: Any) -> str:
    text = ".".join(str(p) for p in parts)
    return text or "(profile)"


def _non_finite(value: Any, path: list[str], errors: list[dict[str, str]]) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        errors.append({"path": _path(path), "message": f"{value} is not a finite number"})
    elif isinstance(value, dict):
        for k, v in value.items():
            _non_finite(v, [*path, k], errors)


def _semantic_checks(name: str, d: DirectionProfile, errors: list[dict[str, str]]) -> None:
    label = f"{name} ({DIRECTION_LABELS[name]})"

    def err(fieldname: str, message: str) -> None:
        errors.append({"path": f"{name}.{fieldname}", "message": f"{label}: {message}"})

    if d.jitter_ms > d.delay_ms:
        err(
            "jitter_ms",
            f"jitter_ms ({d.jitter_ms}) exceeds delay_ms ({d.delay_ms}); netem clamps "
            "negative delays to zero, so the requested distribution cannot be produced",
        )
    if d.delay_correlation_pct > 0 and d.jitter_ms == 0:
        err("delay_correlation_pct", "delay correlation needs jitter_ms > 0")
    if d.loss_correlation_pct > 0 and d.loss_pct == 0:
        err("loss_correlation_pct", "loss correlation needs loss_pct > 0")
    if d.gilbert_elliott is not None and (d.loss_pct > 0 or d.loss_correlation_pct > 0):
        err(
            "gilbert_elliott",
            "netem applies one loss model per direction: use either loss_pct "
            "(random loss, optionally correlated) or gilbert_elliott, not both",
        )
    if d.reorder_pct > 0 and d.delay_ms == 0:
        err(
            "reorder_pct",
            "netem reorders by sending some packets without the configured delay, "
            "so reordering needs delay_ms > 0",
        )
    if d.reorder_correlation_pct > 0 and d.reorder_pct == 0:
        err("reorder_correlation_pct", "reorder correlation needs reorder_pct > 0")
    # netem keeps time in signed 64-bit nanoseconds and the jitter in a signed 32-bit value
    if d.jitter_ms * 1e6 > 2**31 - 1:
        err("jitter_ms", "netem supports at most 2147 ms of jitter")


def parse_direction(name: str, doc: dict[str, Any]) -> DirectionProfile:
    """Build a DirectionProfile from an already schema-valid dict (no validation)."""
    kwargs: dict[str, Any] = {}
    for key, value in doc.items():
        if key == "gilbert_elliott":
            kwargs[key] = (
                None if value is None else GilbertElliott(**{k: float(v) for k, v in value.items()})
            )
        elif key in ("rate_kbit", "queue_limit_packets"):
            kwargs[key] = int(value)
        elif key == "jitter_distribution":
            kwargs[key] = str(value)
        else:
            kwargs[key] = float(value)
    return DirectionProfile(**kwargs)


def parse_profile(doc: Any) -> Profile:
    """Validate a profile document and return a :class:`Profile`.

    Raises :class:`ProfileError` (a ``ValueError``) listing every problem found, each with
    the JSON path of the offending field.
    """
    errors: list[dict[str, str]] = []
    if not isinstance(doc, dict):
        raise ProfileError([{"path": "(profile)", "message": "a profile must be a JSON object"}])
    _non_finite(doc, [], errors)
    if errors:
        raise ProfileError(errors)
    for e in sorted(_validator().iter_errors(doc), key=lambda e: list(e.absolute_path)):
        leaves = [e]
        if e.validator == "oneOf" and isinstance(e.instance, dict):
            # report the object branch's problems instead of "is not valid under any"
            leaves = [s for s in (e.context or []) if s.validator != "type"] or [e]
        for leaf in leaves:
            message = leaf.message
            if leaf.validator == "additionalProperties":
                message = message.replace("Additional properties are not allowed", "unknown field")
            errors.append({"path": _path(leaf.absolute_path), "message": message})
    if errors:
        raise ProfileError(errors)
    directions = {name: parse_direction(name, doc.get(name, {})) for name in DIRECTIONS}
    for name, d in directions.items():
        _semantic_checks(name, d, errors)
    if errors:
        raise ProfileError(errors)
    return Profile(**directions)
