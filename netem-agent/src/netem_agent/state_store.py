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
        """Atomic replace (write a temporary file, rename it over the record): a reader or
        a restarted agent sees the old record or the new one, never a torn one.

        ``durable`` also fsyncs the file and the directory, so the record survives a power
        loss; the agent asks for it when what it owns changes (before the tree is built).
        A profile switch changes only the informational fields (profile, lease), so it
        skips the fsync: after a power loss the record may name the previous profile, but
        what recovery needs (owned objects, original qdiscs) is the durable version.

        Plain ``os`` calls: open, write, close, rename — four system calls (a buffered
        ``open()`` adds fstat, ioctl and two lseeks, the ``mkdir`` another two; each is a
        trap into the user-mode kernel on the benchmark). The directory is created only
        when it is missing.
        """
        tmp = self.path.with_suffix(".tmp")
        data = json.dumps(record, separators=(",", ":")).encode()
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
        try:
            fd = os.open(tmp, flags, 0o666)
        except FileNotFoundError:
            self.dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(tmp, flags, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
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
