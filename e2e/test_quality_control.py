"""Issue 35, item 2, acceptance: "A trapping item failed by one participant flags them in the
results and the CSV".

The researcher creates a study (5 s per scenario, no free play, one game, the four delay
scenarios B, D1–D3 of the design generator, overall quality on ACR-5), adds in the rating
items editor one trapping item after test scenario 1 — its instruction, generated from the
scale, asks for 2 ("Poor") — and saves. Two participants then run a session each: after the
first scenario's rating the trapping screen appears (the rating form, no new play, the
instruction as its question); participant A selects "Poor" as instructed, participant B
selects 5. The results' screening list must show B as failed with the reason "trap 1: asked
for 2 (Poor), answered 5" and A as passed, and the tidy CSV must have ``qc_failed`` true on
every row of B and false on every row of A, the trap answers as rows of kind ``trap`` after
the scenario rows. Before the feature there was no trapping screen, no ``kind`` column and
no quality-control verdict at all.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest
from flows import (
    create_and_start_session,
    create_study,
    open_settled_results,
    participant_final_questions,
    participant_until_free_play,
    sign_in,
)
from live_server import LiveApp
from playwright.sync_api import expect
from rating_items_checks import SCENARIOS, api_json
from test_rating_items import build_delay_design

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
GAME = "Trap Racer"
INSTRUCTION = "Please select 'Poor' for this question."
REASON = "trap 1: asked for 2 (Poor), answered 5"


def add_trap(page: Any, app: LiveApp, study_id: int) -> None:
    """One trapping item after test scenario 1, asking for the default 'Poor' (2)."""
    editor = page.get_by_role("region", name="Rating items")
    editor.get_by_role("button", name="Add a trapping item").click()
    editor.get_by_label("Trap 1: after test scenario").fill("1")
    expect(editor.get_by_label("Trap 1: value to select")).to_have_value("2")
    expect(editor.get_by_label("Trap 1: instruction (English)")).to_have_value(INSTRUCTION)
    editor.get_by_role("button", name="Save rating items").click()
    expect(editor.get_by_role("status")).to_have_text("Saved.")
    qc = api_json(page, app, f"studies/{study_id}/")["quality_control"]
    assert qc["traps"] == [
        {
            "after": 1,
            "value": 2,
            "text": {"en": INSTRUCTION, "de": "Bitte wählen Sie bei dieser Frage 'Dürftig'."},
        }
    ], qc


def rate(screen: Any, key: str) -> None:
    """A point chosen with its number key, then Enter."""
    screen.keyboard.press(key)
    expect(screen.locator(f"input[type=radio][value='{key}']")).to_be_checked()
    screen.keyboard.press("Enter")


def run_session(page: Any, app: LiveApp, browser: Any, trap_answer: str, errors: list[str]) -> None:
    """A session whose participant rates every scenario 4 and answers the trap with
    ``trap_answer``: one rating more than scenarios, stored."""
    link = create_and_start_session(page, f"{GAME} (fast)")
    session_id = re.search(r"/console/sessions/(\d+)", page.url).group(1)  # type: ignore[union-attr]
    context = browser.new_context(viewport={"width": 1024, "height": 768}, locale="en-GB")
    context.set_default_timeout(TIMEOUT_MS)
    try:
        screen = context.new_page()
        screen.on("pageerror", lambda error: errors.append(f"participant: {error}"))
        screen.goto(link)
        participant_until_free_play(screen)
        screen.get_by_role("button", name="Start the rounds").click()
        for n in range(1, SCENARIOS + 1):
            screen.get_by_role("heading", level=1, name="Play now").wait_for()
            screen.get_by_role("heading", level=1, name="Your rating").wait_for()
            expect(screen.get_by_text(INSTRUCTION)).to_have_count(0)
            rate(screen, "4")
            if n == 1:  # the trap: the rating form again, without a play, asking for Poor
                trap = screen.get_by_role("group", name=re.compile(re.escape(INSTRUCTION)))
                trap.wait_for()
                expect(screen.locator(".p-round")).to_have_text(f"Round 1 of {SCENARIOS}")
                expect(screen.get_by_role("radio")).to_have_count(5)
                rate(screen, trap_answer)
        participant_final_questions(screen)
    finally:
        context.close()
    session = api_json(page, app, f"sessions/{session_id}/")
    assert [r["position"] for r in session["ratings"]] == list(range(1, SCENARIOS + 2))


def test_a_failed_trap_flags_the_participant_in_results_and_csv(
    live_app: LiveApp, browser: Any, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"console: {error}"))
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        sign_in(page, live_app)
        suffix = re.sub(r"\D", "", tmp_path.name)[-6:] or "0"
        title = f"Quality control study {suffix}"
        study_id = create_study(page, title, f"qc-{suffix}", game=GAME, pace="fast")
        build_delay_design(page)
        add_trap(page, live_app, study_id)
        run_session(page, live_app, browser, "2", errors)  # participant A: as instructed
        page.goto(f"{live_app.url}/console/studies/{study_id}")
        page.get_by_role("form", name="Study settings").wait_for()
        run_session(page, live_app, browser, "5", errors)  # participant B: not as instructed

        response = page.request.get(f"{live_app.url}/api/v1/studies/{study_id}/export/csv/")
        assert response.ok, response.status
        rows = list(csv.DictReader(io.StringIO(response.text())))
        traps = {r["rater_id"]: r for r in rows if r["kind"] == "trap"}
        assert sorted(r["rating"] for r in traps.values()) == ["2", "5"], traps
        a = next(rater for rater, r in traps.items() if r["rating"] == "2")
        b = next(rater for rater, r in traps.items() if r["rating"] == "5")
        assert [r["kind"] for r in rows] == ["scenario"] * (2 * SCENARIOS) + ["trap", "trap"]
        assert {r["qc_failed"] for r in rows if r["rater_id"] == b} == {"true"}
        assert {r["qc_failed"] for r in rows if r["rater_id"] == a} == {"false"}
        assert {r["qc_reasons"] for r in rows if r["rater_id"] == b} == {REASON}
        assert all(r["qc_expected"] == "2" for r in traps.values())

        open_settled_results(page, live_app, study_id, title)
        figure = page.locator("figure[data-chart='screening']")
        figure.scroll_into_view_if_needed()
        cell = figure.locator(f"tr[data-rater='{b}'] td[data-rule='quality_control']")
        expect(cell).to_have_text(f"failed: {REASON}")
        expect(cell).to_have_attribute("data-status", "unreliable")
        passed = figure.locator(f"tr[data-rater='{a}'] td[data-rule='quality_control']")
        expect(passed).to_have_text("passed")
        rule = figure.locator("tr[data-rule='quality_control']")
        expect(rule).to_contain_text("1 reliable, 1 unreliable")
        assert not errors, errors
    finally:
        page.screenshot(path=str(tmp_path / "quality-control-last.png"), full_page=True)
        context.close()
