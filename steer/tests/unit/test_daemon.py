"""The daemon end to end on loopback: real reflectors and probes, the dry-run actuator.

Each test would catch: no move on an injected degradation (or a move without one), a
move that is not retried and alarmed when the controller never confirms, a move on
stale measurements, a status endpoint open without its token.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from qoe_steer.actuators.dry_run import DryRunActuator
from qoe_steer.config import SteerConfig, load_config
from qoe_steer.daemon import Daemon, wait_until
from qoe_steer.events import EventLog
from qoe_steer.model import DirectionStats, PathMeasurement
from qoe_steer.policy_source import LoadedPolicy
from qoe_steer.probes import Reflector
from qoe_steer.sources import CallableSource, InjectedSource, ProbeSource
from qoe_steer.status_server import StatusServer

from .conftest import TOKEN


@pytest.fixture
def reflectors() -> Iterator[tuple[int, int]]:
    pair = [Reflector("127.0.0.1", 0) for _ in range(2)]
    threads = [threading.Thread(target=r.serve_forever, args=(0.05,), daemon=True) for r in pair]
    for t in threads:
        t.start()
    yield pair[0].address[1], pair[1].address[1]
    for r in pair:
        r.close()


EMPTY = DirectionStats(0, 0, 0.0, None, None, None, None)
NOTHING = PathMeasurement("a", 0.0, 0.0, EMPTY, EMPTY, False)


def _kinds(daemon: Daemon) -> list[str]:
    return [e["kind"] for e in daemon.events.recent()]


def _delayed(m: PathMeasurement | None, extra_ms: float) -> PathMeasurement | None:
    """The measured window with ``extra_ms`` added to every delay (an injected impairment)."""
    if m is None:
        return None

    def shift(d: DirectionStats) -> DirectionStats:
        return replace(
            d,
            delay_ms_p50=(d.delay_ms_p50 or 0) + extra_ms,
            delay_ms_p95=(d.delay_ms_p95 or 0) + extra_ms,
            delay_ms_p99=(d.delay_ms_p99 or 0) + extra_ms,
        )

    return replace(m, upstream=shift(m.upstream), downstream=shift(m.downstream))


def test_probed_paths_and_an_injected_degradation_move_the_flow(
    write_config: Callable[..., Path], policy: LoadedPolicy, reflectors: tuple[int, int]
) -> None:
    config = load_config(write_config(ports=reflectors))
    probes = ProbeSource(config.paths, config.probe)
    degrade = threading.Event()

    def measure(at: float) -> dict[str, PathMeasurement | None]:
        ms = probes.measurements(at)
        if degrade.is_set():
            ms["a"] = _delayed(ms["a"], 100.0)
        return ms

    probes.start()
    actuator = DryRunActuator(deadline_s=0.3, retries=1, confirm_delay_s=0.02)
    daemon = Daemon(config, policy, actuator, CallableSource(measure), EventLog())
    daemon.start()
    try:
        assert wait_until(lambda: "moved" in _kinds(daemon), 2.0)  # the initial path
        assert wait_until(lambda: (daemon.last["a"] or NOTHING).fresh, 3.0)
        time.sleep(0.5)
        status = daemon.snapshot()
        a = status["paths"][0]["measurement"]
        assert a["fresh"] and a["upstream"]["received"] >= 5 and a["upstream"]["loss_pct"] == 0
        assert status["classes"][0]["flows"][0]["active_path"] == "a"
        assert _kinds(daemon).count("move") == 0  # nothing degraded: no move
        degraded_at = time.monotonic()
        degrade.set()
        assert wait_until(lambda: daemon.decider.flows["game"].active == "b", 3.0)
        took = time.monotonic() - degraded_at
        moved = [e for e in daemon.events.recent() if e["kind"] == "moved"][-1]
        assert moved["from_path"] == "a" and moved["to_path"] == "b"
        assert 0 < moved["time_to_effect_s"] < 0.3
        move = [e for e in daemon.events.recent() if e["kind"] == "move"][-1]
        assert move["measurement"]["a"]["downstream"]["delay_ms"] > 100
        assert move["bounds"]["downstream"]["delay_ms"] == pytest.approx(72.72, abs=0.01)
        assert config.decision.dwell_s <= took < 2.0  # the dwell time is respected
        assert actuator.moves[-1].port == "2"
    finally:
        daemon.stop()
        probes.stop()


def _injected(config: SteerConfig, lines: list[dict[str, Any]]) -> InjectedSource:
    return InjectedSource(
        config.paths,
        [json.dumps(x) for x in lines],
        window_s=config.probe.window_s,
        stale_after_s=10.0,
    )


def _path(pid: str, delay: float, fresh: bool = True) -> dict[str, Any]:
    d = {"delay_ms": delay, "loss_pct": 0.0}
    return {"id": pid, "upstream": d, "downstream": d, "fresh": fresh, "stale_reason": "lost"}


def test_unconfirmed_move_is_retried_then_alarmed(
    write_config: Callable[..., Path], policy: LoadedPolicy
) -> None:
    config = load_config(write_config())
    source = _injected(config, [{"paths": [_path("a", 120.0), _path("b", 20.0)]}])
    actuator = DryRunActuator(deadline_s=0.1, retries=2, confirm_delay_s=0.0)
    daemon = Daemon(config, policy, actuator, source, EventLog())
    daemon.start()
    try:
        assert wait_until(lambda: "moved" in _kinds(daemon), 2.0)
        actuator.fail_confirm = True
        assert wait_until(lambda: "controller_unconfirmed" in daemon.alarms, 3.0)
        kinds = _kinds(daemon)
        assert kinds.count("retry") == 2 and "move" in kinds
        assert daemon.decider.flows["game"].active == "a"  # unchanged until confirmed
        assert len([m for m in actuator.moves if m.port == "2"]) == 3  # 1 + 2 retries
        alarm = [e for e in daemon.events.recent() if e["kind"] == "alarm"][-1]
        assert alarm["action"] == "controller_unconfirmed"
        actuator.fail_confirm = False  # the controller is back: the next attempt succeeds
        assert wait_until(lambda: daemon.decider.flows["game"].active == "b", 3.0)
        assert wait_until(lambda: "controller_unconfirmed" not in daemon.alarms, 1.0)
        assert "alarm_cleared" in _kinds(daemon)
    finally:
        daemon.stop()


def test_all_paths_stale_no_move_and_alarm(
    write_config: Callable[..., Path], policy: LoadedPolicy
) -> None:
    config = load_config(write_config())
    lines = [{"paths": [_path("a", 500.0, fresh=False), _path("b", 10.0, fresh=False)]}]
    actuator = DryRunActuator(deadline_s=0.2, retries=0, confirm_delay_s=0.0)
    daemon = Daemon(config, policy, actuator, _injected(config, lines), EventLog())
    daemon.start()
    try:
        assert wait_until(lambda: "probes_lost" in daemon.alarms, 2.0)
        time.sleep(0.5)  # more than the dwell time
        assert _kinds(daemon).count("move") == 0
        assert "stale" in _kinds(daemon)
        assert daemon.decider.flows["game"].active == "a"
        assert [m.port for m in actuator.moves] == ["1"]  # only the initial placement
        assert daemon.snapshot()["alarms"][0]["code"] == "probes_lost"
    finally:
        daemon.stop()


def test_status_server_requires_the_token(
    write_config: Callable[..., Path], policy: LoadedPolicy
) -> None:
    config = load_config(write_config())
    daemon = Daemon(config, policy, DryRunActuator(), _injected(config, []), EventLog())
    server = StatusServer("127.0.0.1", 0, TOKEN, daemon.snapshot)
    server.start()
    base = f"http://127.0.0.1:{server.address[1]}"

    def get(path: str, token: str | None = None, method: str = "GET") -> tuple[int, Any]:
        req = urllib.request.Request(base + path, method=method)
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    try:
        assert get("/v1/status")[0] == 401
        assert get("/v1/status", "wrong-token-0000000")[0] == 401
        code, body = get("/v1/status", TOKEN)
        assert code == 200 and body["service"] == "qoe-steer"
        assert body["settings"]["delay_percentile"] == "p95"
        assert body["classes"][0]["bounds"]["upstream"]["loss_pct"] == pytest.approx(
            0.3636, abs=1e-4
        )
        assert [p["id"] for p in body["paths"]] == ["a", "b"] and body["paths"][0]["port"] == "1"
        assert get("/healthz") == (200, {"status": "ok"})
        assert get("/nope")[0] == 404
        assert get("/v1/status", TOKEN, method="POST")[0] == 405
    finally:
        server.stop()
