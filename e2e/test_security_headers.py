"""The Content-Security-Policy holds on the real pages (issue 13, finding 6).

qoelab.core.security_headers gives the app and the participant's screens a policy with no
inline script or style. Chromium reports every blocked script, style, image or request as
a ``securitypolicyviolation`` event; a collector installed before any page script runs
records them. The console, the study editor, the results explorer with every figure (Chart.js
and SVG), the sessions console and the participant's screens up to a rating must raise
none — and an injected inline script must be blocked (and reported).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from flows import (
    import_fixture_ratings,
    open_results,
    participant_until_free_play,
    set_timings,
    sign_in,
)
from live_server import STATION_NAME, LiveApp

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
GAME = "Gran Turismo HD Concept"

COLLECT_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  window.__cspViolations.push({
    page: location.pathname,
    directive: event.violatedDirective,
    blocked: event.blockedURI,
    sample: event.sample,
  });
});
"""


class Recorder:
    """CSP violations of every page of a browser context (events and console messages)."""

    def __init__(self) -> None:
        self.events: list[dict[str, str]] = []
        self.console: list[str] = []

    def attach(self, page: Any) -> Any:
        page.on(
            "console",
            lambda message: (
                self.console.append(message.text)
                if "Content Security Policy" in message.text
                else None
            ),
        )
        return page

    def collect(self, page: Any) -> list[dict[str, str]]:
        found: list[dict[str, str]] = page.evaluate("() => window.__cspViolations.splice(0)")
        self.events.extend(found)
        return found


@pytest.fixture
def recorded(browser: Any) -> Iterator[tuple[Any, Recorder]]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(COLLECT_VIOLATIONS)
    try:
        yield context, Recorder()
    finally:
        context.close()


def goto_with_policy(page: Any, url: str) -> tuple[Any, str]:
    """Open ``url``; return the response and its Content-Security-Policy, which must allow
    scripts only from the site's own files."""
    response = page.goto(url)
    assert response is not None
    policy = response.headers["content-security-policy"]
    assert "script-src 'self';" in policy
    return response, policy


def csrf_header(context: Any) -> dict[str, str]:
    token = next(c["value"] for c in context.cookies() if c["name"] == "csrftoken")
    return {"X-CSRFToken": token}


def test_no_csp_violation_on_the_app_and_participant_pages(
    live_app: LiveApp, recorded: tuple[Any, Recorder]
) -> None:
    context, recorder = recorded
    console = recorder.attach(context.new_page())

    response, policy = goto_with_policy(console, live_app.url + "/console")
    assert "'unsafe-inline'" not in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "camera=()" in response.headers["permissions-policy"]
    sign_in(console, live_app)
    recorder.collect(console)

    # A copy of the example study of our own: the other browser tests use the original.
    studies = console.request.get(f"{live_app.url}/api/v1/studies/").json()
    example = next(s for s in studies if s["slug"] == "cloud-gaming-2014")
    clone = console.request.post(
        f"{live_app.url}/api/v1/studies/{example['id']}/clone/",
        data={"slug": "csp-check", "title": "CSP check"},
        headers=csrf_header(context),
    )
    assert clone.status == 201, clone.text()
    study_id = clone.json()["id"]

    # The study editor (settings, games, scenarios, rating items, design generator).
    console.goto(f"{live_app.url}/console/studies/{study_id}")
    console.get_by_role("form", name="Study settings").wait_for()
    set_timings(console, seconds_per_scenario=5, free_play_minutes=0)
    recorder.collect(console)

    # The results explorer with the synthetic data set: every figure drawn.
    import_fixture_ratings(console, live_app)
    open_results(console)
    console.get_by_role("img", name=re.compile("^Decision tree with")).wait_for()
    recorder.collect(console)

    # A session from the console, and the participant's screens in a second page.
    console.get_by_role("navigation", name="Study").get_by_role("link", name="Sessions").click()
    form = console.get_by_role("form", name="New session")
    form.get_by_label("Participant", exact=True).select_option("new")
    game = form.get_by_label("Game")
    game.select_option(game.locator("option", has_text=GAME).first.get_attribute("value"))
    form.get_by_label("Station").select_option(label=STATION_NAME)
    form.get_by_role("button", name=re.compile("Create session")).click()
    console.wait_for_url(re.compile(r"/console/sessions/\d+$"))
    session_id = console.url.rsplit("/", 1)[-1]
    console.get_by_role("button", name="Start session").click()
    console.get_by_test_id("session-state").filter(has_text="Questionnaire").wait_for()
    link = console.get_by_test_id("participant-link").get_attribute("href")
    assert link

    screen = recorder.attach(context.new_page())
    participant_response = screen.goto(link)
    assert participant_response is not None
    assert participant_response.headers["referrer-policy"] == "no-referrer"
    assert "'unsafe-inline'" not in participant_response.headers["content-security-policy"]
    try:
        participant_until_free_play(screen, age=30)
        screen.get_by_role("button", name="Start the rounds").click()
        screen.get_by_role("heading", level=1, name="Play now").wait_for()
        console.get_by_role("button", name="End this scenario now").click()
        screen.get_by_role("heading", level=1, name="Your rating").wait_for()
        recorder.collect(screen)
        recorder.collect(console)
    finally:
        # Free the station for the other browser tests.
        aborted = console.request.post(
            f"{live_app.url}/api/v1/sessions/{session_id}/abort/", headers=csrf_header(context)
        )
        assert aborted.ok, aborted.text()

    assert recorder.events == [], recorder.events
    assert recorder.console == [], recorder.console


def test_an_injected_inline_script_is_blocked(
    live_app: LiveApp, recorded: tuple[Any, Recorder]
) -> None:
    context, recorder = recorded
    page = recorder.attach(context.new_page())
    page.goto(live_app.url + "/")
    page.get_by_role("heading", level=1).first.wait_for()
    page.evaluate(
        """() => {
          const script = document.createElement('script');
          script.textContent = 'window.__injected = true';
          document.body.appendChild(script);
          const style = document.createElement('style');
          style.textContent = 'body { background: red }';
          document.head.appendChild(style);
        }"""
    )
    page.wait_for_function("() => window.__cspViolations.length >= 2")
    assert page.evaluate("() => window.__injected === undefined")
    directives = sorted(v["directive"] for v in recorder.collect(page))
    assert directives == ["script-src-elem", "style-src-elem"], directives
    assert page.evaluate("() => getComputedStyle(document.body).backgroundColor") != (
        "rgb(255, 0, 0)"
    )


def test_the_api_docs_run_under_their_own_policy(
    live_app: LiveApp, recorded: tuple[Any, Recorder]
) -> None:
    """Swagger UI and Redoc: inline styles allowed, scripts only from files (no inline)."""
    context, recorder = recorded
    page = recorder.attach(context.new_page())
    _, policy = goto_with_policy(page, live_app.url + "/api/docs/")
    assert "style-src 'self' 'unsafe-inline'" in policy
    page.get_by_text("QoE Lab API").first.wait_for()
    page.locator(".opblock").first.wait_for()  # the operations, read from /api/schema/
    assert recorder.collect(page) == []

    page.goto(live_app.url + "/api/redoc/")
    page.get_by_text("QoE Lab API").first.wait_for()
    # Redoc links Google Fonts and a logo on its CDN, which the policy (like a closed lab
    # network) refuses: Redoc falls back to the system fonts. Its code must all run.
    blocked = [
        violation
        for violation in recorder.collect(page)
        if violation["directive"].split("-")[0] in {"script", "worker", "connect"}
    ]
    assert blocked == []
    page.locator("[data-section-id]").first.wait_for()  # the operations were rendered
