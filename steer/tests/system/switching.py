"""The real daemon in the Level A lab: injected measurements in, packets on the uplinks out.

:class:`Steering` builds a :class:`~qoe_steer.daemon.Daemon` from a configuration (the
policy fixtures/policies/dissertation_shape.policy.json, paths ``a`` = port 2 and ``b`` =
port 3, the actuator made by ``create_actuator`` from the ``[actuator]`` table), a
:class:`~qoe_steer.sources.CallableSource` over :class:`Injected` (the path named ``bad``
has 150 ms one-way delay, the others 20 ms; the bound of cloud-gaming.fast is 72.7 ms)
and an event log that stamps every event with CLOCK_MONOTONIC, the clock of the
receiver's per-uplink arrival times. :func:`switch_many` makes the active path violate,
waits for the daemon's ``move`` (the dwell's end: its decision) and ``moved`` (confirmed)
events, and times the first packet on the new uplink. The retry logic is the daemon's.
"""

from __future__ import annotations

import json
import os
import statistics
import threading
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lab import Lab
from qoe_steer.actuators.registry import create_actuator
from qoe_steer.config import SteerConfig, parse_config
from qoe_steer.daemon import Daemon
from qoe_steer.events import Event, EventLog
from qoe_steer.model import DirectionStats, PathMeasurement
from qoe_steer.policy_source import load_policy
from qoe_steer.sources import CallableSource, Measurements, MeasurementSource
from qoe_steer.status_server import StatusServer

REPO = Path(__file__).resolve().parents[3]
POLICY = REPO / "fixtures" / "policies" / "dissertation_shape.policy.json"
TOKEN = "level-a-status-token-0123"
IFACE = {"a": "cli-a", "b": "cli-b"}
BAD_MS, GOOD_MS = 150.0, 20.0


def steer_config(
    actuator: dict[str, Any],
    probe_ports: tuple[int, int] = (7001, 7002),
    probe_host: str = "10.0.0.2",
) -> SteerConfig:
    """The daemon's configuration for the lab (dwell 0.2 s, evaluated every 20 ms)."""
    paths = [
        {"id": pid, "probe_host": probe_host, "probe_port": probe_ports[i], "port": port}
        for i, (pid, port) in enumerate((("a", 2), ("b", 3)))
    ]
    data = {
        "policy": {"source": str(POLICY)},
        "probe": {"interval_s": 0.01, "window_s": 0.5, "stale_after_s": 0.6, "min_samples": 10},
        "decision": {"dwell_s": 0.2, "hysteresis": 0.2, "evaluate_every_s": 0.02},
        "actuator": actuator,
        "status": {"listen": "127.0.0.1:0", "token": TOKEN},
        "path": paths,
        "flow": [{"id": "game", "class": "cloud-gaming.fast", "initial_path": "a",
                  "match": {"proto": "udp", "dst_ip": "10.0.0.2", "dst_port": 5004}}],
    }  # fmt: skip
    return parse_config(data, base_dir=REPO)


def _direction(delay_ms: float) -> DirectionStats:
    return DirectionStats(50, 50, 0.0, delay_ms, delay_ms, delay_ms, 1.0)


class Injected:
    """Measurements injected into the decision: ``bad`` violates the delay bound."""

    def __init__(self, paths: tuple[str, ...] = ("a", "b")) -> None:
        self.paths = paths
        self.bad: str | None = None

    def __call__(self, at: float) -> Measurements:
        out: Measurements = {}
        for p in self.paths:
            d = _direction(BAD_MS if p == self.bad else GOOD_MS)
            out[p] = PathMeasurement(p, at, 0.5, d, d, True)
        return out


class TimedEvents(EventLog):
    """The event log, each event kept with its CLOCK_MONOTONIC ns."""

    def __init__(self) -> None:
        super().__init__()
        self.timed: list[tuple[int, Event]] = []
        self._cv = threading.Condition()

    def append(self, event: Event) -> None:
        t = time.monotonic_ns()
        super().append(event)
        with self._cv:
            self.timed.append((t, event))
            self._cv.notify_all()

    def wait(
        self, kind: str, after_ns: int, timeout_s: float, to_path: str | None = None
    ) -> tuple[int, Event] | None:
        """The first ``kind`` event (to ``to_path``) stamped after ``after_ns``."""
        deadline = time.monotonic() + timeout_s

        def found() -> tuple[int, Event] | None:
            for t, e in self.timed:
                if t > after_ns and e.kind == kind and to_path in (None, e.to_path):
                    return t, e
            return None

        with self._cv:
            while (hit := found()) is None and time.monotonic() < deadline:
                self._cv.wait(max(0.0, deadline - time.monotonic()))
            return hit

    def kinds(self, after_ns: int = 0) -> list[str]:
        with self._cv:
            return [e.kind for t, e in self.timed if t > after_ns]


class Steering:
    """Daemon + status server over one config; ``stop()`` ends both."""

    def __init__(self, config: SteerConfig, source: MeasurementSource | None = None) -> None:
        self.config = config
        self.injected = Injected()
        self.source = source or CallableSource(self.injected)
        self.events = TimedEvents()
        flows = [f.spec for f in config.flows]
        actuator = create_actuator(config.actuator, config.paths, flows)
        policy = load_policy(config.policy.source, base_dir=config.base_dir)
        self.daemon = Daemon(config, policy, actuator, self.source, self.events)
        self.server = StatusServer("127.0.0.1", 0, TOKEN, self.daemon.snapshot)
        self.server.start()

    def start(self) -> None:
        """Start the loop; threads it creates inherit the calling thread's namespace."""
        self.daemon.start()

    def stop(self) -> None:
        self.daemon.stop()
        self.server.stop()

    def status(self) -> dict[str, Any]:
        """``GET /v1/status`` over HTTP with the Bearer token."""
        host, port = self.server.address
        request = urllib.request.Request(
            f"http://{host}:{port}/v1/status", headers={"Authorization": f"Bearer {TOKEN}"}
        )
        with urllib.request.urlopen(request, timeout=5) as answer:
            doc: dict[str, Any] = json.load(answer)
        return doc

    def active_path(self) -> str | None:
        flow = self.status()["classes"][0]["flows"][0]
        return None if flow["active_path"] is None else str(flow["active_path"])


@dataclass
class Switch:
    to_path: str
    inject_to_decision_s: float  # violation injected → daemon's "move" event (dwell + step)
    effect_s: float  # "move" event → first packet on the new uplink
    confirm_s: float  # "moved" event's time_to_effect_s (decision → confirmed)
    late_on_old: int  # packets on the old uplink later than 20 ms after the confirmation


def switch_many(lab: Lab, steering: Steering, count: int, settle_s: float) -> list[Switch]:
    """Start on ``a``, then ``count`` injected violations of the active path a→b→a…"""
    events = steering.events
    assert events.wait("moved", 0, 10.0, "a") is not None, events.kinds()
    assert lab.wait_packet(IFACE["a"], time.monotonic_ns(), 5.0) is not None, "no traffic on a"
    done: list[Switch] = []
    for i in range(count):
        new, old = ("b", "a") if i % 2 == 0 else ("a", "b")
        t0 = time.monotonic_ns()
        steering.injected.bad = old
        decided = events.wait("move", t0, 5.0, new)
        assert decided is not None, f"switch {i}: no decision to {new}: {events.kinds(t0)}"
        moved = events.wait("moved", decided[0], 10.0, new)
        assert moved is not None, f"switch {i}: not confirmed: {events.kinds(t0)}"
        first = lab.wait_packet(IFACE[new], decided[0], 10.0)
        assert first is not None, f"switch {i}: no packet on {new} within 10 s of the decision"
        time.sleep(settle_s)
        late = lab.arrived(IFACE[old], max(first, moved[0]) + 20_000_000)
        confirm = moved[1].time_to_effect_s
        assert confirm is not None
        done.append(Switch(new, (decided[0] - t0) / 1e9, (first - decided[0]) / 1e9,
                           confirm, len(late)))  # fmt: skip
    return done


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (the smallest value with at least q % of values ≤ it)."""
    ordered = sorted(values)
    rank = max(1, int(-(-q * len(ordered) // 100)))
    return ordered[rank - 1]


def _stats(values: list[float]) -> dict[str, float]:
    return {"p50": statistics.median(values), "p95": percentile(values, 95), "max": max(values)}


def summarize(kind: str, switches: list[Switch], retries: int) -> dict[str, Any]:
    """p50/p95/max of the times; printed and written to var/bench/steer-level-a.json (one
    entry per actuator) when var/ exists."""
    summary = {
        "actuator": kind,
        "switches": len(switches),
        "via": "qoe_steer.daemon.Daemon, injected measurements, dwell 0.2 s",
        "decision_to_first_packet_s": _stats([s.effect_s for s in switches]),
        "decision_to_confirmed_s": _stats([s.confirm_s for s in switches]),
        "injection_to_decision_s": _stats([s.inject_to_decision_s for s in switches]),
        "late_packets_on_old_max": max(s.late_on_old for s in switches),
        "retries": retries,
        "per_switch": [asdict(s) for s in switches],
    }
    print(json.dumps({k: v for k, v in summary.items() if k != "per_switch"}))
    var = Path(os.environ.get("QOELAB_VAR", REPO / "var"))
    if var.is_dir():
        out = var / "bench" / "steer-level-a.json"
        out.parent.mkdir(exist_ok=True)
        existing = json.loads(out.read_text()) if out.exists() else {}
        existing[kind] = summary
        out.write_text(json.dumps(existing, indent=2) + "\n")
    return summary
