"""Standard traffic classes a QoE policy is mapped to: DSCP, 3GPP 5QI, ITU-T Y.1541.

The tables are data with their source; the selection rules are documented in
``docs/policy.md`` ("Mapping to standard classes").

* **DSCP**: RFC 4594 §4.4 recommends CS4 (decimal 32) for the *Real-Time Interactive*
  service class, whose examples are interactive video and gaming.
* **5QI**: 3GPP TS 23.501, table 5.7.4-1 (standardized 5QI to QoS characteristics
  mapping). The Packet Delay Budget (PDB) bounds the delay of a packet between the UE and
  the UPF that terminates N6, per direction (uplink and downlink separately), so it is
  compared with the *one-way* delay bound of each direction; the Packet Error Rate (PER)
  bounds the share of packets not delivered by the link layer (non-congestion loss) and
  is compared with the loss bound as a fraction. Only the rows listed below are encoded;
  rows 71–76 (live uplink streaming) and 87–90 (interactive/XR services) are not, so a
  caller needing them must extend :data:`FIVE_QI_TABLE` from the current TS.
* **Y.1541**: ITU-T Y.1541 (12/2011) table 1, classes 0–5. IPTD is an upper bound on the
  *mean* one-way UNI-to-UNI delay, IPLR on the loss ratio; "U" (unspecified) is None.
  The provisional classes 6 and 7 are not encoded.

Selection (both tables): a class qualifies when its delay objective is ≤ the delay bound
and its loss objective is ≤ the loss bound (the class guarantees at least what the study
needs); the chosen class is the lowest-numbered qualifying one, and every qualifying class
is listed as a candidate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "DSCP_REAL_TIME_INTERACTIVE",
    "FIVE_QI_SOURCE",
    "FIVE_QI_TABLE",
    "Y1541_CLASSES",
    "Y1541_SOURCE",
    "FiveQI",
    "Y1541Class",
    "dscp_mapping",
    "select_5qi",
    "select_y1541",
]

DSCP_REAL_TIME_INTERACTIVE: Final = 32  # CS4, RFC 4594 §4.4 / RFC 2474 class selector 4


@dataclass(frozen=True)
class FiveQI:
    value: int
    resource_type: str  # "GBR", "Non-GBR", "Delay-critical GBR"
    priority_level: int
    pdb_ms: float
    per: float  # packet error rate as a fraction
    example_services: str


FIVE_QI_SOURCE: Final = (
    "3GPP TS 23.501, table 5.7.4-1 (standardized 5QI to QoS characteristics mapping); "
    "subset: 1-9, 65-67, 69, 70, 79, 80, 82-86"
)

FIVE_QI_TABLE: Final[tuple[FiveQI, ...]] = (
    FiveQI(1, "GBR", 20, 100, 1e-2, "conversational voice"),
    FiveQI(2, "GBR", 40, 150, 1e-3, "conversational video (live streaming)"),
    FiveQI(3, "GBR", 30, 50, 1e-3, "real time gaming, V2X messages"),
    FiveQI(4, "GBR", 50, 300, 1e-6, "non-conversational video (buffered streaming)"),
    FiveQI(65, "GBR", 7, 75, 1e-2, "mission critical push to talk voice"),
    FiveQI(66, "GBR", 20, 100, 1e-2, "non-mission-critical push to talk voice"),
    FiveQI(67, "GBR", 15, 100, 1e-3, "mission critical video user plane"),
    FiveQI(5, "Non-GBR", 10, 100, 1e-6, "IMS signalling"),
    FiveQI(6, "Non-GBR", 60, 300, 1e-6, "video (buffered streaming), TCP-based"),
    FiveQI(7, "Non-GBR", 70, 100, 1e-3, "voice, video (live streaming), interactive gaming"),
    FiveQI(8, "Non-GBR", 80, 300, 1e-6, "video (buffered streaming), TCP-based"),
    FiveQI(9, "Non-GBR", 90, 300, 1e-6, "video (buffered streaming), TCP-based"),
    FiveQI(69, "Non-GBR", 5, 60, 1e-6, "mission critical delay sensitive signalling"),
    FiveQI(70, "Non-GBR", 55, 200, 1e-6, "mission critical data"),
    FiveQI(79, "Non-GBR", 65, 50, 1e-2, "V2X messages"),
    FiveQI(80, "Non-GBR", 68, 10, 1e-6, "low latency eMBB applications, augmented reality"),
    FiveQI(82, "Delay-critical GBR", 19, 10, 1e-4, "discrete automation"),
    FiveQI(83, "Delay-critical GBR", 22, 10, 1e-4, "discrete automation, V2X platooning"),
    FiveQI(84, "Delay-critical GBR", 24, 30, 1e-5, "intelligent transport systems"),
    FiveQI(85, "Delay-critical GBR", 21, 5, 1e-5, "electricity distribution, high voltage"),
    FiveQI(86, "Delay-critical GBR", 18, 5, 1e-4, "V2X collision avoidance, platooning"),
)


@dataclass(frozen=True)
class Y1541Class:
    value: int
    iptd_ms: float | None  # upper bound on the mean one-way delay; None = unspecified
    ipdv_ms: float | None
    iplr: float | None  # loss ratio (fraction)
    iper: float | None
    applications: str


Y1541_SOURCE: Final = "ITU-T Y.1541 (12/2011), table 1: classes 0-5 (provisional 6, 7 omitted)"

Y1541_CLASSES: Final[tuple[Y1541Class, ...]] = (
    Y1541Class(0, 100, 50, 1e-3, 1e-4, "real-time, jitter sensitive, high interaction"),
    Y1541Class(1, 400, 50, 1e-3, 1e-4, "real-time, jitter sensitive, interactive"),
    Y1541Class(2, 100, None, 1e-3, 1e-4, "transaction data, highly interactive"),
    Y1541Class(3, 400, None, 1e-3, 1e-4, "transaction data, interactive"),
    Y1541Class(4, 1000, None, 1e-3, 1e-4, "low loss only (short transactions, bulk, video)"),
    Y1541Class(5, None, None, None, None, "traditional IP applications (unspecified)"),
)


def dscp_mapping(value: int = DSCP_REAL_TIME_INTERACTIVE) -> dict[str, Any]:
    """The DSCP of the policy (default CS4 = 32) with its source."""
    if not 0 <= value <= 63:
        raise ValueError("a DSCP lies in 0..63")
    names = {8 * k: f"CS{k}" for k in range(8)}
    return {
        "name": names.get(value, f"DSCP {value}"),
        "value": value,
        "tos_byte": value << 2,
        "service_class": "real-time interactive" if value == 32 else "custom",
        "source": "RFC 4594 section 4.4 (Real-Time Interactive: CS4)",
    }


def select_5qi(delay_ms: float | None, loss_pct: float | None) -> dict[str, Any]:
    """Lowest-numbered standardized 5QI with PDB ≤ ``delay_ms`` and PER ≤ ``loss_pct``/100."""
    if delay_ms is None or loss_pct is None:
        return {"value": None, "candidates": [], "source": FIVE_QI_SOURCE}
    fits = sorted(
        (q for q in FIVE_QI_TABLE if q.pdb_ms <= delay_ms and q.per <= loss_pct / 100.0),
        key=lambda q: q.value,
    )
    chosen = fits[0] if fits else None
    return {
        "value": chosen.value if chosen else None,
        "resource_type": chosen.resource_type if chosen else None,
        "pdb_ms": chosen.pdb_ms if chosen else None,
        "per": chosen.per if chosen else None,
        "example_services": chosen.example_services if chosen else None,
        "candidates": [q.value for q in fits],
        "rule": "lowest-numbered 5QI with PDB <= min one-way delay bound and "
        "PER <= min loss bound / 100",
        "source": FIVE_QI_SOURCE,
    }


def select_y1541(delay_ms: float | None, loss_pct: float | None) -> dict[str, Any]:
    """Lowest-numbered Y.1541 class with IPTD ≤ ``delay_ms`` and IPLR ≤ ``loss_pct``/100."""
    fits: list[Y1541Class] = []
    if delay_ms is not None and loss_pct is not None:
        fits = [
            c
            for c in Y1541_CLASSES
            if c.iptd_ms is not None
            and c.iplr is not None
            and c.iptd_ms <= delay_ms
            and c.iplr <= loss_pct / 100.0
        ]
    chosen = fits[0] if fits else None
    return {
        "value": chosen.value if chosen else None,
        "iptd_ms": chosen.iptd_ms if chosen else None,
        "ipdv_ms": chosen.ipdv_ms if chosen else None,
        "iplr": chosen.iplr if chosen else None,
        "applications": chosen.applications if chosen else None,
        "candidates": [c.value for c in fits],
        "rule": "lowest-numbered class with IPTD <= min one-way delay bound and "
        "IPLR <= min loss bound / 100 (IPTD bounds the mean delay, the study bound the "
        "delay of the flow: the class is a sufficient, not a necessary, condition)",
        "source": Y1541_SOURCE,
    }
