"""Steps of `make screenshots` beyond a session: the dataset import and its marginals figure.

Kept apart from take_screenshots.py so that the script stays short (modules ≤ 400 lines);
the import steps are the browser test's own (test_dataset_import.py), so the picture shows
what that test checks.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from typing import Any

from flows import ANALYSIS_TIMEOUT_MS
from live_server import REPO, LiveApp
from playwright.sync_api import expect
from steer_daemon import TIMEOUT_MS, Daemon, register
from test_dataset_import import DATASET, import_and_wait, read_columns

IMAGES = REPO / "docs" / "images"
#: The factor the marginals picture shows: a network factor with its tested levels.
MARGINALS_FACTOR = "Delay, downstream (ms)"


def save(target: Any, name: str, *, full_page: bool = False) -> None:
    """A PNG under docs/images/ of a page (``full_page`` for all of it) or of one element."""
    path = IMAGES / name
    if full_page:
        target.screenshot(path=str(path), full_page=True)
    else:
        target.screenshot(path=str(path))
    print(f"wrote {path.relative_to(REPO)}")


def dataset_import_shots(page: Any, app: LiveApp) -> None:
    """The P.809-like fixture through "Import a dataset": the column mapping, then the new
    study's "MOS by factor level" figure once its import job and analysis are done."""
    page.goto(app.url + "/console")
    page.get_by_role("heading", name="Studies", exact=True).wait_for()
    mapping = read_columns(page, DATASET / "descriptor.json")
    mapping.get_by_label("Role of QoE", exact=True).wait_for()
    page.wait_for_timeout(500)
    save(page, "dataset-import.png", full_page=True)

    imported = import_and_wait(page)
    imported.get_by_test_id("dataset-results-link").click()
    page.wait_for_url(re.compile(r"/console/studies/\d+/results$"))
    page.get_by_test_id("analysis-summary").wait_for(timeout=ANALYSIS_TIMEOUT_MS)
    # Both analyses (all / reliable raters) settled: no progress bar left, figures drawn.
    page.wait_for_function(
        "() => !document.querySelector('.analysis-progress')"
        " && document.querySelectorAll('figure[data-chart]').length > 0",
        timeout=ANALYSIS_TIMEOUT_MS,
    )
    figure = page.locator("figure[data-chart='marginals']")
    figure.get_by_label("Factor", exact=True).select_option(label=MARGINALS_FACTOR)
    page.wait_for_selector("figure[data-chart='marginals'][data-state='drawn']")
    figure.scroll_into_view_if_needed()
    page.wait_for_timeout(800)  # Chart.js animates the new series in
    save(figure, "results-marginals.png")


def steering_shots(page: Any) -> None:
    """The steering console (issue 33) on a real ``qoe-steer`` daemon (dry-run actuator,
    injected measurements) just after it moved the game flow off the degraded path a."""
    with tempfile.TemporaryDirectory() as tmp:
        daemon = Daemon(Path(tmp))
        try:
            register(page, daemon)
            flow = page.get_by_test_id("flow-game")
            expect(flow).to_contain_text("path a", timeout=TIMEOUT_MS)
            page.wait_for_timeout(4000)  # a few windows of history in the chart
            daemon.a_delay_ms = 120.0
            expect(flow).to_contain_text("path b", timeout=TIMEOUT_MS)
            page.wait_for_timeout(4500)  # the chart shows the path after the move too
            save(page, "steering-console.png", full_page=True)
        finally:
            daemon.stop()
