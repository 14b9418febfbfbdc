"""Fixtures for the browser tests: a served QoE Lab and a headless Chromium page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from live_server import CHROMIUM, CHROMIUM_ARGS, REPO, LiveApp, serve_app
from qoelab_testkit.prerequisites import require


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
