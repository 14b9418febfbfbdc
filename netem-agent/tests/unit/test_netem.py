"""Kernel encoding of profiles: netem options, distribution tables, rtnetlink messages."""

from __future__ import annotations

import os
import socket
import struct
from pathlib import Path

import pytest
from netem_agent import netem, rtnl
from netem_agent.netem import (
    NetemParams,
    decode_options,
    dist_table,
    encode_options,
    params_from_profile,
    profile_from_params,
)
from netem_profile import parse_profile

FULL = {
    "delay_ms": 80.5,
    "jitter_ms": 5,
    "jitter_distribution": "paretonormal",
    "delay_correlation_pct": 25,
    "loss_pct": 1.5,
    "loss_correlation_pct": 10,
    "rate_kbit": 20000,
    "duplicate_pct": 0.1,
    "reorder_pct": 2,
    "reorder_correlation_pct": 50,
    "corrupt_pct": 0.01,
    "queue_limit_packets": 5000,
}


def test_params_in_kernel_units() -> None:
    p = params_from_profile(parse_profile({"upstream": FULL}).upstream)
    assert p.latency_ns == 80_500_000
    assert p.jitter_ns == 5_000_000
    assert p.limit == 5000
    assert p.loss == round(0.015 * 0xFFFFFFFF)
    assert p.rate_bytes_per_s == 20000 * 1000 // 8
    assert p.gap == 1  # reordering as tc does it
    assert p.reorder == round(0.02 * 0xFFFFFFFF)
    assert p.gemodel is None


def test_neutral_profile_is_all_zero() -> None:
    p = params_from_profile(parse_profile({}).upstream)
    assert p == NetemParams(limit=10000)


def test_encode_decode_round_trip_and_profile_read_back() -> None:
    d = parse_profile({"upstream": FULL}).upstream
    p = params_from_profile(d)
    raw = encode_options(p, "paretonormal")
    # a dump carries no distribution table; decoding ignores it when present
    assert decode_options(raw) == p
    back = profile_from_params(decode_options(raw), "paretonormal")
    assert back == d


def test_gilbert_elliott_encoding_follows_sch_netem() -> None:
    d = parse_profile(
        {
            "upstream": {
                "gilbert_elliott": {
                    "p_pct": 1,
                    "r_pct": 10,
                    "loss_bad_pct": 90,
                    "loss_good_pct": 0.5,
                }
            }
        }
    ).upstream
    p = params_from_profile(d)
    # loss_gilb_ell(): bad state drops when rand > h, good state drops when rand < k1
    assert p.gemodel == (
        netem.pct_to_u32(1),
        netem.pct_to_u32(10),
        netem.pct_to_u32(10),
        netem.pct_to_u32(0.5),
    )
    assert p.loss == 0
    assert decode_options(encode_options(p, None)).gemodel == p.gemodel
    assert profile_from_params(p) == d


def test_every_optional_attribute_is_always_sent() -> None:
    """netem keeps absent attributes on change: zeros must be sent explicitly."""
    raw = encode_options(NetemParams(), None)
    kinds = [k for k, _ in netem.iter_attrs(raw[24:])]
    for required in (
        netem.TCA_NETEM_CORR,
        netem.TCA_NETEM_REORDER,
        netem.TCA_NETEM_CORRUPT,
        netem.TCA_NETEM_RATE,
        netem.TCA_NETEM_LATENCY64,
        netem.TCA_NETEM_JITTER64,
        netem.TCA_NETEM_ECN,
    ):
        assert required in kinds
    assert netem.TCA_NETEM_DELAY_DIST not in kinds


def test_large_rates_use_rate64() -> None:
    p = params_from_profile(parse_profile({"upstream": {"rate_kbit": 100_000_000}}).upstream)
    raw = encode_options(p, None)
    assert netem.TCA_NETEM_RATE64 in [k for k, _ in netem.iter_attrs(raw[24:])]
    assert decode_options(raw).rate_bytes_per_s == 12_500_000_000


def test_distribution_table_is_attached_with_jitter() -> None:
    p = params_from_profile(parse_profile({"upstream": {"delay_ms": 10, "jitter_ms": 2}}).upstream)
    raw = encode_options(p, "normal")
    attrs = dict(netem.iter_attrs(raw[24:]))
    table = struct.unpack(
        f"={len(attrs[netem.TCA_NETEM_DELAY_DIST]) // 2}h", attrs[netem.TCA_NETEM_DELAY_DIST]
    )
    assert table == dist_table("normal")


TC_DIST_DIRS = [
    Path("/usr/lib/x86_64-linux-gnu/tc"),
    Path("/usr/lib/tc"),
    Path("/lib/tc"),
    Path("/usr/lib64/tc"),
]


@pytest.mark.parametrize("name", ["normal", "pareto", "paretonormal"])
def test_distribution_tables_match_iproute2(name: str) -> None:
    found = [d / f"{name}.dist" for d in TC_DIST_DIRS if (d / f"{name}.dist").exists()]
    if not found:
        msg = f"iproute2's {name}.dist not found: install the Debian package 'iproute2'"
        if os.environ.get("QOELAB_STRICT") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    words = [
        int(w)
        for line in found[0].read_text().splitlines()
        if not line.startswith("#")
        for w in line.split()
    ]
    assert list(dist_table(name)) == words


def test_unknown_distribution() -> None:
    with pytest.raises(ValueError):
        dist_table("uniform")


def test_foreign_settings_are_reported() -> None:
    raw = encode_options(NetemParams(), None) + netem._attr(netem.TCA_NETEM_SLOT, b"\0" * 32)
    assert decode_options(raw).foreign == ("slot",)


# --- rtnetlink message building -------------------------------------------------------


def test_qdisc_request_layout() -> None:
    body = rtnl.qdisc_request(7, rtnl.TC_H_ROOT, 0x4E450000, "netem", b"\x01\x02\x03\x04")
    family, ifindex, handle, parent, info = struct.unpack_from("=BxxxiIII", body)
    assert (family, ifindex, handle, parent, info) == (0, 7, 0x4E450000, 0xFFFFFFFF, 0)
    attrs = dict(netem.iter_attrs(body[20:]))
    assert attrs[rtnl.TCA_KIND] == b"netem\0"
    assert attrs[rtnl.TCA_OPTIONS] == b"\x01\x02\x03\x04"


def test_u32_selector_round_trip() -> None:
    keys = [(0x0A000002, 0xFFFFFFFF, 16), (17 << 16, 0x00FF0000, 8), (9000, 0xFFFF, 20)]
    raw = rtnl.u32_options(0x4E450001, keys)
    out = rtnl.decode_u32_options(raw)
    assert out["classid"] == 0x4E450001
    assert out["keys"] == sorted(keys)
    assert out["terminal"]
    # on the wire: network byte order, as the kernel compares against packet bytes
    sel = dict(netem.iter_attrs(raw))[rtnl.TCA_U32_SEL]
    mask, val, off, _ = struct.unpack_from("=IIii", sel, 16)
    assert (socket.ntohl(mask), socket.ntohl(val), off) == (0xFFFFFFFF, 0x0A000002, 16)


def test_matchall_redirect_round_trip() -> None:
    out = rtnl.decode_matchall_options(rtnl.matchall_redirect_options(42))
    assert out["actions"] == [
        {
            "kind": "mirred",
            "action": rtnl.TC_ACT_STOLEN,
            "eaction": rtnl.TCA_EGRESS_REDIR,
            "ifindex": 42,
        }
    ]


def test_prio_options_round_trip() -> None:
    assert rtnl.decode_prio_options(rtnl.prio_options(2, [1] * 16)) == {
        "bands": 2,
        "priomap": [1] * 16,
    }


def test_handles_formatting() -> None:
    assert rtnl.fmt_handle(0x4E450000) == "4e45:"
    assert rtnl.fmt_handle(0x4E450001) == "4e45:1"
    assert rtnl.fmt_handle(rtnl.TC_H_ROOT) == "root"
