"""Issue 15, acceptance: the gaming preset with training on two anchors, keyboard only.

The researcher creates a study in the console (5 s per scenario, no free play), a game and
four scenarios from the design generator (downstream delay 0/100/200/300 ms: the baseline
B and D1–D3), opens the rating items editor, applies the gaming preset (overall on ACR-5,
input and video quality on the 7-point continuous scale, acceptance yes/no), switches the
training on (its default anchors: the baseline and the most impaired scenario, D3) and
saves. Two participants then rate, in a second browser context each, the two training
rounds and the four scenarios on all four items with the keyboard only: a number key on
overall quality, Tab, arrow keys on the sliders (which start with no value), Tab, a number
key on acceptance, Enter. Per rating the test measures the time from the rating screen's
heading appearing to the Enter key and compares it with the `response_ms` the server
stored (acceptance: within 0.5 s). The tidy CSV holds four rows per scenario slot plus the
training rows marked training=1; the items sidecar lists the four items; the analysis has
per-item MOS with confidence intervals, SOS on each item's bounds, excludes the eight
training rows of each session and flags both raters as fast (the floor is set above any
keyboard rating); the results page shows each item's MOS and CI per scenario as computed.
No uncaught error reaches either page.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from a11y import assert_accessible
from flows import (
    create_and_start_session,
    create_study,
    participant_final_questions,
    participant_until_free_play,
    sign_in,
)
from live_server import LiveApp
from playwright.sync_api import expect
from rating_items_checks import (
    DELAYS,
    FAST_FLOOR_MS,
    GAME,
    ITEMS,
    SCENARIOS,
    SESSIONS,
    SLOTS,
    TRAINING,
    Typed,
    api_json,
    check_exports,
    check_results,
)

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
GAME_PACE = "fast"
TRAINING_SECONDS = 10
#: Acceptance: |server response_ms − measured| per rating.
TOLERANCE_S = 0.5
#: Arrow presses after the first (which puts an empty slider at its midpoint, 4.0; 0.1 a
#: press) by delay level: input quality falls with delay, video quality less so.
INPUT_STEPS = [3, 0, -5, -10]
VIDEO_STEPS = [2, 1, 0, -2]
DRAFT_PREFIX = "qoelab:draft:"  # frontend/src/participant/pending.ts: the rating screen's draft


# --- the study -----------------------------------------------------------------------------------


def build_delay_design(page: Any) -> None:
    generator = page.get_by_role("region", name="Design generator")
    generator.get_by_role("radio", name=re.compile("Full factorial grid")).check()
    factor = generator.get_by_role("group", name="Factor 1")
    factor.get_by_label("Factor", exact=True).select_option(label="Delay")
    factor.get_by_label("Direction").select_option("downstream")
    factor.get_by_label(re.compile("^Levels")).fill(", ".join(map(str, DELAYS)))
    expect(generator.get_by_test_id("design-preview-size")).to_have_text(
        re.compile(rf"^{SCENARIOS} scenarios")
    )
    generator.get_by_role("button", name="Apply design").click()  # the dialog is accepted
    expect(generator.get_by_test_id("design-applied")).to_contain_text(
        f"the study now has {SCENARIOS} scenario(s)"
    )


def set_rating_items(page: Any, app: LiveApp, study_id: int, delay_of: dict[str, int]) -> None:
    """The gaming preset, training on the default anchors (10 s each), saved."""
    editor = page.get_by_role("region", name="Rating items")
    items = editor.get_by_role("list", name="Rating items").locator(":scope > li")
    expect(items).to_have_count(1)  # a new study: overall quality on ACR-5
    editor.get_by_role("button", name=re.compile("Gaming preset")).click()
    expect(items).to_have_count(len(ITEMS))

    training = editor.get_by_role("group", name="Training")
    training.get_by_role("checkbox", name=re.compile("Train participants on anchor")).check()
    anchors = training.get_by_role("group", name="Anchor scenarios")
    most_impaired = max(delay_of, key=lambda code: delay_of[code])
    for code in delay_of:
        box = anchors.get_by_role("checkbox", name=re.compile(rf"^{code}\b"))
        if code in ("B", most_impaired):
            expect(box).to_be_checked()
        else:
            expect(box).not_to_be_checked()
    training.get_by_label("Seconds per training scenario").fill(str(TRAINING_SECONDS))
    editor.get_by_label("Fast answer floor (ms)").fill(str(FAST_FLOOR_MS))
    editor.get_by_role("button", name="Save rating items").click()
    expect(editor.get_by_role("status")).to_have_text("Saved.")

    study = api_json(page, app, f"studies/{study_id}/")
    assert [item["key"] for item in study["rating_items"]] == ITEMS
    kinds = [item["scale"]["kind"] for item in study["rating_items"]]
    assert kinds == ["acr5", "continuous", "continuous", "binary"], kinds
    assert [(i["scale"]["min"], i["scale"]["max"]) for i in study["rating_items"][1:3]] == [
        (1, 7),
        (1, 7),
    ]
    assert study["acceptance"] == {"item": "acceptance"}, study["acceptance"]
    assert study["training"]["enabled"] is True
    assert study["training"]["seconds"] == TRAINING_SECONDS
    assert study["min_response_ms"] == FAST_FLOOR_MS
    assert sorted(study["training"]["scenarios"]) in ([], sorted(["B", most_impaired]))

    # Shown saved: the editor, loaded afresh, shows the four items and the training.
    page.reload()
    editor = page.get_by_role("region", name="Rating items")
    expect(editor.get_by_role("list", name="Rating items").locator(":scope > li")).to_have_count(
        len(ITEMS)
    )
    expect(
        editor.get_by_role("checkbox", name=re.compile("Train participants on anchor"))
    ).to_be_checked()


# --- a session -----------------------------------------------------------------------------------


def target_values(delay_index: int, rater: int) -> dict[str, float]:
    """What a rater enters for a scenario: worse with delay; rater 2 a little kinder."""
    kind = 1 if rater == 2 else 0
    return {
        "overall": max(1, min(5, 5 - delay_index + kind)),
        "input_quality": round(4 + 0.1 * (INPUT_STEPS[delay_index] + kind), 1),
        "video_quality": round(4 + 0.1 * VIDEO_STEPS[delay_index], 1),
        "acceptance": 1 if delay_index + kind <= 1 else 0,
    }


def slider_keys(target: float) -> list[str]:
    """Arrow keys that bring an empty 1..7 slider to `target` (first arrow: 4.0)."""
    steps = round((target - 4) / 0.1)
    return ["ArrowRight"] + (["ArrowRight"] * steps if steps > 0 else ["ArrowLeft"] * -steps)


def rate_with_keyboard(screen: Any, values: dict[str, float]) -> None:
    """Everything up to (not including) Enter; each item checked before it is left."""
    keyboard = screen.keyboard
    keyboard.press(str(int(values["overall"])))  # outside every item: the first item
    item = screen.locator("[data-item='overall']")
    expect(item.locator("input[type=radio]:checked")).to_have_value(str(int(values["overall"])))
    for key in ("input_quality", "video_quality"):
        keyboard.press("Tab")
        slider = screen.locator(f"[data-item='{key}'] [role=slider]")
        expect(slider).to_be_focused()
        for arrow in slider_keys(values[key]):
            keyboard.press(arrow)
        expect(slider).to_have_attribute("aria-valuenow", f"{values[key]:g}")
    keyboard.press("Tab")
    acceptance = screen.locator("[data-item='acceptance']")
    expect(acceptance.locator("input[type=radio]").first).to_be_focused()
    keyboard.press(str(int(values["acceptance"])))
    expect(acceptance.locator("input[type=radio]:checked")).to_have_value(
        str(int(values["acceptance"]))
    )


def rating_screen_shown(screen: Any, slot: int) -> tuple[float, float]:
    """Waits for the rating screen of `slot`; returns (monotonic time seen, page time seen −
    the page's first-shown time, ms).

    A locator's wait_for polls at up to 500 ms intervals once the element is late (the Play
    screen lasts 5 s), which would add up to half a second to the server's response_ms
    against the test's clock. Polling on every animation frame sees the heading within a
    frame of React committing the screen (which is when the page takes its first-shown time).
    """
    page_seen_ms = screen.wait_for_function(
        """() => [...document.querySelectorAll('main h1')]
            .some((h) => h.textContent.trim() === 'Your rating') && Date.now()""",
        polling="raf",
    ).json_value()
    seen = time.monotonic()
    expect(screen.get_by_role("heading", level=1, name="Your rating")).to_be_visible()
    shown_at = screen.evaluate(
        """([prefix, slot]) => {
            const key = Object.keys(localStorage)
                .find((k) => k.startsWith(prefix) && k.endsWith(`:${slot}`));
            const draft = key ? JSON.parse(localStorage.getItem(key)) : null;
            return draft ? draft.shown_at : null;
        }""",
        [DRAFT_PREFIX, slot],
    )
    assert shown_at is not None, f"slot {slot}: no draft with the first-shown time"
    return seen, page_seen_ms - shown_at


def run_session(
    console: Any, browser: Any, delay_of: dict[str, int], rater: int, errors: list[str]
) -> tuple[int, list[Typed]]:
    link = create_and_start_session(console, f"{GAME} ({GAME_PACE})")
    session_id = int(re.search(r"/console/sessions/(\d+)", console.url).group(1))  # type: ignore[union-attr]
    context = browser.new_context(viewport={"width": 1024, "height": 768}, locale="en-GB")
    context.set_default_timeout(TIMEOUT_MS)
    typed: list[Typed] = []
    try:
        screen = context.new_page()
        screen.on("pageerror", lambda error: errors.append(f"participant {rater}: {error}"))
        screen.goto(link)
        participant_until_free_play(screen, age=30 + rater)
        screen.get_by_role("button", name="Start the rounds").click()
        for slot in range(1, SLOTS + 1):
            training = slot <= TRAINING
            round_text = (
                f"Training round {slot} of {TRAINING}"
                if training
                else f"Round {slot - TRAINING} of {SCENARIOS}"
            )
            screen.get_by_role("heading", level=1, name="Play now").wait_for()
            expect(screen.locator(".p-round")).to_have_text(round_text)
            # The console shows the training step as such.
            position = console.get_by_text(re.compile(rf"^scenario {slot} of {SLOTS}\b"))
            expect(position).to_have_text(
                f"scenario {slot} of {SLOTS}" + (" (training)" if training else "")
            )
            code = console.get_by_test_id("current-scenario").inner_text().strip()
            values = target_values(DELAYS.index(delay_of[code]), rater)

            seen, lag_ms = rating_screen_shown(screen, slot)
            expect(screen.locator(".p-round")).to_have_text(round_text)
            # No default anywhere: no point chosen, every slider without a value.
            expect(screen.locator("input[type=radio]:checked")).to_have_count(0)
            sliders = screen.get_by_role("slider")
            expect(sliders).to_have_count(2)
            for i in range(2):
                expect(sliders.nth(i)).to_have_attribute("aria-valuetext", "no value yet")
            if rater == 1 and slot == 1:  # a training slot: its time is not analysed
                assert_accessible(screen, "rating screen with four items, empty")
            rate_with_keyboard(screen, values)
            if rater == 1 and slot == 1:
                assert_accessible(screen, "rating screen with four items, answered")
            submitted = time.monotonic()
            screen.keyboard.press("Enter")
            typed.append(Typed(slot, code, training, values, submitted - seen, lag_ms))
            expect(console.locator(".order__item--done")).to_have_count(slot)
        participant_final_questions(screen)
    finally:
        context.close()
    console.get_by_test_id("session-state").filter(has_text="Completed").wait_for()
    training_codes = [t.code for t in typed if t.training]
    assert training_codes == [c for c in ["B", max(delay_of, key=delay_of.get)]], training_codes  # type: ignore[arg-type]
    assert sorted(t.code for t in typed if not t.training) == sorted(delay_of)
    return session_id, typed


def stored_against_typed(
    page: Any, app: LiveApp, session_id: int, typed: list[Typed]
) -> list[float]:
    """The values as the server stored them against what the test typed; returns, per
    rating, stored response_ms − measured time, in seconds."""
    session = api_json(page, app, f"sessions/{session_id}/")
    ratings = {r["position"]: r for r in session["ratings"]}
    assert sorted(ratings) == list(range(1, SLOTS + 1)), sorted(ratings)
    diffs = []
    for t in typed:
        stored = ratings[t.slot]
        assert stored["training"] is t.training, stored
        assert stored["scenario_code"] == t.code, stored
        assert set(stored["values"]) == set(ITEMS), stored
        for key, value in t.values.items():
            assert abs(stored["values"][key] - value) < 1e-9, (t.slot, key, stored["values"])
        assert stored["response_ms"] is not None, stored
        assert stored["since_end_ms"] is not None and stored["since_end_ms"] >= 0, stored
        diff_s = stored["response_ms"] / 1000 - t.measured_s
        print(
            f"session {session_id} slot {t.slot} ({'training' if t.training else 'test'},"
            f" {t.code}): measured {t.measured_s * 1000:.0f} ms, stored"
            f" {stored['response_ms']} ms, diff {diff_s * 1000:+.0f} ms,"
            f" heading seen {t.seen_lag_ms:.0f} ms after first shown"
        )
        diffs.append(diff_s)
        t.stored_ms = stored["response_ms"]
    return diffs


# --- the test ------------------------------------------------------------------------------------


def test_gaming_preset_with_training_rated_by_keyboard(
    live_app: LiveApp, browser: Any, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"console: {error}"))
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        _rating_items_study(live_app, browser, page, errors, tmp_path)
    finally:
        page.screenshot(path=str(tmp_path / "rating-items-last.png"), full_page=True)
        context.close()


def _rating_items_study(
    app: LiveApp, browser: Any, page: Any, errors: list[str], tmp: Path
) -> None:
    sign_in(page, app)
    suffix = re.sub(r"\D", "", tmp.name)[-6:] or "0"
    title = f"Rating items study {suffix}"
    study_id = create_study(page, title, f"rating-items-{suffix}", game=GAME, pace=GAME_PACE)
    build_delay_design(page)
    scenarios = api_json(page, app, f"studies/{study_id}/")["scenarios"]
    delay_of = {s["code"]: s["downstream"]["delay_ms"] for s in scenarios}
    assert sorted(delay_of.values()) == DELAYS and delay_of["B"] == 0, delay_of
    set_rating_items(page, app, study_id, delay_of)

    typed: dict[int, list[Typed]] = {}
    diffs: list[float] = []
    for rater in range(1, SESSIONS + 1):
        page.goto(f"{app.url}/console/studies/{study_id}")
        page.get_by_role("form", name="Study settings").wait_for()
        session_id, typed[session_id] = run_session(page, browser, delay_of, rater, errors)
        diffs += stored_against_typed(page, app, session_id, typed[session_id])
    lags = [t.seen_lag_ms for ts in typed.values() for t in ts]
    worst = max(diffs, key=abs)
    print(
        f"response times: {len(diffs)} ratings, stored − measured from {min(diffs) * 1000:+.0f}"
        f" to {max(diffs) * 1000:+.0f} ms (max |diff| {abs(worst) * 1000:.0f} ms); heading"
        f" seen {min(lags):.0f}–{max(lags):.0f} ms after the page's first-shown time"
    )
    assert abs(worst) <= TOLERANCE_S, diffs
    raters = check_exports(page, app, study_id, typed)
    check_results(page, app, study_id, title, raters, errors)
    assert not errors, errors
