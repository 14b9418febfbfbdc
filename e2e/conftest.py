"""Fixtures for the browser tests: a served QoE Lab and a headless Chromium page."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_server import CHROMIUM, CHROMIUM_ARGS, REPO, LiveApp, serve_app


def require(condition: bool, reason: str) -> None:
    """Skip — or, with QOELAB_STRICT=1 as in CI, fail — when a prerequisite is missing."""
    if condition:
        return
    if os.environ.get("QOELAB_STRICT") == "1":
        pytest.fail(f"required in strict mode (QOELAB_STRICT=1): {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def live_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveApp]:
    require(
        (REPO / "frontend" / "dist" / "index.html").is_file(),
        "the frontend is not built (run `make frontend`)",
    )
    with serve_app(tmp_path_factory.mktemp("qoelab-data")) as app:
        yield app


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
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
def page(browser: Any, tmp_path: Path) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        yield page
    finally:
        page.screenshot(path=str(tmp_path / "last.png"))  # for triage of a failed test
        context.close()
