"""The steering console against a real ``qoe-steer run`` daemon (issue 33, item 3).

The daemon (steer_daemon.py) runs with the dry-run actuator and injected measurements
(``--measurements-from -``, a JSON line per 0.2 s), so its decisions are real: the example
policy (cloud-gaming.fast: delay ≤ 72.7 ms per direction) is evaluated by the daemon,
never by the test. The researcher registers the daemon in the console, sees both paths
with their KPIs beside the bounds and the flow on path a; once path a's upstream delay is
120 ms, the console shows the value over its bound, the flow on path b and the "moved"
event with its time to effect. What it would catch: a status document the backend refuses
(contract drift between daemon and console), a token not passed, a page that does not
poll, a move not shown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from a11y import assert_accessible
from flows import sign_in
from live_server import LiveApp
from playwright.sync_api import expect
from steer_daemon import QOE_STEER, TIMEOUT_MS, Daemon, register

pytestmark = pytest.mark.browser


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    assert QOE_STEER.is_file(), f"{QOE_STEER} is missing: uv sync installs the steer package"
    running = Daemon(tmp_path)
    try:
        yield running
    finally:
        running.stop()
        print(running.log.read_text(errors="replace")[-3000:])


def test_the_console_shows_a_live_daemon_and_its_move(
    live_app: LiveApp, page: Any, daemon: Daemon, tmp_path: Path
) -> None:
    sign_in(page, live_app)
    register(page, daemon, "E2E steer")

    table = page.get_by_role("table", name="Paths for cloud-gaming.fast")
    expect(table).to_be_visible(timeout=TIMEOUT_MS)
    expect(table).to_contain_text("≤ 72.7 ms", timeout=TIMEOUT_MS)
    flow = page.get_by_test_id("flow-game")
    expect(flow).to_contain_text("path a", timeout=TIMEOUT_MS)
    a_up = page.get_by_test_id("kpi-a-upstream")
    expect(a_up).to_contain_text("20.0 ms", timeout=TIMEOUT_MS)
    expect(a_up).to_contain_text("active, acceptable", timeout=TIMEOUT_MS)
    expect(page.get_by_test_id("kpi-b-upstream")).to_contain_text("25.0 ms")
    expect(page.get_by_test_id("state-summary")).to_contain_text("dry-run")

    daemon.a_delay_ms = 120.0  # path a degrades beyond the bound (72.7 ms)

    expect(a_up).to_contain_text("120.0 ms (over bound)", timeout=TIMEOUT_MS)
    expect(a_up.locator(".kpi--over").first).to_be_visible()
    expect(flow).to_contain_text("path b", timeout=TIMEOUT_MS)
    events = page.get_by_role("table", name="Last events")
    moved = events.get_by_role("row").filter(has_text="moved").filter(has_text="a → b")
    expect(moved.first).to_be_visible(timeout=TIMEOUT_MS)
    effect = moved.first.locator("td").last.inner_text()
    assert re.fullmatch(r"\d+ ms", effect), effect
    expect(page.get_by_test_id("kpi-b-upstream")).to_contain_text("active, acceptable")
    expect(a_up).to_contain_text("not acceptable")
    assert page.get_by_test_id("state-error").count() == 0
    assert_accessible(page, "the steering console")
    page.screenshot(path=str(tmp_path / "steering.png"), full_page=True)  # for triage
