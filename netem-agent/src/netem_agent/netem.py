"""Translation between a :class:`DirectionProfile` and netem's kernel representation.

``NetemParams`` holds exactly the integers the kernel stores (and dumps back), so
verification compares integers, not rounded floats. ``encode_options`` builds the
``TCA_OPTIONS`` payload of an ``RTM_NEWQDISC`` message; ``decode_options`` parses the
payload the kernel dumps.

Every optional attribute is always sent (with zeros when unused): netem's change
handler keeps the previous value of an attribute that is absent, which is how
``tc qdisc change`` leaves stale correlation/reorder/rate settings behind.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any

from netem_profile import DirectionProfile, GilbertElliott

U32_MAX = 0xFFFFFFFF

# enum TCA_NETEM_* (include/uapi/linux/pkt_sched.h)
TCA_NETEM_CORR = 1
TCA_NETEM_DELAY_DIST = 2
TCA_NETEM_REORDER = 3
TCA_NETEM_CORRUPT = 4
TCA_NETEM_LOSS = 5
TCA_NETEM_RATE = 6
TCA_NETEM_ECN = 7
TCA_NETEM_RATE64 = 8
TCA_NETEM_PAD = 9
TCA_NETEM_LATENCY64 = 10
TCA_NETEM_JITTER64 = 11
TCA_NETEM_SLOT = 12
NETEM_LOSS_GI = 1
NETEM_LOSS_GE = 2

NETEM_DIST_SCALE = 8192
_QOPT = struct.Struct("=IIIIII")  # latency(ticks) limit loss gap duplicate jitter(ticks)


def pct_to_u32(pct: float) -> int:
    """Percentage → netem's probability scale (0 = never, 2**32-1 = always), like tc."""
    return min(U32_MAX, max(0, round(pct / 100.0 * U32_MAX)))


def u32_to_pct(value: int) -> float:
    return round(value / U32_MAX * 100.0, 6)


def ms_to_ns(ms: float) -> int:
    return round(ms * 1_000_000)


@dataclass(frozen=True)
class NetemParams:
    """The netem configuration in kernel units (what netem_dump() reports)."""

    latency_ns: int = 0
    jitter_ns: int = 0
    limit: int = 10000
    loss: int = 0
    gap: int = 0
    duplicate: int = 0
    delay_corr: int = 0
    loss_corr: int = 0
    dup_corr: int = 0
    reorder: int = 0
    reorder_corr: int = 0
    corrupt: int = 0
    corrupt_corr: int = 0
    rate_bytes_per_s: int = 0
    ecn: int = 0
    # Gilbert–Elliott (p, r, h, k1) exactly as struct tc_netem_gemodel; None = random loss
    gemodel: tuple[int, int, int, int] | None = None
    # anything else we found in a dump but never install ourselves (slot, 4-state loss)
    foreign: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = {name: getattr(self, name) for name in _NETEM_FIELDS}
        d["gemodel"] = list(self.gemodel) if self.gemodel is not None else None
        d["foreign"] = list(self.foreign)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> NetemParams:
        d = dict(d)
        if d.get("gemodel") is not None:
            d["gemodel"] = tuple(d["gemodel"])
        d["foreign"] = tuple(d.get("foreign", ()))
        return cls(**d)


_NETEM_FIELDS = tuple(f.name for f in fields(NetemParams))


def params_from_profile(d: DirectionProfile) -> NetemParams:
    """The kernel values that implement a direction profile."""
    ge = None
    if d.gilbert_elliott is not None:
        g = d.gilbert_elliott
        # net/sched/sch_netem.c loss_gilb_ell(): bad state loses when rand > h,
        # good state loses when rand < k1.
        ge = (
            pct_to_u32(g.p_pct),
            pct_to_u32(g.r_pct),
            pct_to_u32(100.0 - g.loss_bad_pct),
            pct_to_u32(g.loss_good_pct),
        )
    reorder = pct_to_u32(d.reorder_pct)
    return NetemParams(
        latency_ns=ms_to_ns(d.delay_ms),
        jitter_ns=ms_to_ns(d.jitter_ms),
        limit=d.queue_limit_packets,
        loss=pct_to_u32(d.loss_pct) if ge is None else 0,
        gap=1 if reorder else 0,  # as tc does: reordering applies to every packet
        duplicate=pct_to_u32(d.duplicate_pct),
        delay_corr=pct_to_u32(d.delay_correlation_pct),
        loss_corr=pct_to_u32(d.loss_correlation_pct),
        dup_corr=0,
        reorder=reorder,
        reorder_corr=pct_to_u32(d.reorder_correlation_pct),
        corrupt=pct_to_u32(d.corrupt_pct),
        corrupt_corr=0,
        rate_bytes_per_s=d.rate_kbit * 125,
        gemodel=ge,
    )


def profile_from_params(p: NetemParams, jitter_distribution: str = "normal") -> DirectionProfile:
    """The direction profile a kernel configuration implements (for read-back)."""
    ge = None
    if p.gemodel is not None:
        gp, gr, gh, gk = p.gemodel
        ge = GilbertElliott(
            p_pct=u32_to_pct(gp),
            r_pct=u32_to_pct(gr),
            loss_bad_pct=round(100.0 - u32_to_pct(gh), 6),
            loss_good_pct=u32_to_pct(gk),
        )
    return DirectionProfile(
        delay_ms=p.latency_ns / 1_000_000,
        jitter_ms=p.jitter_ns / 1_000_000,
        jitter_distribution=jitter_distribution,
        delay_correlation_pct=u32_to_pct(p.delay_corr),
        loss_pct=u32_to_pct(p.loss),
        loss_correlation_pct=u32_to_pct(p.loss_corr),
        gilbert_elliott=ge,
        rate_kbit=p.rate_bytes_per_s // 125,
        duplicate_pct=u32_to_pct(p.duplicate),
        reorder_pct=u32_to_pct(p.reorder),
        reorder_correlation_pct=u32_to_pct(p.reorder_corr),
        corrupt_pct=u32_to_pct(p.corrupt),
        queue_limit_packets=p.limit,
    )


# ---------------------------------------------------------------------------------------
# netlink attribute encoding (netem's TCA_OPTIONS = struct tc_netem_qopt + attributes)


def _attr(kind: int, payload: bytes) -> bytes:
    length = 4 + len(payload)
    return struct.pack("=HH", length, kind) + payload + b"\0" * ((4 - length % 4) % 4)


def encode_options(p: NetemParams, distribution: str | None) -> bytes:
    """TCA_OPTIONS payload for kind "netem". ``distribution`` adds the delay table."""

    def ticks(ns: int) -> int:  # PSCHED_NS2TICKS, saturated like netem_dump()
        return min(U32_MAX, ns // 64)

    out = _QOPT.pack(ticks(p.latency_ns), p.limit, p.loss, p.gap, p.duplicate, ticks(p.jitter_ns))
    out += _attr(TCA_NETEM_CORR, struct.pack("=III", p.delay_corr, p.loss_corr, p.dup_corr))
    out += _attr(TCA_NETEM_REORDER, struct.pack("=II", p.reorder, p.reorder_corr))
    out += _attr(TCA_NETEM_CORRUPT, struct.pack("=II", p.corrupt, p.corrupt_corr))
    rate32 = min(p.rate_bytes_per_s, U32_MAX)
    out += _attr(TCA_NETEM_RATE, struct.pack("=IiIi", rate32, 0, 0, 0))
    if p.rate_bytes_per_s >= U32_MAX:
        out += _attr(TCA_NETEM_RATE64, struct.pack("=Q", p.rate_bytes_per_s))
    out += _attr(TCA_NETEM_LATENCY64, struct.pack("=q", p.latency_ns))
    out += _attr(TCA_NETEM_JITTER64, struct.pack("=q", p.jitter_ns))
    out += _attr(TCA_NETEM_ECN, struct.pack("=I", p.ecn))
    if p.gemodel is not None:
        out += _attr(TCA_NETEM_LOSS, _attr(NETEM_LOSS_GE, struct.pack("=IIII", *p.gemodel)))
    if distribution is not None:
        table = dist_table(distribution)
        out += _attr(TCA_NETEM_DELAY_DIST, struct.pack(f"={len(table)}h", *table))
    return out


def iter_attrs(data: bytes) -> list[tuple[int, bytes]]:
    """Split a buffer of netlink attributes into (type, payload) pairs."""
    out = []
    pos = 0
    while pos + 4 <= len(data):
        length, kind = struct.unpack_from("=HH", data, pos)
        if length < 4:
            break
        out.append((kind & 0x3FFF, data[pos + 4 : pos + length]))
        pos += (length + 3) & ~3
    return out


def decode_options(data: bytes) -> NetemParams:
    """Parse the TCA_OPTIONS payload of a dumped netem qdisc."""
    latency_t, limit, loss, gap, duplicate, jitter_t = _QOPT.unpack_from(data, 0)
    v: dict[str, Any] = {
        "latency_ns": latency_t * 64,
        "jitter_ns": jitter_t * 64,
        "limit": limit,
        "loss": loss,
        "gap": gap,
        "duplicate": duplicate,
    }
    foreign: list[str] = []
    rate32 = 0
    rate64 = None
    for kind, payload in iter_attrs(data[_QOPT.size :]):
        if kind == TCA_NETEM_CORR:
            v["delay_corr"], v["loss_corr"], v["dup_corr"] = struct.unpack_from("=III", payload)
        elif kind == TCA_NETEM_REORDER:
            v["reorder"], v["reorder_corr"] = struct.unpack_from("=II", payload)
        elif kind == TCA_NETEM_CORRUPT:
            v["corrupt"], v["corrupt_corr"] = struct.unpack_from("=II", payload)
        elif kind == TCA_NETEM_RATE:
            rate32, overhead, cell, cell_overhead = struct.unpack_from("=IiII", payload)
            if overhead or cell or cell_overhead:
                foreign.append("rate_overhead")
        elif kind == TCA_NETEM_RATE64:
            (rate64,) = struct.unpack_from("=Q", payload)
        elif kind == TCA_NETEM_LATENCY64:
            (v["latency_ns"],) = struct.unpack_from("=q", payload)
        elif kind == TCA_NETEM_JITTER64:
            (v["jitter_ns"],) = struct.unpack_from("=q", payload)
        elif kind == TCA_NETEM_ECN:
            (v["ecn"],) = struct.unpack_from("=I", payload)
        elif kind == TCA_NETEM_LOSS:
            for lkind, lpayload in iter_attrs(payload):
                if lkind == NETEM_LOSS_GE:
                    v["gemodel"] = struct.unpack_from("=IIII", lpayload)
                else:
                    foreign.append(f"loss_model_{lkind}")
        elif kind == TCA_NETEM_SLOT:
            foreign.append("slot")
    v["rate_bytes_per_s"] = rate64 if rate64 is not None else rate32
    v["foreign"] = tuple(foreign)
    return NetemParams(**v)


# ---------------------------------------------------------------------------------------
# delay distribution tables: the same algorithms as iproute2's netem/{normal,pareto,
# paretonormal}.c (the unit tests compare against the .dist files iproute2 ships).

_TABLESIZE = 16384


@lru_cache(maxsize=1)
def _normal_inverse() -> tuple[float, ...]:
    table = [0.0] * (_TABLESIZE + 1)
    x = -10.0
    sqrt2 = math.sqrt(2.0)
    while x < 10.05:
        table[round(_TABLESIZE * (0.5 + 0.5 * math.erf(x / sqrt2)))] = x
        x += 0.00005
    return tuple(table)


def _pareto_value(i: int) -> int:
    dvalue = 1.0 / math.pow(i / 65536.0, 1.0 / 3.0)
    dvalue = (dvalue - 1.5) * (4.0 / 3.0) * NETEM_DIST_SCALE
    return round(min(dvalue, 32767.0))


def _clamp16(v: int) -> int:
    return max(-32768, min(32767, v))


@lru_cache(maxsize=4)
def dist_table(name: str) -> tuple[int, ...]:
    """The 4096-entry delay distribution table sent as TCA_NETEM_DELAY_DIST."""
    if name == "normal":
        inv = _normal_inverse()
        return tuple(_clamp16(round(inv[i] * NETEM_DIST_SCALE)) for i in range(0, _TABLESIZE, 4))
    if name == "pareto":
        return tuple(_pareto_value(i) for i in range(65536, 0, -16))
    if name == "paretonormal":
        inv = _normal_inverse()
        out = []
        for i in range(0, _TABLESIZE, 4):
            normal = round(inv[i] * NETEM_DIST_SCALE)
            pareto = _pareto_value(65536 - 4 * i)
            out.append(_clamp16(int((normal + 3 * pareto) / 4)))  # C division truncates
        return tuple(out)
    raise ValueError(f"unknown jitter distribution {name!r}")
