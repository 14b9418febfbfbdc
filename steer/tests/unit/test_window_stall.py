"""Stalls of the prober: probes sent across a send gap are left out of the window.

Would catch: stalled probes inflating the delay percentiles or jitter (the Level B early
moves), a straddling probe of unknown fate counted as lost, clean probes wrongly dropped,
a gap threshold other than max(10 × interval, 50 ms).
"""

from __future__ import annotations

import pytest
from qoe_steer.probes import ProbeRecord
from qoe_steer.window import stalls, summarize

MS = 1_000_000
S = 1_000_000_000
STALLED = {12: 310.0, 14: 290.0}  # up delays (ms) of the probes the stall held


def _send_ms(i: int) -> int:
    """Every 10 ms, except a 300 ms gap between probe 14 (140 ms) and 15 (440 ms)."""
    return i * 10 if i <= 14 else 440 + (i - 15) * 10


def _records() -> list[ProbeRecord]:
    """30 probes; clean up delay 20 + 0.1 i ms, down 5 ms; #13 (in the stall) never heard
    of again; #20 (clean) lost upstream."""
    out = []
    for i in range(30):
        send = _send_ms(i) * MS
        r = ProbeRecord(seq=i, t_send_ns=send)
        if i == 20:
            r.reflected = False
        elif i != 13:
            r.t_reflect_rx_ns = send + int(STALLED.get(i, 20 + 0.1 * i) * MS)
            r.t_reflect_tx_ns = r.t_reflect_rx_ns
            r.t_rx_ns = r.t_reflect_tx_ns + 5 * MS
            r.reflected = True
        out.append(r)
    return out


def test_stall_threshold_is_ten_intervals_or_50_ms() -> None:
    def gaps(spacing_ms: list[float]) -> list[tuple[int, int]]:
        t, recs = 0.0, [ProbeRecord(0, 0)]
        for k, d in enumerate(spacing_ms, start=1):
            t += d
            recs.append(ProbeRecord(k, int(t * MS)))
        return stalls(recs)

    assert gaps([10.0] * 20 + [99.0] + [10.0] * 5) == []
    assert gaps([10.0] * 20 + [101.0] + [10.0] * 5) == [(200 * MS, 301 * MS)]
    assert gaps([2.0] * 20 + [45.0] + [2.0] * 5) == []  # 22 intervals, under the 50 ms floor
    assert gaps([2.0] * 20 + [55.0] + [2.0] * 5) == [(40 * MS, 95 * MS)]
    assert stalls([ProbeRecord(0, 0)]) == []


def test_probes_straddling_a_stall_are_excluded() -> None:
    m = summarize(
        "a", _records(), now_ns=1 * S, at=0.0, window_s=1.0, stale_after_s=1.0, min_samples=20
    )
    up, down = m.upstream, m.downstream
    # #12, #13, #14 span the gap (140, 440) ms; #11 returned at 136.1 ms < 140: clean
    assert (up.sent, up.received) == (27, 26)  # only #20 lost; #13's fate is not counted
    assert up.loss_pct == pytest.approx(100 / 27)
    assert (down.sent, down.received, down.loss_pct) == (26, 26, 0.0)
    # clean up delays in seq order: 20.0..21.1 (i 0..11), 21.5..21.9, 22.1..22.9
    assert up.delay_ms_p50 == pytest.approx(21.55)  # rank 12.5
    assert up.delay_ms_p95 == pytest.approx(22.775)  # rank 23.75
    assert up.delay_ms_p99 == pytest.approx(22.875)  # rank 24.75
    # |IPDV|: 23 × 0.1, 0.2 (19→21), 0.4 (11→15); rank 22.8 → 0.1 + 0.8 × 0.1
    assert up.jitter_ms == pytest.approx(0.18)
    assert down.delay_ms_p95 == pytest.approx(5.0) and down.jitter_ms == pytest.approx(0.0)
    assert m.fresh and m.stale_reason is None


def test_without_the_exclusion_the_stall_would_show() -> None:
    """The same probes with the gap closed (#15.. sent 10 ms apart): nothing is excluded,
    so the held probes count — this is what the exclusion removes."""
    records = _records()
    for r in records[15:]:
        shift = 290 * MS
        r.t_send_ns -= shift
        for name in ("t_reflect_rx_ns", "t_reflect_tx_ns", "t_rx_ns"):
            value = getattr(r, name)
            if value is not None:
                setattr(r, name, value - shift)
    m = summarize(
        "a", records, now_ns=1 * S, at=0.0, window_s=1.0, stale_after_s=1.0, min_samples=20
    )
    assert (m.upstream.sent, m.upstream.received) == (30, 28)
    assert m.upstream.delay_ms_p99 is not None and m.upstream.delay_ms_p99 > 200


def test_too_few_clean_replies_is_stale_and_says_how_many_were_excluded() -> None:
    m = summarize(
        "a", _records(), now_ns=1 * S, at=0.0, window_s=1.0, stale_after_s=1.0, min_samples=27
    )
    assert not m.fresh
    assert m.stale_reason == (
        "only 26 replies in the window (min_samples 27); "
        "3 probes excluded: sent across a stall of the prober"
    )


def test_an_unreturned_probe_before_the_stall_still_counts_as_lost() -> None:
    """60 clean probes before t = 0 (every 10 ms from −600 ms), the one at −500 ms lost:
    its grace (0.2 s) ended before the stall began, so it counts; #13 still does not."""
    records = _records()
    for k in range(60):
        send = (-600 + 10 * k) * MS
        r = ProbeRecord(seq=1000 + k, t_send_ns=send, reflected=k != 10)
        if k != 10:
            r.t_reflect_rx_ns = r.t_reflect_tx_ns = send + 20 * MS
            r.t_rx_ns = send + 25 * MS
        records.append(r)
    m = summarize(
        "a", records, now_ns=1 * S, at=0.0, window_s=1.6, stale_after_s=1.0, min_samples=20
    )
    assert (m.upstream.sent, m.upstream.received) == (87, 85)
