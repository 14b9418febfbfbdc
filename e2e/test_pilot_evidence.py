"""Issue 31, acceptance: on the pilot, no whisker leaves the plot area, warnings come first.

The pilot (``fixtures/data/pilot_random_rater.csv``, written by
``fixtures/data/make_pilot_random_rater.py``): 2 games (racing fast, soccer slow), a 12-scenario
grid, delay 0/50/100/200 ms × loss 0/1/3 %, each the same on both directions, 3 raters per
game of whom one rates at random. The researcher builds that grid in the design generator
(whose planning hint must say that delay alone forms a group the intra-rater rule can count,
and that a MOS interval of ±0.5 needs 18 raters per game), imports the ratings (scenario
codes mapped to the generated ones by their delay and loss), and opens the results explorer.

Checked there: the warnings list comes before every figure and names what is not assessable;
asking for reliable raters only is refused with the analysis' message; and on every MOS
figure (each factor of "MOS against one factor" too) every whisker stroke lies inside the
chart area. Then the Policy tab states what the policy was learnt from (ratings, raters,
the analysis' warnings) and that no class gets a joint bound on this evidence.

The DOM/JS contract this test relies on (change it together with the code named here):

* MOS figures are ``figure[data-chart^='mos-']`` with ``data-state`` "drawn" and one
  ``canvas`` drawn by react-chartjs-2; the Chart.js instance is found from the canvas's React
  fiber (a ref whose ``current.canvas`` is that canvas); its ``chartArea`` (CSS pixels) is the
  plot area.
* The whiskers are the canvas strokes of width 1.25 in ``#1c2430`` (``drawWhiskers`` in
  ``frontend/src/results/charts/errorBars.ts``); no other stroke of a MOS chart has both. The
  test records every ``moveTo``/``lineTo`` of every stroke (an init script wraps
  CanvasRenderingContext2D), redraws each chart once, and maps the points through the
  context's transform to CSS pixels; a figure with intervals must have drawn whiskers.
* The Policy tab (PolicyPage.tsx): ``[data-testid=policy-provenance]``, its warnings
  ``[data-testid=policy-warnings] li[data-code=<code>]``, the table "Joint corner per game class".
* The warnings panel (WarningList.tsx) is ``section[data-warnings]`` with
  ``li[data-warning=<code>]``; the reliable-raters refusal (ResultsPage.tsx) is
  ``[data-reliable-refused]`` (the combobox ``Raters``, value "reliable").
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest
from flows import (
    add_game,
    create_study,
    import_ratings_csv,
    open_settled_results,
    sign_in,
)
from live_server import REPO, LiveApp
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

PILOT = REPO / "fixtures" / "data" / "pilot_random_rater.csv"
GAMES = {"racing": "fast", "soccer": "slow"}
DELAYS = [0, 50, 100, 200]
LOSSES = [0, 1, 3]
TIMEOUT_MS = 60_000
#: Half a device pixel: a point on the area's edge, rounded by the transform, is inside.
TOLERANCE_PX = 0.5

#: Records each stroke's path (points in canvas pixels after the context's transform), its
#: width and colour, per canvas, in ``window.__qoelabStrokes`` (a Map canvas -> strokes).
RECORD_STROKES = """
(() => {
  const P = CanvasRenderingContext2D.prototype;
  const paths = new WeakMap();
  const strokes = new Map();
  window.__qoelabStrokes = strokes;
  const at = (ctx, x, y) => {
    const p = ctx.getTransform().transformPoint({ x, y });
    return [p.x, p.y];
  };
  const path = (ctx) => paths.get(ctx) ?? paths.set(ctx, []).get(ctx);
  const wrap = (name, before) => {
    const original = P[name];
    P[name] = function (...args) {
      before(this, args);
      return original.apply(this, args);
    };
  };
  wrap('beginPath', (ctx) => { paths.set(ctx, []); });
  wrap('moveTo', (ctx, [x, y]) => { path(ctx).push(at(ctx, x, y)); });
  wrap('lineTo', (ctx, [x, y]) => { path(ctx).push(at(ctx, x, y)); });
  wrap('stroke', (ctx) => {
    const list = strokes.get(ctx.canvas) ?? [];
    const colour = String(ctx.strokeStyle).toLowerCase();
    list.push({ width: ctx.lineWidth, colour, points: [...path(ctx)] });
    strokes.set(ctx.canvas, list);
  });
})();
"""

#: For each drawn MOS figure: its chart area, the whisker points drawn by one fresh redraw
#: (CSS pixels) and the number of intervals its datasets carry.
MEASURE = """
() => {
  const chartOf = (canvas) => {
    const key = Object.keys(canvas).find((k) => k.startsWith('__reactFiber$'));
    let fiber = key ? canvas[key] : null;
    for (let depth = 0; fiber && depth < 12; fiber = fiber.return, depth++) {
      const ref = fiber.ref && fiber.ref.current;
      if (ref && ref.canvas === canvas && ref.chartArea) return ref;
      let hook = fiber.memoizedState;
      for (; hook && typeof hook === 'object' && 'next' in hook; hook = hook.next) {
        const value = hook.memoizedState && hook.memoizedState.current;
        if (value && value.canvas === canvas && value.chartArea) return value;
      }
    }
    return null;
  };
  const given = (v) => v !== null && v !== undefined;
  const intervalsOf = (chart) => chart.data.datasets.reduce((n, d, i) => {
    const bars = d.errorBars;
    if (!bars || !chart.isDatasetVisible(i)) return n;
    const drawn = bars.low.filter((low, j) => given(low) && given(bars.high[j])
      && !(bars.status && bars.status[j] === 'n_too_small'));
    return n + drawn.length;
  }, 0);
  const figures = document.querySelectorAll("figure[data-chart^='mos-'][data-state='drawn']");
  return [...figures].map((figure) => {
    const canvas = figure.querySelector('canvas');
    const chart = canvas ? chartOf(canvas) : null;
    if (!chart) return { id: figure.dataset.chart, chart: false };
    window.__qoelabStrokes.set(canvas, []);
    chart.draw();
    const dpr = chart.currentDevicePixelRatio || 1;
    const strokes = window.__qoelabStrokes.get(canvas) ?? [];
    const whiskers = strokes.filter((s) => Math.abs(s.width - 1.25) < 1e-9
      && s.colour === '#1c2430');
    const { left, right, top, bottom } = chart.chartArea;
    return {
      id: figure.dataset.chart,
      chart: true,
      area: { left, right, top, bottom },
      intervals: intervalsOf(chart),
      points: whiskers.flatMap((s) => s.points.map(([x, y]) => [x / dpr, y / dpr])),
    };
  });
}
"""


def pilot_csv_for(scenarios: list[dict[str, Any]]) -> str:
    """The pilot's ratings with its scenario codes replaced by the study's (same delay and
    loss, both directions), so that the importer matches each row to its scenario."""
    code_of = {
        (float(s["downstream"]["delay_ms"]), float(s["downstream"]["loss_pct"])): s["code"]
        for s in scenarios
    }
    rows = list(csv.DictReader(io.StringIO(PILOT.read_text(encoding="utf-8"))))
    assert len(rows) == 72, len(rows)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        assert row["ds_delay_ms"] == row["us_delay_ms"] and row["ds_loss_pct"] == row["us_loss_pct"]
        row["scenario"] = code_of[(float(row["ds_delay_ms"]), float(row["ds_loss_pct"]))]
        writer.writerow(row)
    return out.getvalue()


def build_pilot_grid(page: Any) -> None:
    """The pilot's grid in the design generator, and its planning hint."""
    generator = page.get_by_role("region", name="Design generator")
    generator.get_by_role("radio", name=re.compile("Full factorial grid")).check()
    for index, (factor, levels) in enumerate((("Delay", DELAYS), ("Loss", LOSSES)), start=1):
        if index > 1:
            generator.get_by_role("button", name="Add factor").click()
        group = generator.get_by_role("group", name=f"Factor {index}")
        group.get_by_label("Factor", exact=True).select_option(label=factor)
        group.get_by_label("Direction").select_option("both")
        group.get_by_label(re.compile("^Levels")).fill(", ".join(map(str, levels)))
    count = len(DELAYS) * len(LOSSES)
    expect(generator.get_by_test_id("design-preview-size")).to_have_text(
        re.compile(rf"^{count} scenarios")
    )
    hint = generator.get_by_test_id("design-planning")
    expect(hint).to_contain_text("needs 18 raters per game")
    expect(hint).to_contain_text("P.913 screening needs ≥ 4 raters per game")
    expect(hint).to_contain_text("varies delay alone over 4 scenarios with 4 levels")
    generator.get_by_role("button", name="Apply design").click()
    expect(generator.get_by_test_id("design-applied")).to_contain_text(
        f"the study now has {count} scenario(s)"
    )


def whiskers_inside(page: Any, label: str) -> int:
    """Every whisker point of every drawn MOS figure lies in its chart area; returns the
    number of figures measured."""
    figures = page.evaluate(MEASURE)
    assert figures, f"{label}: no drawn MOS figure"
    for figure in figures:
        where = f"{label}, {figure['id']}"
        assert figure["chart"], f"{where}: no Chart.js instance found from the canvas"
        area = figure["area"]
        if figure["intervals"]:
            assert figure["points"], f"{where}: {figure['intervals']} intervals, no whisker drawn"
        outside = [
            (round(x, 2), round(y, 2))
            for x, y in figure["points"]
            if not (
                area["left"] - TOLERANCE_PX <= x <= area["right"] + TOLERANCE_PX
                and area["top"] - TOLERANCE_PX <= y <= area["bottom"] + TOLERANCE_PX
            )
        ]
        assert not outside, f"{where}: whisker points outside the plot area {area}: {outside[:8]}"
    return len(figures)


def test_the_pilots_whiskers_stay_in_the_plot_and_warnings_come_first(
    live_app: LiveApp, browser: Any, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    context.add_init_script(script=RECORD_STROKES)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: dialog.accept())
    try:
        _pilot(live_app, page, tmp_path)
        assert not errors, errors
    finally:
        page.screenshot(path=str(tmp_path / "pilot-last.png"), full_page=True)
        context.close()


def _pilot(app: LiveApp, page: Any, tmp: Path) -> None:
    sign_in(page, app)
    suffix = re.sub(r"\D", "", tmp.name)[-6:] or "0"
    title = f"Pilot {suffix}"
    (first, first_pace), (second, second_pace) = GAMES.items()
    study_id = create_study(page, title, f"pilot-{suffix}", game=first, pace=first_pace)
    add_game(page, second, second_pace)
    build_pilot_grid(page)

    study = page.request.get(f"{app.url}/api/v1/studies/{study_id}/")
    assert study.ok, study.status
    import_ratings_csv(
        page, app, pilot_csv_for(study.json()["scenarios"]), "Imported 72 ratings in 6 sessions"
    )
    open_settled_results(page, app, study_id, title)

    # The warnings come first, and say what cannot be assessed.
    warnings = page.locator("section[data-warnings]")
    expect(warnings).to_have_count(1)
    expect(warnings.locator("li[data-warning='not_assessable']").first).to_be_visible()
    assert page.evaluate(
        "() => { const w = document.querySelector('section[data-warnings]');"
        " return [...document.querySelectorAll('figure[data-chart]')].every("
        "(f) => w.compareDocumentPosition(f) & Node.DOCUMENT_POSITION_FOLLOWING); }"
    ), "a figure comes before the warnings"

    # Every MOS figure, and "MOS against one factor" for each of its factors.
    measured = whiskers_inside(page, "all raters")
    by_factor = page.locator("figure[data-chart='mos-by-factor']")
    if by_factor.count():
        select = by_factor.get_by_label("Factor", exact=True)
        for option in select.locator("option").all_inner_texts():
            select.select_option(label=option)
            expect(by_factor).to_have_attribute("data-state", "drawn")
            measured += whiskers_inside(page, f"MOS against {option}")
    assert measured >= 2, measured

    # Reliable raters only: the analysis refuses (nobody passes on this evidence), in words.
    page.get_by_role("combobox", name="Raters", exact=True).select_option("reliable")
    refusal = page.locator("[data-reliable-refused]").first
    expect(refusal).to_contain_text("min_reliable_raters", timeout=TIMEOUT_MS)

    # The Policy tab: what the policy was learnt from, first; no class gets a joint bound.
    page.goto(f"{app.url}/console/studies/{study_id}/policy")
    provenance = page.get_by_test_id("policy-provenance")
    expect(provenance).to_contain_text("72 ratings of 6 raters", timeout=TIMEOUT_MS)
    expect(
        page.get_by_test_id("policy-warnings").locator("li[data-code='no_joint_bound']")
    ).to_have_count(1)
    joint = page.get_by_role("table", name="Joint corner per game class")
    expect(joint.locator("tbody tr")).to_have_count(3)  # fast, slow and all games
    expect(joint.locator("tbody tr").filter(has_text="no joint bound: ")).to_have_count(3)
