"""Issue 35, "a false alarm": a participant idle on the rating screen raises no agent alarm.

The app runs with a short agent lease (``QOELAB_AGENT_LEASE_SECONDS``, renewed at a third
of it), so that the participant's idle time on the rating screen spans many heartbeat
periods in seconds rather than minutes. Two idle spells:

1. the console and the participant's screen keep polling (each poll renews the lease);
2. nothing renews the lease for longer than the lease (the participant's device is offline
   and the researcher looks at another page, no Celery beat runs here): the agent's lease
   runs out and it restores the interfaces, as it must. The rating does not need the
   impairment any more, so this is no agent failure: the console shows no alarm and the
   session log gains no "lease renewal failed" line while the participant keeps rating.

Then the rating is given and the next scenario is applied and played as usual.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flows import answer_questionnaire, open_example_study, set_timings, sign_in
from live_server import STATION_NAME, LiveApp, serve_app

pytestmark = pytest.mark.browser

#: The agent lease of this module's app; the backend renews it every LEASE / 3 seconds.
LEASE_SECONDS = 3
#: How long the participant stays on the rating screen in each idle spell (10 leases).
IDLE_SECONDS = 10 * LEASE_SECONDS
TIMEOUT_MS = 30_000
ALARM = "did not answer the heartbeat"
RENEWAL_FAILED = "lease renewal failed"


@pytest.fixture(scope="module")
def short_lease_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveApp]:
    """An app of its own whose server and worker renew agent leases of LEASE_SECONDS."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(os.environ, "QOELAB_AGENT_LEASE_SECONDS", str(LEASE_SECONDS))
        with serve_app(Path(tmp_path_factory.mktemp("qoelab-heartbeat"))) as app:
            yield app


@pytest.fixture
def contexts(browser: Any) -> Iterator[tuple[Any, Any]]:
    researcher = browser.new_context(viewport={"width": 1280, "height": 900})
    participant = browser.new_context(viewport={"width": 1024, "height": 768}, locale="en-GB")
    for context in (researcher, participant):
        context.set_default_timeout(TIMEOUT_MS)
    yield researcher, participant
    researcher.close()
    participant.close()


def _heading(page: Any, name: str) -> None:
    page.get_by_role("heading", level=1, name=name).wait_for()


def _session_log(console: Any, app: LiveApp, session_id: str) -> str:
    response = console.request.get(f"{app.url}/api/v1/sessions/{session_id}/")
    assert response.ok, f"session {session_id}: {response.status}"
    return str(response.json()["message"])


def _idle_on_rating(console: Any, seconds: float) -> int:
    """Watch the console for ``seconds``; how many polls of it showed an alarm box."""
    alarms, deadline = 0, time.monotonic() + seconds
    while time.monotonic() < deadline:
        alarms += console.get_by_role("alert").filter(has_text=ALARM).count()
        console.wait_for_timeout(500)
    return alarms


def _to_first_rating(console: Any, screen: Any, app: LiveApp) -> str:
    """A new session on the dry-run station, run to the rating of its first scenario;
    returns the session's id."""
    console.get_by_role("navigation", name="Study").get_by_role("link", name="Sessions").click()
    form = console.get_by_role("form", name="New session")
    form.get_by_label("Participant", exact=True).select_option("new")
    form.get_by_label("Game").select_option(label="Gran Turismo HD Concept (fast)")
    form.get_by_label("Station").select_option(label=STATION_NAME)
    form.get_by_role("button", name=re.compile("Create session")).click()
    console.wait_for_url(re.compile(r"/console/sessions/\d+$"))
    session_id = console.url.rsplit("/", 1)[1]
    console.get_by_role("button", name="Start session").click()
    link = console.get_by_test_id("participant-link").get_attribute("href")
    assert link, "the console shows no participant link"
    screen.goto(link)
    screen.get_by_label("I have read this and agree to take part.").check()
    screen.get_by_role("button", name="Continue").click()
    _heading(screen, "A few questions before you play")
    answer_questionnaire(screen, age=31)
    screen.get_by_role("button", name="Continue").click()
    screen.get_by_role("button", name="Start the rounds").click()
    _heading(screen, "Play now")
    console.get_by_text("Not verified: the dry-run agent recorded this state").wait_for()
    _heading(screen, "Your rating")  # the 5-s scenario ran out
    console.get_by_test_id("session-state").filter(has_text="Rating").wait_for()
    return session_id


def test_an_idle_participant_on_the_rating_screen_raises_no_alarm(
    short_lease_app: LiveApp, contexts: tuple[Any, Any]
) -> None:
    app = short_lease_app
    researcher_context, participant_context = contexts
    console, screen = researcher_context.new_page(), participant_context.new_page()
    sign_in(console, app)
    open_example_study(console, app)
    set_timings(console, seconds_per_scenario=5, free_play_minutes=0)
    session_id = _to_first_rating(console, screen, app)
    console_url = console.url

    # 1. Both screens poll: many heartbeat periods on the rating screen.
    alarms = _idle_on_rating(console, IDLE_SECONDS)

    # 2. Nothing renews the lease for two leases: the agent restores the interfaces.
    participant_context.set_offline(True)
    console.goto(app.url + "/console")
    console.wait_for_timeout(2 * LEASE_SECONDS * 1000)
    participant_context.set_offline(False)
    console.goto(console_url)
    console.get_by_test_id("session-state").filter(has_text="Rating").wait_for()
    alarms += _idle_on_rating(console, IDLE_SECONDS)

    log = _session_log(console, app, session_id)
    assert alarms == 0, f"{alarms} looks at the console showed the alarm; log:\n{log}"
    assert log.count(RENEWAL_FAILED) == 0, log
    assert log.count("Heartbeat failed") == 0, log

    # The rating is taken, the next scenario is applied (the agent builds it anew) and played.
    screen.keyboard.press("4")
    screen.keyboard.press("Enter")
    _heading(screen, "Play now")
    screen.get_by_text("Round 2 of").wait_for()
    console.get_by_text(re.compile(r"scenario 2 of \d+")).first.wait_for()
    assert console.get_by_role("alert").filter(has_text=ALARM).count() == 0
