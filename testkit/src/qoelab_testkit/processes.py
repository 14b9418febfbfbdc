"""Long-running subprocesses of a test (servers, workers, agents), each in its own process
group with its log in a file, so that a test can stop — or crash — all of it by PID."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path


class Process:
    """One long-running process, in its own process group, logging to ``log_dir/name.log``."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        env: dict[str, str],
        log_dir: Path,
        cwd: Path | None = None,
    ) -> None:
        self.name = name
        self.argv = argv
        self.env = env
        self.cwd = cwd
        self.log = log_dir / f"{name}.log"
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> Process:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with self.log.open("ab") as log:
            self.popen = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: pgid == pid
            )
        return self

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def check_alive(self) -> None:
        if not self.alive():
            code = None if self.popen is None else self.popen.returncode
            raise AssertionError(f"{self.name} exited (code {code}):\n{self.tail()}")

    def finish(self, timeout: float = 120) -> None:
        """Wait for a one-shot command; it must succeed."""
        assert self.popen is not None
        code = self.popen.wait(timeout=timeout)
        assert code == 0, f"{self.name} failed (code {code}):\n{self.tail()}"

    def kill_group(self) -> None:
        """SIGKILL the process and every process it started (a crash, power loss)."""
        if self.popen is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(timeout=10)

    def terminate(self, timeout: float = 15.0) -> int:
        """SIGTERM to the main process (warm shutdown); SIGKILL the group after ``timeout``."""
        if self.popen is None:
            return 0
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill_group()
        with contextlib.suppress(ProcessLookupError):  # children left behind, if any
            os.killpg(self.popen.pid, signal.SIGKILL)
        return self.popen.returncode

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def tail(self, lines: int = 80) -> str:
        return "\n".join(self.text().splitlines()[-lines:])
