"""`make screenshots`: pictures of the real screens for README.md and docs/.

Starts the app as the browser tests do (with the dry-run agent and its station), runs a
session in two browser contexts, imports the synthetic data set and the P.809-like dataset
(fixtures/data/p809_dataset/), and saves PNGs under docs/images/:

* study-overview.png      the public overview of the example study
* console-session.png     the researcher's console during a scenario
* participant-rating.png  the participant's rating form (tablet size)
* participant-play.png    the participant's "play now" screen, in German
* results-explorer.png    the results explorer, top (figs. 4.5–4.7)
* results-explorer-full.png  every figure of the explorer
* study-exports.png       the study's Exports tab (every download with what it is for)
* dataset-import.png      "Import a dataset" with the P.809-like files' column mapping
* results-marginals.png   that dataset's "MOS by factor level" figure (downstream delay)
* steering-console.png    the Steering page on a live qoe-steer daemon
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from flows import (
    create_and_start_session,
    import_fixture_ratings,
    open_example_study,
    open_results,
    participant_until_free_play,
    set_timings,
    sign_in,
)
from live_server import CHROMIUM, CHROMIUM_ARGS, serve_app
from playwright.sync_api import sync_playwright
from screenshot_flows import IMAGES, dataset_import_shots, save, steering_shots


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
        page.set_default_timeout(60_000)
        page.goto(app.url + "/")
        page.get_by_role("table", name="Network scenarios").wait_for()
        save(page, "study-overview.png", full_page=True)

        # A session: the console while a scenario runs, the participant's screens.
        sign_in(page, app)
        open_example_study(page, app)
        set_timings(page, seconds_per_scenario=90, free_play_minutes=0)
        link = create_and_start_session(page, "Pro Evolution Soccer (slow)")
        tablet = browser.new_context(
            viewport={"width": 1024, "height": 768}, locale="de-DE", device_scale_factor=1
        )
        screen = tablet.new_page()
        screen.set_default_timeout(60_000)
        screen.goto(link.replace("#t=", "#lang=en&t="))
        participant_until_free_play(screen)
        screen.get_by_role("button", name="Start the rounds").click()
        screen.get_by_role("heading", level=1, name="Play now").wait_for()
        page.get_by_test_id("console-countdown").wait_for()
        # Into the second scenario, so that the console shows an impairment being played.
        page.get_by_role("button", name="End this scenario now").click()
        screen.get_by_role("heading", level=1, name="Your rating").wait_for()
        screen.keyboard.press("5")
        screen.keyboard.press("Enter")
        screen.get_by_role("heading", level=1, name="Play now").wait_for()
        page.get_by_text("scenario 2 of 10").wait_for()
        page.get_by_text("Not verified: the dry-run agent recorded this state").wait_for()
        page.wait_for_timeout(1500)
        save(page, "console-session.png", full_page=True)

        screen.get_by_role("button", name="Auf Deutsch anzeigen").click()
        screen.get_by_role("heading", level=1, name="Jetzt spielen").wait_for()
        screen.wait_for_timeout(1200)
        save(screen, "participant-play.png")
        screen.get_by_role("button", name="Show in English").click()

        page.get_by_role("button", name="End this scenario now").click()
        screen.get_by_role("heading", level=1, name="Your rating").wait_for()
        screen.keyboard.press("4")
        screen.locator("h1").first.click()  # the focus ring belongs to the keyboard user
        save(screen, "participant-rating.png")
        tablet.close()

        # The results explorer on the synthetic data set.
        page.goto(app.url + "/console")
        page.get_by_role("link", name="Cloud gaming QoE").first.click()
        import_fixture_ratings(page, app)
        open_results(page)
        page.wait_for_timeout(500)
        save(page, "results-explorer.png")
        save(page, "results-explorer-full.png", full_page=True)
        # Every download of the study on its Exports tab.
        page.get_by_role("navigation", name="Study").get_by_role("link", name="Exports").click()
        page.get_by_test_id("exports-panel").wait_for()
        save(page, "study-exports.png", full_page=True)

        # A P.809-like dataset through the web import, and its MOS by factor level.
        dataset_import_shots(page, app)
        # The steering console on a live qoe-steer daemon.
        steering_shots(page)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
