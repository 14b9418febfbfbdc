"""Start QoE Lab as `make demo` runs it (own SQLite file, example study) on a free port.

Shared by the browser tests and by `make screenshots`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MANAGE = REPO / "backend" / "manage.py"
EXAMPLE_STUDY = REPO / "fixtures" / "studies" / "cloud-gaming-2014.json"
CHROMIUM = Path(os.environ.get("QOELAB_CHROMIUM", "/usr/bin/chromium"))
# Without these Chromium keeps dialling Google services, which a closed lab network refuses.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass(frozen=True)
class LiveApp:
    url: str
    data_dir: Path
    env: dict[str, str]

    def manage(self, *args: str) -> str:
        """Run a management command against this app's database; return its stdout."""
        result = subprocess.run(
            [sys.executable, str(MANAGE), *args],
            env=self.env,
            check=True,
            timeout=120,
            capture_output=True,
            text=True,
        )
        return result.stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_healthy(url: str, process: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the server at {url} did not become healthy in {timeout_s} s")


@contextmanager
def serve_app(data_dir: Path) -> Iterator[LiveApp]:
    """Migrate a fresh SQLite database in ``data_dir``, load the example study, serve it."""
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}},
        "QOELAB_DATA_DIR": str(data_dir),
    }
    port = free_port()
    app = LiveApp(url=f"http://127.0.0.1:{port}", data_dir=data_dir, env=env)
    app.manage("migrate", "--noinput", "-v", "0")
    app.manage("load_study", str(EXAMPLE_STUDY))
    with (data_dir / "server.log").open("wb") as log:
        server = subprocess.Popen(
            [sys.executable, str(MANAGE), "runserver", f"127.0.0.1:{port}", "--noreload"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until_healthy(app.url, server, timeout_s=60)
            yield app
        finally:
            server.terminate()
            server.wait(timeout=20)
