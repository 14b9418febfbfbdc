"""Probe packets, the reflector's receive bitmap, and real probes over loopback."""

from __future__ import annotations

import threading
import time

import pytest
from qoe_steer.probes import PACKET, Probe, Prober, Reflector, _Stream, now_ns, path_hash, unpack
from qoe_steer.window import summarize


def test_packet_round_trip_and_foreign_datagrams() -> None:
    probe = Probe(path_hash("a"), 7, 0b101, 1, 2, 3)
    assert PACKET.size == 44
    assert unpack(probe.pack()) == probe
    assert unpack(b"QSP1" + b"\0" * 10) is None
    assert unpack(b"XXXX" + probe.pack()[4:]) is None
    assert path_hash("a") != path_hash("b")


def test_reflector_bitmap_marks_the_64_previous_seqs() -> None:
    stream = _Stream()
    assert stream.receive(0) == 0
    assert stream.receive(1) == 0b1  # seq 0 seen
    assert stream.receive(3) == 0b110  # seq 2 missing, 1 and 0 seen
    assert stream.receive(2) == 0b11  # a late one: 1 and 0 seen
    assert stream.receive(1000) == 0  # a jump: nothing of the 64 before seen
    assert stream.receive(0) == 0  # a restart resets the stream


class LossyReflector(Reflector):
    """Drops seq 3 on the way in and the reply of seq 7 on the way out."""

    def handle(self, data: bytes, addr: tuple[str, int], rx_ns: int) -> None:
        probe = unpack(data)
        assert probe is not None
        if probe.seq == 3:
            return
        if probe.seq == 7:
            self.streams.setdefault((addr, probe.path_hash), _Stream()).receive(probe.seq)
            return
        super().handle(data, addr, rx_ns)


@pytest.mark.parametrize("reflector_class", [Reflector, LossyReflector])
def test_probes_over_loopback(reflector_class: type[Reflector]) -> None:
    reflector = reflector_class("127.0.0.1", 0)
    thread = threading.Thread(target=reflector.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    prober = Prober("a", "127.0.0.1", reflector.address[1], interval_s=0.005, keep_s=10.0)
    try:
        for _ in range(20):
            prober.send_due(now_ns())
            time.sleep(0.006)
            prober.receive_all()
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            prober.receive_all()
            if all(r.t_rx_ns or r.seq in (3, 7) for r in prober.records.values()):
                break
            time.sleep(0.01)
        m = summarize(
            "a",
            prober.snapshot(),
            now_ns=now_ns() + 10**9,
            at=0.0,
            window_s=10.0,
            stale_after_s=5.0,
            min_samples=10,
        )
    finally:
        prober.close()
        reflector.close()
        thread.join(timeout=1)
    assert m.fresh, m.stale_reason
    if reflector_class is Reflector:
        assert (m.upstream.sent, m.upstream.received, m.downstream.received) == (20, 20, 20)
    else:
        # 3 lost upstream (bit clear in later bitmaps), 7 lost downstream (bit set)
        assert (m.upstream.sent, m.upstream.received, m.downstream.received) == (20, 19, 18)
    # loopback, one clock: one-way delays are small and non-negative
    assert m.upstream.delay_ms_p50 is not None and 0 <= m.upstream.delay_ms_p50 < 50
    assert m.downstream.delay_ms_p95 is not None and 0 <= m.downstream.delay_ms_p95 < 50
