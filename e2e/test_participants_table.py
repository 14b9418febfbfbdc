"""Issue 35, item 1: the results' participants table labels each item, keeps a slider's
decimals, leaves training out and is never clipped (1,400 px wide window).

A study with the P.809 gaming preset (overall ACR-5, input and video quality on the 1–7
slider, acceptance yes/no) and four delay scenarios gets, by the ratings import, three
participants with one session each: a training round on B (training=1) and the four
scenarios on all four items, the sliders with decimals (3.4, 5.25 …). The participants
table must show per scenario one column per item headed by the item's name, each value as
entered (3.4 stays 3.4) and one value per cell (one session each), no training value, a
note with the number of training ratings left out, and its right edge must be reachable:
the table scrolls inside its own box (overflow-x auto), which stays inside the window, and
the participant column stays in view while it scrolls, and the first rating column is in
view before any scrolling. Before the fix each cell mixed the items ("5 4 1"), dropped 3.4,
counted the training round, and the screening reason (one unbroken line of ~1,000 px)
pushed every rating out of the box at the right, where it looked cut off.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flows import create_study, import_ratings_csv, open_settled_results, sign_in
from live_server import LiveApp
from test_layout_labels import apply_gaming_preset
from test_rating_items import build_delay_design

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
GAME = "Table Racer"
DELAY_OF = {"B": 0, "D1": 100, "D2": 200, "D3": 300}
ITEM_NAMES = ["overall", "input quality", "video quality", "acceptance"]
#: Per rater and scenario: overall, input quality, video quality, acceptance (as typed in).
VALUES = {
    "R1": {
        "B": ("5", "3.4", "6.25", "1"),
        "D1": ("4", "4.1", "5.5", "1"),
        "D2": ("3", "2.75", "4.6", "0"),
        "D3": ("2", "1.3", "3.9", "0"),
    },
    "R2": {
        "B": ("4", "6.2", "5.8", "1"),
        "D1": ("4", "5.4", "5.1", "1"),
        "D2": ("2", "3.3", "4.4", "0"),
        "D3": ("1", "2.2", "3.1", "0"),
    },
    "R3": {
        "B": ("5", "6.6", "6.1", "1"),
        "D1": ("3", "4.8", "5.7", "1"),
        "D2": ("2", "2.9", "4.2", "0"),
        "D3": ("1", "1.8", "2.6", "0"),
    },
}
#: The training round on B: values found nowhere else, so a leak into the table shows.
TRAINING = ("1", "6.95", "1.05", "0")
KEYS = ["overall", "input_quality", "video_quality", "acceptance"]


def ratings_csv() -> str:
    lines = ["rater_id,session_id,game,game_pace,scenario,ds_delay_ms,item,rating,training"]
    for n, (rater, by_scenario) in enumerate(VALUES.items(), start=1):
        rows = [("B", TRAINING, 1)] + [(code, values, 0) for code, values in by_scenario.items()]
        for code, values, training in rows:
            for key, value in zip(KEYS, values, strict=True):
                lines.append(
                    f"{rater},S{n},{GAME},fast,{code},{DELAY_OF[code]},{key},{value},{training}"
                )
    return "\n".join(lines) + "\n"


READ_TABLE = """() => {
  const figure = document.querySelector("figure[data-chart='participants']");
  const table = figure.querySelector("table[aria-label='Participants']");
  const wrap = table.parentElement;
  const style = getComputedStyle(wrap);
  const rows = Object.fromEntries([...table.querySelectorAll('tbody tr[data-rater]')].map((tr) =>
    [tr.dataset.rater, [...tr.children].map((c) => c.textContent.trim())]));
  const headers = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
  const firstValue = table.querySelector('tbody tr:first-child > :nth-child(9)')
    .getBoundingClientRect();
  return {
    windowWidth: window.innerWidth, pageScrollWidth: document.documentElement.scrollWidth,
    figureRight: figure.getBoundingClientRect().right,
    wrapLeft: wrap.getBoundingClientRect().left, wrapRight: wrap.getBoundingClientRect().right,
    scrollWidth: wrap.scrollWidth, clientWidth: wrap.clientWidth, overflowX: style.overflowX,
    note: figure.querySelector('[data-figure-note]')?.textContent ?? '',
    headers, rows, firstValueLeft: firstValue.left,
  };
}"""

SCROLL_TO_END = """() => {
  const figure = document.querySelector("figure[data-chart='participants']");
  const table = figure.querySelector("table[aria-label='Participants']");
  const wrap = table.parentElement;
  wrap.scrollLeft = wrap.scrollWidth;
  const last = table.querySelector('tbody tr:first-child > :last-child').getBoundingClientRect();
  const first = table.querySelector('tbody tr:first-child > :first-child').getBoundingClientRect();
  const box = wrap.getBoundingClientRect();
  return { lastRight: last.right, firstLeft: first.left, wrapLeft: box.left, wrapRight: box.right,
           scrolled: wrap.scrollLeft };
}"""


def test_participants_table_labels_items_keeps_decimals_and_scrolls(
    live_app: LiveApp, browser: Any, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        sign_in(page, live_app)
        suffix = re.sub(r"\D", "", tmp_path.name)[-6:] or "0"
        title = f"Participants table {suffix}"
        study_id = create_study(page, title, f"participants-table-{suffix}", game=GAME, pace="fast")
        build_delay_design(page)
        apply_gaming_preset(page)
        import_ratings_csv(page, live_app, ratings_csv(), "in 3 sessions")
        open_settled_results(page, live_app, study_id, title)
        figure = page.locator("figure[data-chart='participants']")
        figure.scroll_into_view_if_needed()
        figure.locator("tbody tr[data-rater='R3']").wait_for()
        read = page.evaluate(READ_TABLE)
        figure.screenshot(path=str(tmp_path / "participants-table.png"))

        # Each item labelled: per scenario one column per item, headed by the item's name.
        for name in ITEM_NAMES:
            assert read["headers"].count(name) == len(DELAY_OF), (name, read["headers"])
        # Values as entered, one per cell (one session each), no training value anywhere.
        for rater, by_scenario in VALUES.items():
            cells = read["rows"][rater][8:]
            expected = [v for code in DELAY_OF for v in by_scenario[code]]
            assert cells == expected, (rater, cells, expected)
        shown = {c for cells in read["rows"].values() for c in cells[8:]}
        assert not {"6.95", "1.05"} & shown, shown
        assert "3 training ratings not shown" in read["note"], read["note"]

        # Never clipped: the figure ends inside the window, the page does not scroll
        # sideways, the table scrolls in its own box and its last column can be reached.
        assert read["figureRight"] <= read["windowWidth"] + 0.5, read
        assert read["pageScrollWidth"] <= read["windowWidth"], read
        if read["scrollWidth"] > read["clientWidth"]:
            assert read["overflowX"] in ("auto", "scroll"), read
        # The ratings begin inside the box unscrolled (the long reason wraps instead of
        # pushing every scenario column out of sight at the right).
        assert read["firstValueLeft"] < read["wrapRight"], read
        end = page.evaluate(SCROLL_TO_END)
        assert end["lastRight"] <= end["wrapRight"] + 1, end
        # The participant column stays in view while the table scrolls.
        assert abs(end["firstLeft"] - end["wrapLeft"]) <= 2, end
        assert not errors, errors
    finally:
        page.screenshot(path=str(tmp_path / "participants-last.png"), full_page=True)
        context.close()
