"""The crash-recovery record (``state_dir/state.json``): what the agent owns and what the
interfaces had before, written *before* the kernel is touched so that a restarted agent
can restore the interfaces after a crash."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger("netem_agent")

STATE_VERSION = 1


class StateStore:
    """Crash-recovery record: written *before* the kernel is touched."""

    def __init__(self, state_dir: Path) -> None:
        self.dir = Path(state_dir)
        self.path = self.dir / "state.json"

    def read(self) -> dict[str, Any] | None:
        try:
            data: dict[str, Any] = json.loads(self.path.read_text("utf-8"))
            return data
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            log.warning("ignoring unreadable state file %s: %s", self.path, e)
            return None

    def write(self, record: dict[str, Any], durable: bool = True) -> None:
        """Atomic replace. ``durable`` also fsyncs (needed when ownership changes)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(record, separators=(",", ":")))
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, self.path)
        if not durable:
            return
        try:
            fd = os.open(self.dir, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError:
            pass

    def clear(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def iso(ts: float | None) -> str | None:
    """A wall-clock time as ISO 8601 UTC with milliseconds (``…T10:00:00.000Z``)."""
    if ts is None:
        return None
    return (
        dt.datetime.fromtimestamp(ts, dt.UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )
