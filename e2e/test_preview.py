"""Preview (issue 35, item 3): the researcher steps through every participant screen of a
study from its page, and the database is unchanged afterwards.

The study is a copy of the example with the P.809 gaming items plus a DCR item and
training on, so that every screen type is there: consent and questionnaire, free play, a
training round and its rating, a round and its rating, a trapping item (quality control),
the rating with the DCR item, the
post-session questions and the end screen. It would catch a preview that creates a
participant, session, rating, answer or audit row, sends anything but GETs to the API, or
leaves out a screen type.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from flows import participant_until_free_play, sign_in
from live_server import EXAMPLE_STUDY, RESEARCHER, LiveApp
from playwright.sync_api import expect

COUNT_ROWS = (
    "import json; "
    "from qoelab.participants.models import Participant, Withdrawal; "
    "from qoelab.runs.models import Session; "
    "from qoelab.ratings.models import Answer, Rating; "
    "print(json.dumps({m.__name__: m.objects.count() "
    "for m in (Participant, Session, Rating, Answer, Withdrawal)}))"
)
DCR_QUESTION = "How annoying was the degradation compared with the first round?"
TRAP_TEXT = "Please select Poor for this question."


def row_counts(app: LiveApp) -> dict[str, int]:
    counts: dict[str, int] = json.loads(
        app.manage("shell", "-c", COUNT_ROWS).strip().splitlines()[-1]
    )
    return counts


def every_screen_study(app: LiveApp, tmp: Path) -> str:
    """A copy of the example study with every screen type; returns its slug."""
    suffix = re.sub(r"\D", "", tmp.name)[-6:] or "0"
    slug = f"preview-{suffix}"
    document = json.loads(EXAMPLE_STUDY.read_text(encoding="utf-8"))
    document.update(slug=slug, title=f"Preview {suffix}")
    path = tmp / "study.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    app.manage("load_study", str(path), "--owner", RESEARCHER[0])
    app.manage(
        "shell",
        "-c",
        "from qoe_analysis import scales; "
        "from qoelab.studies.models import Study; "
        "from qoelab.studies.rating_items import presets; "
        f"s = Study.objects.get(slug='{slug}'); "
        "s.rating_items = presets()['gaming'] + [{'key': 'degradation', 'required': True, "
        f"'question': {{'en': '{DCR_QUESTION}', 'de': 'Wie störend?'}}, "
        "'scale': scales.default_scale('dcr5')}]; "
        "s.training = {'enabled': True, 'scenarios': [], 'seconds': 30}; "
        "s.free_play_minutes = 2; "
        "s.quality_control = {'traps': [{'after': 1, 'value': 2, "
        f"'text': {{'en': '{TRAP_TEXT}', 'de': 'Bitte wählen Sie Dürftig.'}}}}], "
        "'hidden_reference': None}; s.save()",
    )
    return slug


def test_the_preview_shows_every_screen_and_stores_nothing(
    live_app: LiveApp, page: Any, tmp_path: Path
) -> None:
    sign_in(page, live_app)
    slug = every_screen_study(live_app, tmp_path)
    studies = page.request.get(f"{live_app.url}/api/v1/studies/")
    listed = studies.json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    study_id = next(s["id"] for s in rows if s["slug"] == slug)
    before = row_counts(live_app)
    writes: list[str] = []
    page.on(
        "request",
        lambda r: (
            writes.append(f"{r.method} {r.url}") if "/api/" in r.url and r.method != "GET" else None
        ),
    )

    page.goto(f"{live_app.url}/console/studies/{study_id}")
    page.get_by_role("link", name="Preview participant screens").click()
    page.wait_for_url(re.compile(rf"/participant/preview/{study_id}$"))
    banner = page.get_by_test_id("preview-banner")
    expect(banner).to_have_text("Preview — nothing is stored")

    where = page.get_by_test_id("preview-where")
    expect(where).to_contain_text("Screen 1 of 10")
    seen = [str(where.get_attribute("data-step"))]
    # The screen's own buttons only move on: consent, the questions, Continue (no POST).
    participant_until_free_play(page)
    headings: list[str] = []
    for number in range(2, 11):
        expect(where).to_contain_text(f"Screen {number} of 10")
        expect(banner).to_be_visible()
        seen.append(str(where.get_attribute("data-step")))
        headings.append(page.get_by_role("heading", level=1).inner_text())
        if number == 4:
            expect(page.get_by_text("Training round 1 of 2")).to_be_visible()
        if number == 6:
            expect(page.get_by_text(DCR_QUESTION)).to_have_count(0)  # the baseline: no DCR yet
        if number == 7:
            expect(page.get_by_text(TRAP_TEXT)).to_be_visible()
        if number == 8:
            expect(page.get_by_text(DCR_QUESTION)).to_be_visible()
        if number < 10:
            page.get_by_role("button", name="Next", exact=True).click()
    assert seen == [
        "questionnaire",
        "free_play",
        "playing",
        "rating",
        "playing",
        "rating",
        "rating",
        "rating",
        "post_questions",
        "thanks",
    ]
    assert headings[0] == "Free play" and headings[-1] == "Thank you for taking part!"
    assert headings.count("Your rating") >= 3
    for _ in range(9):
        page.get_by_role("button", name="Back", exact=True).click()
    expect(where).to_contain_text("Screen 1 of 10")
    page.get_by_role("heading", level=1, name="Consent").wait_for()  # starts empty again

    assert writes == []
    assert row_counts(live_app) == before
