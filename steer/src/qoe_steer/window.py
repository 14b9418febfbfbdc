"""A path's sliding window of probe records → :class:`~qoe_steer.model.PathMeasurement`.

Over the probes sent in the last ``window_s`` (CLOCK_REALTIME, as the probes):

* in flight: a probe without a reply younger than the grace max(2 × p95 RTT, 0.2 s) is
  counted neither as sent nor as lost;
* upstream: sent = probes, received = reflected (a reply, or the reflector's bitmap in a
  later reply), loss = (sent − reflected) / sent; a probe whose fate no reply tells counts
  as lost upstream;
* downstream: sent = reflected, received = returned, loss = (reflected − returned) / reflected;
* delay percentiles of the returned probes, per direction (t_reflect_rx − t_send and
  t_rx − t_reflect_tx), by linear interpolation between order statistics (numpy's default:
  rank p/100 × (n − 1));
* jitter = p95 of |IPDV| of consecutive returned probes (RFC 3393, selection function:
  consecutive received packets in sequence order);
* stalls: a gap between consecutive sends of the prober longer than
  max(10 × interval, 50 ms) (interval = the median gap between the window's sends, the
  prober's schedule) means the sender's host was not scheduled — the whole host stalled
  (user-mode Linux under host load): probes in flight then read the stall as delay. Every
  probe whose span [send, reply] (unreturned: [send, send + grace]) overlaps a stall
  interval (the gap) is excluded from the delay, jitter and loss statistics (its fate is
  unknowable);
* fresh = False when no reply came within ``stale_after_s`` or fewer than ``min_samples``
  clean probes returned in the window (the reason says which, and how many probes a stall
  excluded).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from qoe_steer.model import DirectionStats, PathMeasurement
from qoe_steer.probes import ProbeRecord

MIN_GRACE_S = 0.2
STALL_INTERVALS = 10
MIN_STALL_S = 0.05


def percentile(values: Sequence[float], p: float) -> float | None:
    """Linear interpolation at rank p/100 × (n − 1) of the sorted values; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = p / 100.0 * (len(ordered) - 1)
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def ipdv_jitter(delays_in_seq_order: Sequence[float]) -> float | None:
    """p95 of |d[i+1] − d[i]| (RFC 3393 IPDV of consecutive packets); None below 2 delays."""
    if len(delays_in_seq_order) < 2:
        return None
    diffs = [abs(b - a) for a, b in itertools.pairwise(delays_in_seq_order)]
    return percentile(diffs, 95)


def _stats(sent: int, received: int, delays: list[float]) -> DirectionStats:
    return DirectionStats(
        sent=sent,
        received=received,
        loss_pct=100.0 * (sent - received) / sent if sent else 0.0,
        delay_ms_p50=percentile(delays, 50),
        delay_ms_p95=percentile(delays, 95),
        delay_ms_p99=percentile(delays, 99),
        jitter_ms=ipdv_jitter(delays),
    )


def grace_ns(records: Sequence[ProbeRecord]) -> int:
    """max(2 × p95 RTT of the returned probes (reflector hold time excluded), 0.2 s)."""
    rtts = [
        (r.t_rx_ns - r.t_send_ns - (r.t_reflect_tx_ns - r.t_reflect_rx_ns)) / 1e9
        for r in records
        if r.t_rx_ns is not None and r.t_reflect_tx_ns is not None and r.t_reflect_rx_ns is not None
    ]
    p95 = percentile(rtts, 95) or 0.0
    return int(max(2 * p95, MIN_GRACE_S) * 1e9)


def stalls(records: Sequence[ProbeRecord]) -> list[tuple[int, int]]:
    """The gaps (start, end) between consecutive sends longer than max(10 × the median
    send gap, 50 ms): intervals in which the prober was not scheduled."""
    sends = sorted(r.t_send_ns for r in records)
    gaps = [b - a for a, b in itertools.pairwise(sends)]
    if not gaps:
        return []
    limit = max(STALL_INTERVALS * (percentile(gaps, 50) or 0.0), MIN_STALL_S * 1e9)
    return [(a, b) for a, b in itertools.pairwise(sends) if b - a > limit]


def _clean(
    records: Sequence[ProbeRecord], gaps: Sequence[tuple[int, int]], grace: int
) -> list[ProbeRecord]:
    """The records whose span [send, reply or send + grace] overlaps no stall."""

    def end(r: ProbeRecord) -> int:
        return r.t_rx_ns if r.t_rx_ns is not None else r.t_send_ns + grace

    return [r for r in records if not any(r.t_send_ns < b and end(r) > a for a, b in gaps)]


def summarize(
    path: str,
    records: Sequence[ProbeRecord],
    *,
    now_ns: int,
    at: float,
    window_s: float,
    stale_after_s: float,
    min_samples: int,
    last_reply_ns: int | None = None,
) -> PathMeasurement:
    """The window ending at ``now_ns`` (``at``: the same instant on the monotonic clock).

    ``last_reply_ns``: when the newest reply came, if older records were dropped.
    """
    start = now_ns - int(window_s * 1e9)
    recent = [r for r in records if r.t_send_ns >= start]
    grace = grace_ns(recent)
    gaps = stalls(recent)  # a gap that began before the window ends at its first send
    clean = _clean(recent, gaps, grace)
    excluded = len(recent) - len(clean)
    counted = [r for r in clean if r.t_rx_ns is not None or now_ns - r.t_send_ns > grace]
    counted.sort(key=lambda r: r.t_send_ns)
    returned = [r for r in counted if r.t_rx_ns is not None]
    reflected = sum(1 for r in counted if r.t_rx_ns is not None or r.reflected)
    up_delays = [
        (r.t_reflect_rx_ns - r.t_send_ns) / 1e6 for r in returned if r.t_reflect_rx_ns is not None
    ]
    down_delays = [
        (r.t_rx_ns - r.t_reflect_tx_ns) / 1e6
        for r in returned
        if r.t_rx_ns is not None and r.t_reflect_tx_ns is not None
    ]
    replies = [r.t_rx_ns for r in records if r.t_rx_ns is not None]  # stall or not
    newest = max(replies + ([last_reply_ns] if last_reply_ns is not None else []), default=None)
    reason = None
    if newest is None:
        reason = "no reply received yet"
    elif now_ns - newest > stale_after_s * 1e9:
        reason = f"no reply for {(now_ns - newest) / 1e9:.2f} s (stale_after_s {stale_after_s:g})"
    elif len(returned) < min_samples:
        reason = f"only {len(returned)} replies in the window (min_samples {min_samples})"
        if excluded:
            reason += f"; {excluded} probes excluded: sent across a stall of the prober"
    return PathMeasurement(
        path=path,
        at=at,
        window_s=window_s,
        upstream=_stats(len(counted), reflected, up_delays),
        downstream=_stats(reflected, len(returned), down_delays),
        fresh=reason is None,
        stale_reason=reason,
    )
