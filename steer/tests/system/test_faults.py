"""Fault tests through the real daemon, read back over its status endpoint (HTTP).

* The controller goes away (Faucet stopped, os-ken app killed) while the flow is on path
  a, then a's injected measurements violate the policy: the daemon decides to move, emits
  ``retry`` events, then alarm ``controller_unconfirmed``; the flow stays on a in the
  daemon's state and on the wire (no packet on uplink b). Would catch: a move reported as
  done when the controller is down, no retry, no alarm, the state changed before a
  confirmation, a Faucet file rewritten while Faucet is dead, a dead controller taking the
  forwarding state with it.
* The probes are lost (the daemon's own ProbeSource; the reflectors are stopped): first
  the active path's, then every path's. No move (though b alone is fresh and acceptable),
  then alarm ``probes_lost``. Would catch: a stale measurement read as a violation or
  as good, a move on a missing measurement, no alarm when the daemon is blind.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from controllers import faucet_table, start_faucet, start_osken
from lab import Lab, in_netns
from qoe_steer.probes import Reflector
from qoe_steer.sources import ProbeSource
from switching import IFACE, Steering, steer_config

pytestmark = pytest.mark.system


def wait_status(
    steering: Steering, predicate: Callable[[dict[str, Any]], bool], timeout_s: float
) -> dict[str, Any]:
    """The first status document (over HTTP) that satisfies ``predicate``, polled."""
    deadline = time.monotonic() + timeout_s
    doc = steering.status()
    while not predicate(doc) and time.monotonic() < deadline:
        time.sleep(0.05)
        doc = steering.status()
    assert predicate(doc), doc
    return doc


def alarm_codes(doc: dict[str, Any]) -> set[str]:
    return {a["code"] for a in doc["alarms"]}


def active(doc: dict[str, Any]) -> str | None:
    flow: dict[str, Any] = doc["classes"][0]["flows"][0]
    return flow["active_path"]


def _on_a(lab: Lab, steering: Steering) -> None:
    assert steering.events.wait("moved", 0, 10.0, "a") is not None, steering.events.kinds()
    assert lab.wait_packet(IFACE["a"], time.monotonic_ns(), 5.0) is not None, "no traffic on a"


def _unconfirmed_stays_on_a(lab: Lab, steering: Steering, kill: Callable[[], None]) -> None:
    _on_a(lab, steering)
    kill()
    t0 = time.monotonic_ns()
    steering.injected.bad = "a"
    assert steering.events.wait("move", t0, 5.0, "b") is not None, steering.events.kinds(t0)
    retries = steering.daemon.actuator.retries
    budget = (retries + 1) * steering.daemon.actuator.deadline_s + 3.0
    doc = wait_status(steering, lambda d: "controller_unconfirmed" in alarm_codes(d), budget)
    kinds = steering.events.kinds(t0)
    assert kinds.count("retry") == retries, kinds
    assert kinds.index("retry") < kinds.index("alarm"), kinds
    assert "moved" not in kinds, kinds
    assert active(doc) == "a" and doc["actuator"]["healthy"] is False, doc
    time.sleep(0.3)
    assert lab.arrived(IFACE["b"], t0) == [], "packets moved although nothing was confirmed"
    on_a = lab.arrived(IFACE["a"], time.monotonic_ns() - 300_000_000)
    assert len(on_a) > 100, f"only {len(on_a)} packets on a in the last 0.3 s"


def test_faucet_down_retries_then_alarms(controlled_lab: Lab, tool_venv: Path) -> None:
    process, config = start_faucet(controlled_lab, tool_venv)
    steering = Steering(steer_config(faucet_table(controlled_lab, config, process.pid, 0.5)))
    controlled_lab.start_traffic()
    in_netns(controlled_lab.switch.netns, steering.start)
    before: list[str] = []

    def kill() -> None:
        process.terminate()
        process.wait(timeout=10)
        before.append(config.read_text())

    try:
        _unconfirmed_stays_on_a(controlled_lab, steering, kill)
    finally:
        steering.stop()
    assert [config.read_text()] == before, "the config was rewritten while Faucet was down"


def test_osken_app_gone_retries_then_alarms(controlled_lab: Lab, tool_venv: Path) -> None:
    socket_path = controlled_lab.switch.dir / "osken.sock"
    process = start_osken(controlled_lab, tool_venv, socket_path)
    table = {"kind": "osken", "socket": str(socket_path), "deadline_s": 0.5, "retries": 2}
    steering = Steering(steer_config(table))
    controlled_lab.start_traffic()
    steering.start()

    def kill() -> None:
        process.kill()
        process.wait(timeout=10)

    try:
        _unconfirmed_stays_on_a(controlled_lab, steering, kill)
    finally:
        steering.stop()


@pytest.fixture
def reflectors() -> Iterator[dict[str, Reflector]]:
    """One reflector per path on 127.0.0.1 (free ports), each served by a thread."""
    out = {p: Reflector("127.0.0.1", 0) for p in ("a", "b")}
    for r in out.values():
        threading.Thread(target=r.serve_forever, kwargs={"poll_s": 0.05}, daemon=True).start()
    yield out
    for r in out.values():
        r.close()


def test_probes_lost_no_move_then_alarm(ovs_lab: Lab, reflectors: dict[str, Reflector]) -> None:
    rundir = ovs_lab.switch.env["OVS_RUNDIR"]
    ports = (reflectors["a"].address[1], reflectors["b"].address[1])
    table = {"kind": "ovs", "bridge": "br0", "ovs_rundir": rundir}
    config = steer_config(table, probe_ports=ports, probe_host="127.0.0.1")
    steering = Steering(config, ProbeSource(config.paths, config.probe))
    ovs_lab.start_traffic()
    steering.start()

    def fresh(doc: dict[str, Any]) -> dict[str, bool]:
        return {p["id"]: bool(p["measurement"] and p["measurement"]["fresh"]) for p in doc["paths"]}

    try:
        _on_a(ovs_lab, steering)
        wait_status(steering, lambda d: fresh(d) == {"a": True, "b": True}, 5.0)
        t0 = time.monotonic_ns()
        reflectors["a"].close()  # the active path's probes are lost; b stays fresh and good
        wait_status(steering, lambda d: fresh(d) == {"a": False, "b": True}, 5.0)
        time.sleep(4 * config.decision.dwell_s)
        assert active(steering.status()) == "a"
        reflectors["b"].close()
        doc = wait_status(steering, lambda d: "probes_lost" in alarm_codes(d), 5.0)
        assert fresh(doc) == {"a": False, "b": False} and active(doc) == "a", doc
        time.sleep(4 * config.decision.dwell_s)
        kinds = steering.events.kinds(t0)
        assert "move" not in kinds and "hold_best" not in kinds, kinds
        assert "stale" in kinds and "alarm" in kinds, kinds
        assert ovs_lab.arrived(IFACE["b"], t0) == [], "the flow moved on stale measurements"
        assert len(ovs_lab.arrived(IFACE["a"], time.monotonic_ns() - 300_000_000)) > 100
    finally:
        steering.stop()
