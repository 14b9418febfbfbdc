"""Fixtures for the browser tests: a served QoE Lab and a headless Chromium page."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MANAGE = REPO / "backend" / "manage.py"
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


def require(condition: bool, reason: str) -> None:
    """Skip — or, with QOELAB_STRICT=1 as in CI, fail — when a prerequisite is missing."""
    if condition:
        return
    if os.environ.get("QOELAB_STRICT") == "1":
        pytest.fail(f"required in strict mode (QOELAB_STRICT=1): {reason}")
    pytest.skip(reason)


@dataclass(frozen=True)
class LiveApp:
    url: str
    data_dir: Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_until_healthy(url: str, process: subprocess.Popen[bytes], timeout_s: float) -> None:
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


@pytest.fixture(scope="session")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveApp]:
    """The app as `make demo` runs it (own SQLite file, example study), on a free port."""
    require(
        (REPO / "frontend" / "dist" / "index.html").is_file(),
        "the frontend is not built (run `make frontend`)",
    )
    data_dir = tmp_path_factory.mktemp("qoelab-data")
    env = {
        **{k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "CELERY_BROKER_URL"}},
        "QOELAB_DATA_DIR": str(data_dir),
    }

    def manage(*args: str) -> None:
        subprocess.run([sys.executable, str(MANAGE), *args], env=env, check=True, timeout=120)

    manage("migrate", "--noinput", "-v", "0")
    manage("load_study", str(REPO / "fixtures" / "studies" / "cloud-gaming-2014.json"))
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = (data_dir / "server.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, str(MANAGE), "runserver", f"127.0.0.1:{port}", "--noreload"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_until_healthy(url, server, timeout_s=60)
        yield LiveApp(url=url, data_dir=data_dir)
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    require(CHROMIUM.is_file(), f"{CHROMIUM} not found (Debian package 'chromium')")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture
def page(browser: object, tmp_path: Path) -> Iterator[object]:
    from playwright.sync_api import Browser

    assert isinstance(browser, Browser)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        yield page
    finally:
        page.screenshot(path=str(tmp_path / "last.png"))  # for triage of a failed test
        context.close()
