"""The lease runs on the monotonic clock and is reported in wall-clock time."""

from __future__ import annotations

from netem_agent.lease import Lease


def test_a_lease_expires_at_its_deadline_and_holds_without_one() -> None:
    now = {"mono": 100.0, "wall": 1_700_000_000.0}
    lease = Lease(lambda: now["mono"], lambda: now["wall"])
    assert lease.remaining() is None and not lease.expired()
    lease.start(2.0)
    assert lease.expires_wall == 1_700_000_002.0
    now["mono"] = 101.5
    assert lease.remaining() == 0.5 and not lease.expired()
    now["mono"] = 102.0
    assert lease.expired() and lease.remaining() == 0.0
    now["mono"] = 105.0
    assert lease.remaining() == 0.0  # never negative
    lease.start(None)  # hold until cleared
    assert not lease.expired() and lease.remaining() is None and lease.expires_wall is None
