"""The lease of an applied profile: the backend renews it (the heartbeat); when it runs
out the agent restores the interfaces, so a crashed or unreachable backend never leaves
an impairment behind. Kept on the monotonic clock, reported in wall-clock time."""

from __future__ import annotations

from collections.abc import Callable


class Lease:
    """A deadline on ``clock`` (monotonic) and the same instant on ``wall``."""

    def __init__(self, clock: Callable[[], float], wall: Callable[[], float]) -> None:
        self.clock = clock
        self.wall = wall
        self.deadline: float | None = None  # None = hold until cleared
        self.expires_wall: float | None = None

    def start(
        self, seconds: float | None, now: float | None = None, now_wall: float | None = None
    ) -> None:
        """Run for ``seconds`` from now; ``None`` holds until :meth:`end`. ``now`` and
        ``now_wall`` are the two clocks' current readings when the caller has them."""
        if seconds is None:
            self.end()
        else:
            self.deadline = (self.clock() if now is None else now) + seconds
            self.expires_wall = (self.wall() if now_wall is None else now_wall) + seconds

    def end(self) -> None:
        self.deadline = None
        self.expires_wall = None

    def expired(self) -> bool:
        return self.deadline is not None and self.clock() >= self.deadline

    def remaining(self, now: float | None = None) -> float | None:
        """Seconds left (never negative), or None without a deadline; ``now``: the clock's
        current reading when the caller has it."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - (self.clock() if now is None else now))
