"""`make screenshots`: pictures of the real screens for README.md and docs/.

Starts the app as the browser tests do and saves PNGs under docs/images/.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from live_server import CHROMIUM, CHROMIUM_ARGS, REPO, serve_app

IMAGES = REPO / "docs" / "images"


def main() -> int:
    if not CHROMIUM.is_file():
        print(f"error: {CHROMIUM} not found (Debian package 'chromium')", file=sys.stderr)
        return 2
    IMAGES.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as data_dir,
        serve_app(Path(data_dir)) as app,
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
        page.goto(app.url + "/")
        page.get_by_role("table", name="Network scenarios").wait_for()
        target = IMAGES / "study-overview.png"
        page.screenshot(path=str(target), full_page=True)
        print(f"wrote {target.relative_to(REPO)}")
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
