"""Candidate roles of a file's columns by name and content (``qoe-analysis describe``).

A column's name is split into lower-case words ("DL delay [ms]" → dl, delay, ms;
"playerId" → player, id; "QoE" → qoe). In this order:

* a column of the tidy format (:data:`qoe_analysis.tidy.columns.TIDY_COLUMNS`) takes the
  role the tidy loader gives it (the *implied descriptor*): identity columns their roles,
  ``ds_X``/``us_X`` the registry factor X with its direction and unit, ``rating`` the item
  "overall" on ACR-5 (cut 3) unless the ratings leave 1–5, ``training`` training, response
  times and agent provenance covariates, any other column a questionnaire answer;
* a post-play answer (again, recommend, replay…) is ignored: asked after the rating, it
  is an outcome of the round, not a cause;
* player/subject/user/participant/rater/tester → rater; session; game; pace;
  scenario/condition; qoe/mos/rating/score/quality/acr → rating (numeric, the observed
  min and max as its scale, acceptable from the scale's midpoint rounded up);
* delay/latency/rtt/ping → delay, jitter/pdv → jitter, loss/plr → loss (numeric): a factor,
  downstream for dl/down/ds/downlink, upstream for ul/up/us/uplink, else both; unit from
  the name (ms, s, %, pct, percent, fraction), else ms for delay and jitter, and for loss
  "fraction" when every value is at most 1, else %;
* age/gender/education/experience/hours… → questionnaire; cpu/gpu/fps/bitrate/time/
  duration… → covariate;
* anything else: ignore, with a ``why`` note saying what to choose.

The rater, session, game, pace and scenario roles go to the first candidate only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from netem_profile.factors import parse_column

from qoe_analysis.scales import acceptable_cut
from qoe_analysis.tidy.columns import (
    AGENT_BACKEND,
    AGENT_VERSION,
    ITEM,
    REQUIRED_COLUMNS,
    RESPONSE_MS,
    SINCE_END_MS,
    TRAINING,
)
from qoe_analysis.tidy.design import GAME, PACE, RATER, RATING, SCENARIO, SESSION

__all__ = ["Column", "guess_roles", "words"]


@dataclass(frozen=True)
class Column:
    """A column as :func:`qoe_analysis.dataset.describe.profile_column` saw it."""

    name: str
    type: str
    observed: dict[str, Any]
    missing_tokens: list[str]

    @property
    def numeric(self) -> bool:
        return self.type in ("integer", "number")


_SINGLE = ("rater", "session", "game", "pace", "scenario")
_WORDS = {
    "post": {"again", "recommend", "replay", "continue", "would", "enjoy", "enjoyed"},
    "rater": {"player", "subject", "user", "participant", "rater", "tester", "respondent"},
    "session": {"session"},
    "game": {"game"},
    "pace": {"pace"},
    "scenario": {"scenario", "condition"},
    "rating": {"qoe", "mos", "rating", "score", "quality", "acr"},
    "questionnaire": {
        "age",
        "gender",
        "sex",
        "education",
        "experience",
        "hours",
        "country",
        "occupation",
        "expertise",
        "frequency",
        "skill",
        "handedness",
    },
    "covariate": {
        "cpu",
        "gpu",
        "fps",
        "bitrate",
        "time",
        "duration",
        "ram",
        "memory",
        "temperature",
        "battery",
        "timestamp",
        "framerate",
        "resolution",
    },
}
_FACTORS = {
    "delay": {"delay", "latency", "rtt", "ping", "lag"},
    "jitter": {"jitter", "pdv"},
    "loss": {"loss", "plr", "packetloss"},
}
_DOWN = {"dl", "down", "ds", "downstream", "downlink"}
_UP = {"ul", "up", "us", "upstream", "uplink"}
_UNITS = {
    "ms": "ms",
    "s": "s",
    "sec": "s",
    "seconds": "s",
    "%": "%",
    "pct": "%",
    "percent": "%",
    "fraction": "fraction",
}
_TIDY_COVARIATES = {RESPONSE_MS, SINCE_END_MS, AGENT_BACKEND, AGENT_VERSION}
_TIDY_ROLES = {RATER: "rater", SESSION: "session", GAME: "game", PACE: "pace", SCENARIO: "scenario"}


def words(name: str) -> list[str]:
    """The lower-case words of a column name (camelCase split; '%' is a word)."""
    spaced = re.sub(r"([a-z])([A-Z][a-z])", r"\1 \2", name)  # playerId, not QoE
    return re.findall(r"[a-z0-9]+|%", spaced.lower())


def _field(column: Column, role: str, why: str, **extra: Any) -> dict[str, Any]:
    field = {"name": column.name, "type": column.type, "role": role, **extra}
    return {**field, "observed": column.observed, "why": why}


def _rating(column: Column, why: str, tidy: bool = False) -> dict[str, Any]:
    low, high = column.observed.get("min"), column.observed.get("max")
    if tidy and (low is None or high is None or (low >= 1 and high <= 5)):
        scale: dict[str, Any] = {"kind": "acr5", "min": 1, "max": 5}
        return _field(column, "rating", why, item="overall", scale=scale, acceptable_from=3)
    if low is None or high is None:  # no value at all: the analyst gives the scale
        return _field(column, "rating", f"{why}; no rating in the file: give the scale")
    discrete = column.type == "integer" and 2 <= high - low + 1 <= 11
    scale = {"kind": "discrete" if discrete else "continuous", "min": low, "max": high}
    cut = acceptable_cut(scale)
    return _field(
        column,
        "rating",
        f"{why}; scale: the observed {low} to {high}, acceptable_from: its midpoint rounded "
        "up (set your study's scale and rule)",
        scale=scale,
        **({"acceptable_from": cut} if cut > low else {}),
    )


def _direction(ws: list[str]) -> tuple[str, str]:
    if _DOWN & set(ws):
        return "downstream", "the name says downstream"
    if _UP & set(ws):
        return "upstream", "the name says upstream"
    if "rtt" in ws:
        return "both", "a round-trip time: both ways (one-way delay per direction is about half)"
    return "both", "no direction in the name: taken as the same value both ways"


def _unit(column: Column, factor: str, ws: list[str]) -> tuple[str, str]:
    named = [_UNITS[w] for w in ws if w in _UNITS and w not in ("us",)]
    if named:
        return named[-1], f"unit {named[-1]} from the name"
    if factor == "loss":
        high = column.observed.get("max")
        if high is not None and high <= 1:
            return "fraction", "every value is at most 1: read as fractions (set % if percent)"
        return "%", "no unit in the name: percent assumed"
    return "ms", "no unit in the name: ms assumed"


def _factor(column: Column, ws: list[str]) -> dict[str, Any] | None:
    factor = next((f for f, names in _FACTORS.items() if names & set(ws)), None)
    if factor is None or not column.numeric:
        return None
    direction, why_direction = _direction(ws)
    unit, why_unit = _unit(column, factor, ws)
    return _field(
        column,
        "factor",
        f"a network factor by its name; {why_direction}; {why_unit}",
        factor=factor,
        direction=direction,
        unit=unit,
    )


def _tidy_field(column: Column) -> dict[str, Any]:
    """The implied descriptor's field of a tidy CSV column."""
    name = column.name
    why = "the tidy format's column"
    if name in _TIDY_ROLES:
        return _field(column, _TIDY_ROLES[name], why)
    parsed = parse_column(name)
    if parsed is not None:
        direction, f = parsed
        unit = {"unit": f.unit} if f.unit else {}
        return _field(column, "factor", why, factor=f.key, direction=direction, **unit)
    if name == RATING:
        return _rating(column, f"{why}: one item 'overall' on ACR-5 without an items sidecar", True)
    if name == TRAINING:
        return _field(column, "training", why)
    if name in _TIDY_COVARIATES:
        return _field(
            column, "covariate", f"{why}: response time or agent provenance, never a factor"
        )
    if name == ITEM:
        return _field(
            column, "ignore", "the item column of a long tidy CSV: analyse it with --items"
        )
    return _field(
        column, "questionnaire", "the tidy format analyses any other column as a per-rater factor"
    )


def _guess(column: Column) -> dict[str, Any]:
    ws = words(column.name)
    found = {role for role, names in _WORDS.items() if names & set(ws)}
    if "post" in found:
        return _field(
            column, "ignore", "a post-play answer: asked after the rating, an outcome, not a cause"
        )
    for role in _SINGLE:
        if role in found:
            return _field(column, role, f"a {role} by its name")
    if "rating" in found and column.numeric:
        return _rating(column, "a rating by its name")
    factor = _factor(column, ws)
    if factor is not None:
        return factor
    for role in ("questionnaire", "covariate"):
        if role in found:
            per = "a per-rater answer" if role == "questionnaire" else "a per-rating measurement"
            return _field(column, role, f"{per} by its name (check it is not an outcome of play)")
    return _field(
        column,
        "ignore",
        "not recognised: give it a role (questionnaire: a per-rater answer; covariate: a "
        "per-rating measurement) or leave it ignored",
    )


def guess_roles(columns: list[Column]) -> tuple[list[dict[str, Any]], list[str]]:
    """The draft fields of ``columns`` and notes on what the analyst must still settle."""
    tidy = set(REQUIRED_COLUMNS) <= {c.name for c in columns}
    fields = [_tidy_field(c) if tidy else _guess(c) for c in columns]
    taken: dict[str, str] = {}
    for field in fields:
        role = field["role"]
        if role in _SINGLE and role in taken:
            field["role"] = "ignore"
            field["why"] = f"another {role} candidate: '{taken[role]}' has that role"
        elif role in _SINGLE:
            taken[role] = field["name"]
    notes = [
        f"no {role} column recognised: give one field the role {role}"
        for role in ("rater", "game", "rating", "factor")
        if not any(f["role"] == role for f in fields)
    ]
    if tidy and any(c.name == ITEM for c in columns):
        notes.append("a long tidy CSV (an item column): analyse it with --items, not a descriptor")
    return fields, notes
