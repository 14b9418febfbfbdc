"""Structured events: one JSON object per decision, move, retry, alarm (newest last).

:class:`EventLog` keeps the last 100 for the status document and, with a file, appends
each as one line with a single ``write`` on an ``O_APPEND`` descriptor, so concurrent
writers never interleave a line. Non-finite numbers (an infinite violation ratio) are
written as null: every line is strict JSON.
"""

from __future__ import annotations

import collections
import json
import math
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

EventKind = Literal[
    "move", "moved", "retry", "alarm", "alarm_cleared", "hold_best", "stale", "start"
]


def finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None (recursively)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


@dataclass(frozen=True)
class Event:
    at_unix: float
    kind: EventKind
    message: str
    flow: str | None = None
    policy_class: str | None = None
    from_path: str | None = None
    to_path: str | None = None
    measurement: dict[str, Any] = field(default_factory=dict)
    bounds: dict[str, Any] = field(default_factory=dict)
    action: str | None = None
    time_to_effect_s: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The event's JSON object (``policy_class`` is written as ``class``)."""
        out: dict[str, Any] = {
            "at_unix": self.at_unix,
            "kind": self.kind,
            "flow": self.flow,
            "class": self.policy_class,
            "from_path": self.from_path,
            "to_path": self.to_path,
            "measurement": self.measurement,
            "bounds": self.bounds,
            "action": self.action,
            "time_to_effect_s": self.time_to_effect_s,
            "message": self.message,
        }
        result: dict[str, Any] = finite(out)
        return result

    def to_json(self) -> str:
        """One line of strict JSON, without the newline."""
        return json.dumps(self.as_dict(), allow_nan=False, separators=(",", ":"))


class EventLog:
    """The last ``capacity`` events in memory, optionally appended to a file."""

    def __init__(self, path: Path | None = None, capacity: int = 100) -> None:
        self._ring: collections.deque[Event] = collections.deque(maxlen=capacity)
        self._lock = threading.Lock()
        self._fd: int | None = None
        if path is not None:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def append(self, event: Event) -> None:
        line = (event.to_json() + "\n").encode()
        with self._lock:
            self._ring.append(event)
            if self._fd is not None:
                os.write(self._fd, line)

    def recent(self) -> list[dict[str, Any]]:
        """The kept events as JSON objects, newest last."""
        with self._lock:
            return [e.as_dict() for e in self._ring]

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
