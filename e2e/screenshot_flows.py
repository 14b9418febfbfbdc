"""Steps of `make screenshots` beyond a session: the dataset import and its marginals figure.

Kept apart from take_screenshots.py so that the script stays short (modules ≤ 400 lines);
the import steps are the browser test's own (test_dataset_import.py), so the picture shows
what that test checks.
"""

from __future__ import annotations

import re
from typing import Any

from flows import ANALYSIS_TIMEOUT_MS
from live_server import REPO, LiveApp
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
