"""The window's statistics against hand-computed values (percentiles, loss, jitter, staleness)."""

from __future__ import annotations

import pytest
from qoe_steer.probes import ProbeRecord
from qoe_steer.window import ipdv_jitter, percentile, summarize

MS = 1_000_000
S = 1_000_000_000
UP = [10, 12, 11, 99, 10, 30, 10, 11, 12, 10]  # ms; probe 3 never reaches the reflector


def _records() -> list[ProbeRecord]:
    """Ten probes 50 ms apart from t = 0: #3 lost upstream, #7 lost downstream, down = 5 ms."""
    out = []
    for i, up in enumerate(UP):
        send = i * 50 * MS
        r = ProbeRecord(seq=i, t_send_ns=send)
        if i == 3:
            r.reflected = False
        elif i == 7:
            r.reflected = True  # known from a later reply's bitmap
        else:
            r.t_reflect_rx_ns = send + up * MS
            r.t_reflect_tx_ns = r.t_reflect_rx_ns + 1 * MS
            r.t_rx_ns = r.t_reflect_tx_ns + 5 * MS
            r.reflected = True
        out.append(r)
    return out


def test_percentile_interpolates_linearly() -> None:
    assert percentile([], 50) is None
    assert percentile([7.0], 95) == 7.0
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 95) == pytest.approx(4.8)


def test_ipdv_jitter_is_p95_of_consecutive_differences() -> None:
    assert ipdv_jitter([5.0]) is None
    # differences 2, 1, 1, 20, 20, 2, 2 → sorted 1 1 2 2 2 20 20, rank 5.7 → 20
    assert ipdv_jitter([10, 12, 11, 10, 30, 10, 12, 10]) == pytest.approx(20.0)
    assert ipdv_jitter([10, 11, 10, 11]) == pytest.approx(1.0)


def test_loss_per_direction_and_delay_percentiles() -> None:
    m = summarize(
        "a", _records(), now_ns=1 * S, at=5.0, window_s=1.0, stale_after_s=1.0, min_samples=5
    )
    up, down = m.upstream, m.downstream
    assert (up.sent, up.received) == (10, 9)  # #3 not reflected
    assert up.loss_pct == pytest.approx(10.0)
    assert (down.sent, down.received) == (9, 8)  # #7 reflected, reply lost
    assert down.loss_pct == pytest.approx(100 / 9)
    # returned upstream delays: 10 12 11 10 30 10 12 10 → sorted 10 10 10 10 11 12 12 30
    assert up.delay_ms_p50 == pytest.approx(10.5)  # rank 3.5
    assert up.delay_ms_p95 == pytest.approx(12 + 0.65 * 18)  # rank 6.65
    assert up.delay_ms_p99 == pytest.approx(12 + 0.93 * 18)  # rank 6.93
    assert up.jitter_ms == pytest.approx(20.0)
    assert down.delay_ms_p50 == pytest.approx(5.0) and down.jitter_ms == pytest.approx(0.0)
    assert m.fresh and m.stale_reason is None and m.at == 5.0
    policy_path = m.as_policy_path()
    assert policy_path["upstream"]["delay_ms"] == pytest.approx(23.7)
    assert policy_path["downstream"]["loss_pct"] == pytest.approx(100 / 9)


def test_probes_in_flight_count_neither_as_sent_nor_lost() -> None:
    records = _records()
    now = 1 * S
    records.append(ProbeRecord(seq=10, t_send_ns=now - 100 * MS))  # 0.1 s < grace 0.2 s
    m = summarize("a", records, now_ns=now, at=0.0, window_s=1.0, stale_after_s=1.0, min_samples=5)
    assert (m.upstream.sent, m.upstream.received) == (10, 9)
    records.append(ProbeRecord(seq=11, t_send_ns=now - 300 * MS))  # beyond the grace: lost
    m = summarize("a", records, now_ns=now, at=0.0, window_s=1.0, stale_after_s=1.0, min_samples=5)
    assert (m.upstream.sent, m.upstream.received) == (11, 9)  # unknown fate: lost upstream
    assert m.downstream.sent == 9


def test_window_excludes_older_probes() -> None:
    m = summarize(
        "a", _records(), now_ns=1200 * MS, at=0.0, window_s=1.0, stale_after_s=2.0, min_samples=1
    )
    # the window starts at 0.2 s: probes 4..9 (sent at 0.20..0.45 s) remain
    assert m.upstream.sent == 6 and m.upstream.received == 6 and m.downstream.received == 5


def test_stale_when_no_recent_reply_or_too_few_samples() -> None:
    newest_rx = 450 * MS + 10 * MS + 1 * MS + 5 * MS
    m = summarize(
        "a",
        _records(),
        now_ns=newest_rx + 2 * S,
        at=0.0,
        window_s=5.0,
        stale_after_s=1.5,
        min_samples=1,
    )
    assert (
        not m.fresh
        and m.stale_reason is not None
        and m.stale_reason.startswith("no reply for 2.00 s")
    )
    m = summarize(
        "a", _records(), now_ns=1 * S, at=0.0, window_s=1.0, stale_after_s=1.0, min_samples=9
    )
    assert not m.fresh and m.stale_reason == "only 8 replies in the window (min_samples 9)"
    m = summarize("a", [], now_ns=1 * S, at=0.0, window_s=1.0, stale_after_s=1.0, min_samples=1)
    assert not m.fresh and m.stale_reason == "no reply received yet"
    assert m.upstream.sent == 0 and m.upstream.loss_pct == 0.0 and m.upstream.delay_ms_p95 is None


def test_stale_reason_uses_the_last_reply_after_records_were_dropped() -> None:
    m = summarize(
        "a",
        [],
        now_ns=10 * S,
        at=0.0,
        window_s=1.0,
        stale_after_s=1.5,
        min_samples=1,
        last_reply_ns=7 * S,
    )
    assert not m.fresh and m.stale_reason == "no reply for 3.00 s (stale_after_s 1.5)"
