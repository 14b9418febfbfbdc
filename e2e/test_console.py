"""The console's sign-in (JSON API, no admin), the station test and the study's language.

Runs before test_session_flow.py (same served app): it leaves no session holding the
station and sets the study's language back to English.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from flows import create_and_start_session, open_example_study, sign_in
from live_server import RESEARCHER, STATION_NAME, LiveApp

pytestmark = pytest.mark.browser

TIMEOUT_MS = 30_000


@pytest.fixture
def context(browser: Any) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
    context.set_default_timeout(TIMEOUT_MS)
    yield context
    context.close()


def fill_sign_in(page: Any, username: str, password: str) -> None:
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def test_sign_in_and_out_through_the_api(live_app: LiveApp, context: Any) -> None:
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(live_app.url + "/console/stations")
    page.wait_for_url(re.compile(r"/login\?next=%2Fconsole%2Fstations$"))

    fill_sign_in(page, RESEARCHER[0], "not-the-password")
    page.get_by_role("alert").filter(has_text="Wrong user name or password").wait_for()

    fill_sign_in(page, *RESEARCHER)
    page.get_by_role("heading", name="Stations", exact=True).wait_for()
    assert page.get_by_test_id("signed-in-user").inner_text() == RESEARCHER[0]
    assert not [url for url in requests if "/admin/" in url]
    assert any(url.endswith("/api/v1/auth/login/") for url in requests)

    # A reload keeps the session (asked with "who am I").
    page.reload()
    page.get_by_role("heading", name="Stations", exact=True).wait_for()

    page.get_by_role("button", name="Sign out").click()
    page.get_by_role("heading", name="Researcher sign-in").wait_for()
    page.goto(live_app.url + "/console")
    page.wait_for_url(re.compile(r"/login"))


def test_a_researcher_without_staff_status_signs_in(live_app: LiveApp, context: Any) -> None:
    live_app.manage(
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model as m; "
        "m().objects.filter(username='nonstaff').exists() or "
        "m().objects.create_user('nonstaff', password='nonstaff-password-1')",
    )
    page = context.new_page()
    page.goto(live_app.url + "/login")
    fill_sign_in(page, "nonstaff", "nonstaff-password-1")
    page.get_by_role("heading", name="Studies", exact=True).wait_for()
    assert page.get_by_test_id("signed-in-user").inner_text() == "nonstaff"
    # Researcher endpoints answer (the stations are shared by the lab's researchers).
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Stations").click()
    page.get_by_role("list", name="Stations").get_by_text(STATION_NAME).first.wait_for()


def test_apply_baseline_shows_what_the_agent_reports(live_app: LiveApp, context: Any) -> None:
    page = context.new_page()
    sign_in(page, live_app)
    page.get_by_role("navigation", name="Main").get_by_role("link", name="Stations").click()
    card = page.get_by_role("listitem").filter(
        has=page.get_by_role("heading", name=STATION_NAME, exact=True)
    )
    card.get_by_role("button", name="Apply baseline (test)").click()
    result = card.get_by_test_id("baseline-result")
    result.get_by_text(
        "Not verified: the agent recorded the baseline (no impairment) without applying it "
        "to a kernel."
    ).wait_for()
    text = result.inner_text()
    assert "upstream (client → server): 0 ms delay, 0 ms jitter, 0 % loss" in text
    assert "downstream (server → client): 0 ms delay, 0 ms jitter, 0 % loss" in text
    assert "Dry-run agent" in text
    card.get_by_text(
        "test profile (no impairment) recorded by the agent (nothing was applied to a kernel)"
    ).wait_for()
    assert card.locator(".health").inner_text() == "healthy"


def test_the_participant_screen_starts_in_the_study_language(
    live_app: LiveApp, browser: Any, context: Any
) -> None:
    page = context.new_page()
    sign_in(page, live_app)

    def set_language(label: str) -> None:
        open_example_study(page, live_app)
        form = page.get_by_role("form", name="Study settings")
        form.get_by_label("Participant language").select_option(label=label)
        form.get_by_role("button", name="Save settings").click()
        form.get_by_text("Saved.").wait_for()

    set_language("Deutsch")
    try:
        link = create_and_start_session(page, "Final Fantasy XIII (medium)")
        assert "lang=" not in link
        # An English browser, a link without lang: the study's language wins.
        participant = browser.new_context(locale="en-GB")
        try:
            screen = participant.new_page()
            screen.goto(link)
            screen.get_by_role("heading", level=1, name="Einverständnis").wait_for()
            assert screen.evaluate("document.documentElement.lang") == "de"
            screen.get_by_role("button", name="Show in English").click()
            screen.get_by_role("heading", level=1, name="Consent").wait_for()
            # The console's language choice still overrides the study's.
            select = page.get_by_label("Language of the participant screens")
            select.select_option(label="English")
            english = page.get_by_test_id("participant-link").get_attribute("href")
            assert english and "lang=en" in english
        finally:
            participant.close()
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name="Abort").click()
        page.get_by_test_id("session-state").filter(has_text="Aborted").wait_for()
    finally:
        set_language("English")
