"""The served app shows the example study, read from the API, in a real browser."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from live_server import LiveApp
from playwright.sync_api import expect

TABLE_4_1_CODES = ["B", "D1", "D2", "D3", "L1", "L2", "M1", "M2", "A1", "A2"]

pytestmark = pytest.mark.browser


def test_overview_lists_the_ten_scenarios_and_three_games(live_app: LiveApp, page: Any) -> None:
    page.goto(live_app.url + "/")
    scenarios = page.get_by_role("table", name="Network scenarios")
    expect(scenarios.locator("tbody tr")).to_have_count(len(TABLE_4_1_CODES))
    codes = scenarios.locator("tbody tr th[scope=row]").all_inner_texts()
    assert [code.strip() for code in codes] == TABLE_4_1_CODES

    a2 = scenarios.locator("tbody tr", has=page.locator("th", has_text="A2"))
    cells = [text.strip() for text in a2.locator("td").all_inner_texts()]
    # Label, then upstream delay/jitter/loss, then downstream delay/jitter/loss.
    assert cells[1:4] == ["0", "0", "0"]
    assert cells[4] == "120" and cells[6] in {"1", "1.0"}

    games = page.get_by_role("table", name="Games")
    expect(games.locator("tbody tr")).to_have_count(3)
    assert page.get_by_role("heading", level=1).inner_text().strip() != ""


def test_client_side_routes_are_served_by_the_app_shell(live_app: LiveApp, page: Any) -> None:
    response = page.goto(live_app.url + "/no/such/page")
    assert response is not None and response.status == 200
    page.get_by_text("not found", exact=False).first.wait_for()


def test_the_app_runs_on_the_configured_database_and_broker(live_app: LiveApp) -> None:
    """In CI (DATABASE_URL set) the browser suite exercises PostgreSQL and a Celery worker
    on Redis, not the demo's SQLite and in-process tasks."""
    probe = urllib.request.Request(
        f"{live_app.url}/healthz?worker=1",
        headers={"X-Health-Token": live_app.env["QOELAB_HEALTH_TOKEN"]},
    )
    with urllib.request.urlopen(probe, timeout=30) as response:
        health = json.load(response)
    if live_app.env.get("DATABASE_URL"):
        assert health["database"]["vendor"] == "postgresql", health
        assert health["broker"]["mode"] == "broker", health
        assert health["worker"]["ok"], health
    else:
        assert health["database"]["vendor"] == "sqlite", health
        assert health["broker"]["mode"] == "in-process", health
