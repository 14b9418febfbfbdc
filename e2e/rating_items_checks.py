"""The study of test_rating_items.py (four delay scenarios, two training anchors, four items,
two sessions) and the checks of what it produced: the exports, the analysis document's item
sections and the results page's per-item view."""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from flows import open_settled_results
from live_server import LiveApp
from playwright.sync_api import expect

#: An analysis job runs in-process on a loaded machine: minutes, not seconds.
GAME = "Item Racer"
DELAYS = [0, 100, 200, 300]  # downstream, ms: B, D1, D2, D3
SCENARIOS = len(DELAYS)
TRAINING = 2  # the default anchors: the baseline and the most impaired scenario
SLOTS = TRAINING + SCENARIOS
ITEMS = ["overall", "input_quality", "video_quality", "acceptance"]
SESSIONS = 2  # a t-CI of a scenario's MOS needs two ratings of it
#: The fast-answer floor: above every keyboard rating here (well under a second each), so
#: both raters are flagged as implausibly fast whatever the machine's load.
FAST_FLOOR_MS = 10_000
ALL_GAMES = "all"  # qoe_analysis.stats.conditions.ALL_GAMES: the pooled rows


@dataclass
class Typed:
    """What the participant entered in one slot and how long it took, as the test saw it."""

    slot: int
    code: str
    training: bool
    values: dict[str, float]
    measured_s: float  # heading seen → Enter pressed (time.monotonic in the test)
    seen_lag_ms: float  # heading seen (page clock) − the page's first-shown time
    stored_ms: int | None = None  # response_ms as the server stored it


def api_json(page: Any, app: LiveApp, path: str) -> Any:
    response = page.request.get(f"{app.url}/api/v1/{path}")
    assert response.ok, f"{path}: {response.status} {response.text()[:500]}"
    return response.json()


# --- exports and analysis ------------------------------------------------------------------------


def check_exports(
    page: Any, app: LiveApp, study_id: int, typed: dict[int, list[Typed]]
) -> list[str]:
    """The tidy CSV and the items sidecar; returns the rater ids."""
    response = page.request.get(f"{app.url}/api/v1/studies/{study_id}/export/csv/")
    assert response.ok, response.status
    rows = list(csv.DictReader(io.StringIO(response.text())))
    for column in ["item", "rating", "training", "response_ms", "since_end_ms"]:
        assert column in rows[0], (column, list(rows[0]))
    assert len(rows) == SESSIONS * SLOTS * len(ITEMS), len(rows)
    test_rows = [r for r in rows if r["training"] == "0"]
    training_rows = [r for r in rows if r["training"] == "1"]
    assert len(test_rows) + len(training_rows) == len(rows), Counter(r["training"] for r in rows)
    assert len(training_rows) == SESSIONS * TRAINING * len(ITEMS)
    # Four rows (one per item) per scenario slot of each session.
    per_slot = Counter((r["session_id"], r["scenario"]) for r in test_rows)
    assert len(per_slot) == SESSIONS * SCENARIOS and set(per_slot.values()) == {4}, per_slot
    for r in rows:
        assert r["item"] in ITEMS, r
        assert int(r["response_ms"]) >= 0 and int(r["since_end_ms"]) >= 0, r
    assert Counter(r["item"] for r in rows) == {k: SESSIONS * SLOTS for k in ITEMS}
    # Each row carries its rating's values and response time.
    slots = {
        (str(session_id), t.code, t.training): t for session_id, ts in typed.items() for t in ts
    }
    for r in rows:
        t = slots[(r["session_id"], r["scenario"], r["training"] == "1")]
        assert abs(float(r["rating"]) - t.values[r["item"]]) < 1e-9, (r, t)
        assert int(r["response_ms"]) == t.stored_ms, (r, t)

    sidecar = api_json(page, app, f"studies/{study_id}/export/items/")
    assert [item["key"] for item in sidecar["items"]] == ITEMS, sidecar
    assert sidecar["acceptance"] == {"item": "acceptance"}, sidecar
    assert sidecar["min_response_ms"] == FAST_FLOOR_MS, sidecar
    return sorted({r["rater_id"] for r in rows})


def analysis_document(page: Any, study_id: int) -> dict[str, Any]:
    """The all-raters analysis the results page requested (cached: the same job)."""
    job = page.evaluate(
        """async (id) => {
            const csrf = document.cookie.split('; ').find((c) => c.startsWith('csrftoken='));
            const response = await fetch(`/api/v1/studies/${id}/analysis/`, {
                method: 'POST',
                headers: {
                    'Content-Type': 'application/json',
                    'X-CSRFToken': csrf ? csrf.split('=')[1] : '',
                },
                body: JSON.stringify({ reliable_only: false }),
            });
            return { status: response.status, body: await response.json() };
        }""",
        study_id,
    )
    assert job["status"] == 200, job  # 200: the job the results page ran, cached
    assert job["body"]["state"] == "succeeded", job["body"]["state"]
    result: dict[str, Any] = job["body"]["result"]
    return result


def check_results(
    page: Any, app: LiveApp, study_id: int, title: str, raters: list[str], errors: list[str]
) -> None:
    open_settled_results(page, app, study_id, title)
    # The primary item (overall) at the top level: the test slots only, training excluded.
    expect(page.get_by_test_id("analysis-summary")).to_contain_text(
        re.compile(rf"^{SESSIONS * SCENARIOS} ratings")
    )
    doc = analysis_document(page, study_id)
    check_item_sections(doc, raters)
    check_item_results_view(page, doc, raters)
    assert not errors, errors


def pooled_mos(doc: dict[str, Any], key: str) -> dict[str, dict[str, Any]]:
    """scenario → the item's MOS row over all games (one game here: the same numbers)."""
    rows = doc["per_item"][key]["mos"]
    pooled = [row for row in rows if row["game"] == ALL_GAMES] or rows
    return {row["scenario"]: row for row in pooled}


def check_item_sections(doc: dict[str, Any], raters: list[str]) -> None:
    """The analysis document's item sections: per item MOS with t-CIs, training excluded."""
    assert doc["training"]["excluded_rows"] == SESSIONS * TRAINING * len(ITEMS), doc["training"]
    assert [item["key"] for item in doc["items"]] == ITEMS, doc["items"]
    assert set(doc["per_item"]) == set(ITEMS), list(doc["per_item"])
    for key in ITEMS:
        mos = [row for row in doc["per_item"][key]["mos"] if row["game"] == GAME]
        assert len(mos) == SCENARIOS, (key, mos)
        for row in mos:
            assert row["n"] == SESSIONS, (key, row)
            assert row["ci95_low"] is not None and row["ci95_high"] is not None, (key, row)
            assert row["ci95_low"] <= row["mos"] <= row["ci95_high"], (key, row)
    for key in ("input_quality", "video_quality"):
        assert doc["per_item"][key]["sos"]["bounds"] == [1, 7], doc["per_item"][key]["sos"]
    overall = pooled_mos(doc, "overall")
    assert overall["B"]["mos"] > overall[f"D{SCENARIOS - 1}"]["mos"], overall
    # Response times: the test slots of every item; every rater under the floor.
    for key in ITEMS:
        assert doc["response_times"][key]["n"] == SESSIONS * SCENARIOS, doc["response_times"]
    fast = doc["fast_raters"]
    assert sorted(str(r["rater_id"]) for r in fast) == raters, fast
    assert all(r["share_fast"] == 1 for r in fast), fast
    print("per-item MOS:", json.dumps({k: pooled_mos(doc, k) for k in ITEMS})[:1500])


def check_item_results_view(page: Any, doc: dict[str, Any], raters: list[str]) -> None:
    """The results page's per-item view: each item's MOS and 95 % CI per scenario, as the
    analysis computed them; SOS on the item's bounds; response times and fast raters."""
    view = page.get_by_role("region", name="Rating items")
    chooser = view.get_by_label("Item", exact=True)
    for key in ITEMS:
        chooser.select_option(key)
        scale = doc["per_item"][key]["scale"]
        expect(view.get_by_test_id("item-scale")).to_contain_text(
            f"bounds {scale['min']} and {scale['max']}"
        )
        table = view.get_by_role("table", name=f"MOS of {key} per scenario")
        rows = table.locator("tbody tr")
        expect(rows).to_have_count(SCENARIOS)
        expected = pooled_mos(doc, key)
        for i in range(SCENARIOS):
            cells = rows.nth(i).locator("th, td").all_inner_texts()
            scenario, n, mos, ci, status = (c.strip() for c in cells)
            row = expected[scenario]
            assert (int(n), mos) == (row["n"], f"{row['mos']:.2f}"), (key, cells, row)
            assert ci == f"{row['ci95_low']:.2f} – {row['ci95_high']:.2f}", (key, cells, row)
            assert status, (key, cells, row)  # the interval's status (ok, clipped, ...)
    times = view.get_by_role("table", name="Response times").locator("tbody tr")
    expect(times).to_have_count(len(ITEMS))
    fast = view.get_by_test_id("fast-raters")
    for rater in raters:
        expect(fast).to_contain_text(rater)
