"""Issue 35, item 1: the rating screen's scale labels never overlap and never break a word.

A study with the P.809 gaming preset (overall on ACR-5, input and video quality on the
7-point continuous slider, acceptance yes/no) is rated up to its first rating screen. On that
screen, at 1280 × 800 and at 390 × 844, in English and in German, the test reads every
visible label (slider anchor texts and numbers, the point scales' labels) and asserts:
no two label boxes intersect, each stays inside its option box or its slider, no word of a
label is drawn on two lines (each word's Range.getClientRects lie on one line), no label
sticks out of the viewport and the page does not scroll sideways. Before the fix (labels
7 rem wide at fixed places, `overflow-wrap: anywhere`) "Extremely bad" ran into "Bad" at
1,280 px and the phone showed "ExtrBadlyPoor … GooExcelleIdeal": the first two asserts
fail there.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flows import create_and_start_session, create_study, participant_until_free_play, sign_in
from live_server import LiveApp
from playwright.sync_api import expect
from test_rating_items import build_delay_design

pytestmark = pytest.mark.browser

TIMEOUT_MS = 60_000
GAME = "Label Racer"
VIEWPORTS = [(1280, 800), (390, 844)]
#: Boxes may touch; closer than this (px) counts as overlapping.
TOLERANCE_PX = 0.5

#: Every visible label on the rating screen: its text, box, and each word's line boxes.
READ_LABELS = """() => {
  const selector = '.p-slider__anchor-text, .p-slider__anchor-value, .p-scale__label';
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    return box.width > 0 && box.height > 0
      && style.visibility !== 'hidden' && style.display !== 'none';
  };
  const words = (el) => {
    const out = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const tops = [...range.getClientRects()]
          .filter((r) => r.width > 0).map((r) => Math.round(r.top));
        out.push({ word: match[0], lines: new Set(tops).size });
      }
    }
    return out;
  };
  return {
    width: window.innerWidth,
    scrollWidth: document.documentElement.scrollWidth,
    labels: [...document.querySelectorAll(selector)].filter(shown).map((el) => {
      const b = el.getBoundingClientRect();
      const holder = el.closest('.p-scale__option, .p-slider__anchors').getBoundingClientRect();
      return {
        inLeft: holder.left, inRight: holder.right,
        text: el.textContent, item: el.closest('[data-item]')?.getAttribute('data-item') ?? '',
        kind: el.className, left: b.left, right: b.right, top: b.top, bottom: b.bottom,
        words: words(el),
      };
    }),
  };
}"""


def layout_problems(read: dict[str, Any]) -> list[str]:
    """Overlapping boxes, words drawn on two lines, labels outside the viewport."""
    labels = read["labels"]
    problems = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            overlap_x = min(a["right"], b["right"]) - max(a["left"], b["left"])
            overlap_y = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if overlap_x > TOLERANCE_PX and overlap_y > TOLERANCE_PX:
                problems.append(f"{a['item']}: {a['text']!r} overlaps {b['text']!r}")
        problems += [
            f"{a['item']}: {w['word']!r} of {a['text']!r} broken over {w['lines']} lines"
            for w in a["words"]
            if w["lines"] > 1
        ]
        if a["left"] < -TOLERANCE_PX or a["right"] > read["width"] + TOLERANCE_PX:
            problems.append(f"{a['item']}: {a['text']!r} outside the viewport")
        if a["left"] < a["inLeft"] - TOLERANCE_PX or a["right"] > a["inRight"] + TOLERANCE_PX:
            problems.append(f"{a['item']}: {a['text']!r} sticks out of its option or slider")
    if read["scrollWidth"] > read["width"]:
        problems.append(f"the page scrolls sideways ({read['scrollWidth']} > {read['width']})")
    return problems


def settle(screen: Any) -> None:
    """Two animation frames: the resize observer has run and the labels are re-placed."""
    screen.evaluate(
        "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )


def apply_gaming_preset(page: Any) -> None:
    editor = page.get_by_role("region", name="Rating items")
    editor.get_by_role("button", name=re.compile("Gaming preset")).click()
    expect(editor.get_by_role("list", name="Rating items").locator(":scope > li")).to_have_count(4)
    editor.get_by_role("button", name="Save rating items").click()
    expect(editor.get_by_role("status")).to_have_text("Saved.")


def test_slider_and_scale_labels_fit_on_desktop_and_phone(
    live_app: LiveApp, browser: Any, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.on("dialog", lambda dialog: dialog.accept())
    errors: list[str] = []
    screen = None
    try:
        sign_in(page, live_app)
        suffix = re.sub(r"\D", "", tmp_path.name)[-6:] or "0"
        create_study(
            page, f"Label layout {suffix}", f"label-layout-{suffix}", game=GAME, pace="fast"
        )
        build_delay_design(page)
        apply_gaming_preset(page)
        link = create_and_start_session(page, f"{GAME} (fast)")

        screen = context.new_page()
        screen.on("pageerror", lambda error: errors.append(str(error)))
        screen.goto(link)
        participant_until_free_play(screen)
        screen.get_by_role("button", name="Start the rounds").click()
        screen.get_by_role("heading", level=1, name="Your rating").wait_for()
        expect(screen.get_by_role("slider")).to_have_count(2)

        found: dict[str, list[str]] = {}
        counts: dict[str, int] = {}
        for lang, first_label in (("en", "Extremely bad"), ("de", "Extrem schlecht")):
            if lang == "de":
                screen.locator(".p-lang").click()
            expect(screen.locator(".p-slider__anchor-text").first).to_have_text(first_label)
            for width, height in VIEWPORTS:
                screen.set_viewport_size({"width": width, "height": height})
                settle(screen)
                read = screen.evaluate(READ_LABELS)
                case = f"{lang} {width}×{height}"
                counts[case] = len(read["labels"])
                found[case] = layout_problems(read)
                screen.screenshot(path=str(tmp_path / f"labels-{lang}-{width}.png"), full_page=True)
        print("visible labels per case:", counts)
        assert all(n >= 12 for n in counts.values()), (
            counts
        )  # ends of both sliders, ACR and yes/no at least
        assert not any(found.values()), found
        assert not errors, errors
    finally:
        if screen is not None:  # free the station for the next test: the session ends here
            screen.screenshot(path=str(tmp_path / "labels-last.png"), full_page=True)
            page.get_by_role("button", name="Abort").click()
            page.get_by_test_id("session-state").filter(has_text="Aborted").wait_for()
        context.close()
