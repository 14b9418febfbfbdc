"""Steps shared by the browser tests and `make screenshots` (researcher and participant)."""

from __future__ import annotations

import re
from typing import Any

from live_server import RESEARCHER, STATION_NAME, LiveApp, fixture_ratings_csv
from playwright.sync_api import expect


def sign_in(page: Any, app: LiveApp) -> None:
    """The console's sign-in: /console redirects to /login, which posts to /api/v1/auth/login/.

    A browser context that is signed in already (another test ran first in it) stays so.
    """
    page.goto(app.url + "/console")
    page.get_by_role("heading", name=re.compile(r"^(Studies|Researcher sign-in)$")).wait_for()
    if "/login" in page.url:
        page.get_by_label("User name").fill(RESEARCHER[0])
        page.get_by_label("Password").fill(RESEARCHER[1])
        page.get_by_role("button", name="Sign in").click()
    page.get_by_role("heading", name="Studies", exact=True).wait_for()
    page.get_by_test_id("signed-in-user").filter(has_text=RESEARCHER[0]).wait_for()


def open_example_study(page: Any, app: LiveApp) -> None:
    page.goto(app.url + "/console")
    page.get_by_role("link", name=re.compile("Cloud gaming QoE")).first.click()
    page.get_by_role("form", name="Study settings").wait_for()


def set_timings(page: Any, *, seconds_per_scenario: int, free_play_minutes: int) -> None:
    settings = page.get_by_role("form", name="Study settings")
    settings.get_by_label("Seconds per scenario").fill(str(seconds_per_scenario))
    settings.get_by_label("Free play (minutes)").fill(str(free_play_minutes))
    settings.get_by_role("button", name="Save settings").click()
    settings.get_by_text("Saved.").wait_for()


def create_study(page: Any, title: str, slug: str, *, game: str, pace: str) -> int:
    """A new study from the console's Studies page: 5 s per scenario, no free play, one game.

    Returns the study's id (from the editor's URL)."""
    form = page.get_by_role("region", name="New study")
    form.get_by_label("Title", exact=True).fill(title)
    form.get_by_label("Slug", exact=True).fill(slug)
    form.get_by_role("button", name="Create study").click()
    page.get_by_role("form", name="Study settings").wait_for()
    match = re.search(r"/console/studies/(\d+)", page.url)
    assert match, page.url
    set_timings(page, seconds_per_scenario=5, free_play_minutes=0)
    add_game(page, game, pace)
    return int(match.group(1))


def add_game(page: Any, game: str, pace: str) -> None:
    """The study editor's Games table: add ``game`` with its pace class."""
    games = page.get_by_role("table", name="Games")
    games.get_by_label("Name of new game").fill(game)
    games.get_by_label("Pace class of new game").select_option(pace)
    games.get_by_role("button", name="Add", exact=True).click()
    expect(games.get_by_label(f"Name of {game}")).to_have_value(game)


def create_and_start_session(page: Any, game_label: str) -> str:
    """From the study's pages: a session for a new participant; returns the participant link."""
    page.get_by_role("navigation", name="Study").get_by_role("link", name="Sessions").click()
    form = page.get_by_role("form", name="New session")
    form.get_by_label("Participant", exact=True).select_option("new")
    form.get_by_label("Game").select_option(label=game_label)
    form.get_by_label("Station").select_option(label=STATION_NAME)
    form.get_by_role("button", name=re.compile("Create session")).click()
    page.wait_for_url(re.compile(r"/console/sessions/\d+$"))
    page.get_by_role("button", name="Start session").click()
    page.get_by_test_id("session-state").filter(has_text="Questionnaire").wait_for()
    link = page.get_by_test_id("participant-link").get_attribute("href")
    assert link, "the console shows no participant link"
    return str(link)


def participant_until_free_play(screen: Any, *, age: int = 27) -> None:
    screen.get_by_role("heading", level=1, name="Consent").wait_for()
    screen.get_by_label("I have read this and agree to take part.").check()
    screen.get_by_role("button", name="Continue").click()
    screen.get_by_role("heading", level=1, name="A few questions before you play").wait_for()
    answer_questionnaire(screen, age=age)
    screen.get_by_role("button", name="Continue").click()
    screen.get_by_role("heading", level=1, name="Free play").wait_for()


def answer_questionnaire(screen: Any, *, age: int) -> None:
    """The example study's questions before play: the age, a medium skill, likes the game."""
    screen.get_by_label("Your age (years)").fill(str(age))
    screen.get_by_role("group", name="How would you rate your gaming skill?").get_by_label(
        "Medium"
    ).check()
    screen.get_by_role("group", name=re.compile("Do you like playing games like")).get_by_label(
        "Yes"
    ).check()


def participant_final_questions(screen: Any, *, attitude: str = "neutral") -> None:
    """The post-session questions of the example questionnaire, then Finish."""
    screen.get_by_role("heading", level=1, name="Almost done: a few last questions").wait_for()
    screen.get_by_role("group", name=re.compile("Would you pay a monthly fee")).get_by_label(
        "yes"
    ).check()
    screen.get_by_role("group", name=re.compile("general attitude")).get_by_label(attitude).check()
    screen.get_by_role("button", name="Finish").click()
    screen.get_by_role("heading", level=1, name="Thank you for taking part!").wait_for()


def import_fixture_ratings(page: Any, app: LiveApp) -> None:
    """Progress page: import the synthetic data set (58 raters, 79 sessions, 790 ratings)."""
    page.get_by_role("navigation", name="Study").get_by_role("link", name="Progress").click()
    csv = app.data_dir / "ratings-for-import.csv"
    csv.write_text(fixture_ratings_csv(), encoding="utf-8")
    page.get_by_label("Import ratings from a tidy CSV").set_input_files(str(csv))
    page.get_by_role("button", name="Import", exact=True).click()
    page.get_by_text(re.compile(r"Imported 790 ratings in 79 sessions")).wait_for()


def import_ratings_csv(page: Any, app: LiveApp, csv_text: str, imported: str) -> None:
    """Progress page of the open study: import ``csv_text`` (a tidy CSV) and wait for the
    summary ``imported`` ("Imported 72 ratings in 6 sessions")."""
    page.get_by_role("navigation", name="Study").get_by_role("link", name="Progress").click()
    csv = app.data_dir / "ratings-to-import.csv"
    csv.write_text(csv_text, encoding="utf-8")
    page.get_by_label("Import ratings from a tidy CSV").set_input_files(str(csv))
    page.get_by_role("button", name="Import", exact=True).click()
    page.get_by_text(re.compile(re.escape(imported))).wait_for()


def open_results(page: Any) -> None:
    page.get_by_role("navigation", name="Study").get_by_role("link", name="Results").click()
    page.get_by_test_id("analysis-summary").wait_for(timeout=180_000)
    # The reliable-raters analysis comes second; figs. 4.6/4.7 wait for it.
    page.wait_for_function(
        "() => { const f = document.querySelector(\"figure[data-chart='mos-over-delay']\");"
        " return f && f.dataset.points !== '0' && !document.querySelector('progress'); }",
        timeout=180_000,
    )


#: How long an analysis job may take on a busy CI machine.
ANALYSIS_TIMEOUT_MS = 300_000


def open_settled_results(page: Any, app: LiveApp, study_id: int, title: str) -> None:
    """The study's Results tab, loaded afresh, once its analyses (all / reliable raters)
    have settled and a figure is drawn."""
    page.goto(f"{app.url}/console/studies/{study_id}/results")
    page.get_by_role("heading", name=title).wait_for()
    page.get_by_test_id("analysis-summary").wait_for(timeout=ANALYSIS_TIMEOUT_MS)
    page.wait_for_function(
        "() => !document.querySelector('.analysis-progress')"
        " && document.querySelectorAll('figure[data-chart]').length > 0",
        timeout=ANALYSIS_TIMEOUT_MS,
    )


def study_rating_count(page: Any, app: LiveApp) -> int:
    """The ratings the open study holds now: the rows of its tidy CSV export (one a rating)."""
    page.wait_for_url(re.compile(r"/console/studies/\d+"))
    study_id = re.search(r"/console/studies/(\d+)", page.url).group(1)  # type: ignore[union-attr]
    response = page.request.get(f"{app.url}/api/v1/studies/{study_id}/export/csv/")
    assert response.ok, f"export: {response.status} {response.text()[:500]}"
    return len(response.text().strip().splitlines()) - 1
