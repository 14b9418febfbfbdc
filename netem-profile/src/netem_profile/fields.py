"""The registry of per-direction impairment fields: one row of data per field.

Every consumer reads this table instead of repeating it: the validator (types, limits,
allowed values), the JSON Schema, the parser (which Python type a value becomes) and the
neutral :class:`~netem_profile.model.DirectionProfile`. Limits follow what Linux netem
accepts (``tc-netem(8)``): percentages in [0, 100], times in milliseconds up to one
minute, the rate in kbit/s (1 kbit = 1000 bit) with 0 meaning unlimited.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

__all__ = [
    "DIRECTION_FIELDS",
    "FIELDS",
    "GILBERT_ELLIOTT_FIELDS",
    "JITTER_DISTRIBUTIONS",
    "Field",
    "FieldType",
]

#: JSON types of a field: ``number`` becomes a float, ``integer`` an int, ``choice`` one
#: string of ``choices``, ``object`` a nested record of ``parts`` (or null when absent).
FieldType = Literal["number", "integer", "choice", "object"]

#: netem's delay distribution tables (iproute2 ships them in /usr/lib/tc).
JITTER_DISTRIBUTIONS = ("normal", "pareto", "paretonormal")


@dataclass(frozen=True)
class Field:
    """One impairment field: its name, unit, limits, neutral value and meaning.

    ``neutral`` is the value that adds no impairment (and the default of an omitted
    field). ``minimum``/``maximum`` are inclusive. An ``object`` field lists its
    ``parts`` and which of them are ``required``; it is null when unused.
    """

    name: str
    type: FieldType
    description: str
    unit: str = ""
    minimum: int | float | None = None
    maximum: int | float | None = None
    neutral: int | float | str | None = None
    choices: tuple[str, ...] = ()
    parts: tuple[Field, ...] = ()
    required: tuple[str, ...] = ()


def _pct(name: str, description: str, neutral: int = 0) -> Field:
    """A probability or correlation in percent, 0–100."""
    return Field(name, "number", description, "%", 0, 100, neutral)


GILBERT_ELLIOTT_FIELDS: tuple[Field, ...] = (
    _pct("p_pct", "Transition probability good→bad per packet."),
    _pct("r_pct", "Transition probability bad→good per packet."),
    _pct("loss_bad_pct", "Loss probability in the bad state (1-h).", neutral=100),
    _pct("loss_good_pct", "Loss probability in the good state (1-k)."),
)

DIRECTION_FIELDS: tuple[Field, ...] = (
    Field(
        "delay_ms",
        "number",
        "Constant one-way delay added in this direction (milliseconds).",
        "ms",
        0,
        60000,
        0,
    ),
    Field(
        "jitter_ms",
        "number",
        "Delay variation (milliseconds); draws below zero add no delay.",
        "ms",
        0,
        60000,
        0,
    ),
    Field(
        "jitter_distribution",
        "choice",
        "Distribution of the jitter (netem delay distribution table).",
        neutral="normal",
        choices=JITTER_DISTRIBUTIONS,
    ),
    _pct("delay_correlation_pct", "Correlation of successive delay values (needs jitter_ms > 0)."),
    _pct("loss_pct", "Random (Bernoulli) packet loss probability in percent."),
    _pct(
        "loss_correlation_pct",
        "Correlation of successive random loss decisions (needs loss_pct > 0).",
    ),
    Field(
        "gilbert_elliott",
        "object",
        "Gilbert–Elliott bursty loss model; replaces loss_pct when present.",
        parts=GILBERT_ELLIOTT_FIELDS,
        required=("p_pct", "r_pct"),
    ),
    Field(
        "rate_kbit",
        "integer",
        "Rate limit in kbit/s (1 kbit = 1000 bit); 0 = unlimited.",
        "kbit/s",
        0,
        100_000_000,
        0,
    ),
    _pct("duplicate_pct", "Packet duplication probability in percent."),
    _pct(
        "reorder_pct",
        "Probability that a packet is sent immediately (ahead of delayed ones); "
        "needs delay_ms > 0.",
    ),
    _pct(
        "reorder_correlation_pct",
        "Correlation of successive reorder decisions (needs reorder_pct > 0).",
    ),
    _pct("corrupt_pct", "Single-bit corruption probability in percent."),
    Field(
        "queue_limit_packets",
        "integer",
        "netem queue length in packets (packets beyond it are dropped).",
        "packets",
        1,
        1_000_000,
        10000,
    ),
)

#: The direction fields by name, in registry order.
FIELDS: Mapping[str, Field] = MappingProxyType({f.name: f for f in DIRECTION_FIELDS})
