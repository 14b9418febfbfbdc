"""Withdrawal (issue 35, item 4): a participant erased from the Progress page disappears
from the results (a fresh analysis) and from the tidy CSV download; the audit lists it.

A copy of the example study gets the synthetic ratings (58 raters, 790 ratings). It would
catch an erase that leaves the rater in the analysis or the CSV, a results cache that keeps
serving the old document, or a missing confirm dialog, banner or audit entry.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from flows import import_ratings_csv, open_settled_results, sign_in
from live_server import EXAMPLE_STUDY, RESEARCHER, LiveApp, fixture_ratings_csv
from playwright.sync_api import expect


def copy_of_the_example(app: LiveApp, tmp: Path) -> tuple[str, str]:
    suffix = re.sub(r"\D", "", tmp.name)[-6:] or "0"
    document = json.loads(EXAMPLE_STUDY.read_text(encoding="utf-8"))
    slug, title = f"withdrawal-{suffix}", f"Withdrawal {suffix}"
    document.update(slug=slug, title=title)
    path = tmp / "study.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    app.manage("load_study", str(path), "--owner", RESEARCHER[0])
    return slug, title


def downloaded_raters(page: Any) -> dict[str, int]:
    """The Progress page's tidy CSV download: rows per rater."""
    with page.expect_download() as info:
        page.get_by_role("link", name="Download the ratings (tidy CSV)").click()
    text = Path(info.value.path()).read_text(encoding="utf-8")
    counts: dict[str, int] = {}
    for row in csv.DictReader(io.StringIO(text)):
        counts[row["rater_id"]] = counts.get(row["rater_id"], 0) + 1
    return counts


def test_an_erased_participant_leaves_the_results_and_the_csv(
    live_app: LiveApp, page: Any, tmp_path: Path
) -> None:
    sign_in(page, live_app)
    slug, title = copy_of_the_example(live_app, tmp_path)
    listed = page.request.get(f"{live_app.url}/api/v1/studies/").json()
    rows = listed["results"] if isinstance(listed, dict) else listed
    study_id = next(s["id"] for s in rows if s["slug"] == slug)
    page.goto(f"{live_app.url}/console/studies/{study_id}")
    page.get_by_role("form", name="Study settings").wait_for()
    import_ratings_csv(page, live_app, fixture_ratings_csv(), "Imported 790 ratings in 79 sessions")

    open_settled_results(page, live_app, study_id, title)
    summary = page.get_by_test_id("analysis-summary")
    expect(summary).to_contain_text("790 ratings · 58 raters")

    page.goto(f"{live_app.url}/console/studies/{study_id}/progress")
    before = downloaded_raters(page)
    assert len(before) == 58
    rater = sorted(before)[0]
    participants = page.get_by_role("table", name="Participants")
    participants.get_by_role("button", name=f"Withdraw {rater}…").click()
    dialog = page.get_by_test_id("withdraw-dialog")
    dialog.get_by_role("radio", name="Erase").check()
    expect(dialog.get_by_test_id("withdraw-consequence")).to_contain_text(
        f"All of {rater}'s sessions, ratings and questionnaire answers will be deleted for good"
    )
    dialog.get_by_role("button", name=f"Erase {rater}").click()
    expect(page.get_by_test_id("withdrawn-banner")).to_contain_text("1 participant erased")
    audit = page.get_by_role("table", name="Withdrawal audit")
    expect(audit).to_contain_text(rater)
    expect(audit).to_contain_text(RESEARCHER[0])
    expect(
        participants.get_by_role("row", name=re.compile(rf"^{re.escape(rater)}\b"))
    ).to_contain_text("erased")

    after = downloaded_raters(page)
    assert rater not in after
    assert after == {code: n for code, n in before.items() if code != rater}

    open_settled_results(page, live_app, study_id, title)
    expect(summary).to_contain_text(f"{790 - before[rater]} ratings · 57 raters")
