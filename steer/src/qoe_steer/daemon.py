"""The steering loop: measurements → decider every ``evaluate_every_s`` → actuator.

A move runs in its own thread: ``move``, then ``confirm`` polled every 10 ms until the
actuator's ``deadline_s`` (a refused ``move``/``confirm`` waits out the deadline too:
a restarting controller gets the time); unconfirmed or refused ⇒ event ``retry`` and again,
up to ``retries`` times, then alarm ``controller_unconfirmed`` and a health ``check()``; the
flow is not tried again for (retries + 1) × deadline_s. The decider's active path changes
only on confirmation; time_to_effect_s = confirmation time − decision time.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from qoe_steer import __version__
from qoe_steer.actuators.base import Actuator, ActuatorError
from qoe_steer.config import FlowConfig, SteerConfig
from qoe_steer.decide import Decider, DecideSettings, class_bounds
from qoe_steer.events import Event, EventKind, EventLog
from qoe_steer.model import Decision, PathMeasurement
from qoe_steer.policy_source import LoadedPolicy
from qoe_steer.sources import Measurements, MeasurementSource
from qoe_steer.status import status_document

CONFIRM_POLL_S = 0.01


def measurement_evidence(measurements: Measurements) -> dict[str, Any]:
    """The fresh paths' KPIs with sample counts, as events carry them."""
    out: dict[str, Any] = {}
    for path, m in measurements.items():
        if m is None or not m.fresh:
            continue
        entry = m.as_policy_path()
        entry.pop("id")
        entry["n"] = {"upstream": m.upstream.received, "downstream": m.downstream.received}
        out[path] = entry
    return out


def _stale_reason(m: PathMeasurement | None) -> str:
    return "no measurement" if m is None else str(m.stale_reason)


class Daemon:
    """Runs the loop; :meth:`snapshot` is the status document."""

    def __init__(
        self,
        config: SteerConfig,
        policy: LoadedPolicy,
        actuator: Actuator,
        source: MeasurementSource,
        events: EventLog,
    ) -> None:
        self.config, self.policy, self.actuator = config, policy, actuator
        self.source, self.events = source, events
        settings = DecideSettings(
            dwell_s=config.decision.dwell_s,
            hysteresis=config.decision.hysteresis,
            delay_key=f"delay_ms_{config.probe.delay_percentile}",
            revertive=config.decision.revertive,
            wait_to_restore_s=config.decision.wait_to_restore_s,
        )
        self.decider = Decider(
            policy.document,
            [f.spec for f in config.flows],
            settings,
            initial={f.spec.id: f.initial_path for f in config.flows},
        )
        self.flows = {f.spec.id: f for f in config.flows}
        self.lock = threading.RLock()
        self.started_at_unix = time.time()
        self._started = time.monotonic()
        self.healthy = True
        self.health_detail: str | None = None
        self.alarms: dict[str, tuple[str, float]] = {}
        self._controller_alarms: dict[str, str] = {}
        self._decider_alarms: dict[str, str] = {}
        self.last: Measurements = {p.id: None for p in config.paths}
        self._in_flight: set[str] = set()
        self._blocked_until: dict[str, float] = {}
        self._last_action: dict[str, str] = {}
        self._stale: list[str] = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    # -- events and alarms ------------------------------------------------------------
    def unix(self, mono: float) -> float:
        return mono - time.monotonic() + time.time()

    def emit(self, kind: EventKind, message: str, **fields: Any) -> None:
        self.events.append(Event(at_unix=time.time(), kind=kind, message=message, **fields))

    def _sync_alarms(self) -> None:
        """Raise the decider's and the controller's alarms that are new, clear the others."""
        with self.lock:
            wanted = {**self._decider_alarms, **self._controller_alarms}
            for code, message in wanted.items():
                if code not in self.alarms:
                    self.alarms[code] = (message, time.time())
                    self.emit("alarm", f"{code}: {message}", action=code)
            for code in [c for c in self.alarms if c not in wanted]:
                del self.alarms[code]
                self.emit("alarm_cleared", f"{code} cleared", action=code)

    def _check_health(self) -> None:
        try:
            self.actuator.check()
            self.healthy, self.health_detail = True, None
            self._controller_alarms.pop("controller_unreachable", None)
        except ActuatorError as exc:
            self.healthy, self.health_detail = False, str(exc)
            self._controller_alarms["controller_unreachable"] = str(exc)

    # -- the loop -----------------------------------------------------------------------
    def start(self) -> None:
        """Check the controller, put every flow on its initial path, start the threads."""
        self._started = time.monotonic()
        self._check_health()
        self.emit("start", f"qoe-steer {__version__} started; policy {self.policy.source}")
        self._sync_alarms()
        self.source.start()
        now = time.monotonic()
        for flow in self.config.flows:
            self._spawn(flow, flow.initial_path, now, "move")
        loop = threading.Thread(target=self._loop, name="qoe-steer-decide", daemon=True)
        self._threads.append(loop)
        loop.start()

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=5.0)
        self.source.stop()

    def _loop(self) -> None:
        period = self.config.decision.evaluate_every_s
        next_at = time.monotonic()
        while not self._stop.is_set():
            self.evaluate_once(time.monotonic())
            next_at = max(next_at + period, time.monotonic())
            self._stop.wait(max(0.0, next_at - time.monotonic()))

    def evaluate_once(self, now: float) -> list[Decision]:
        """One step: measure, decide, start the moves, update alarms and events."""
        measurements = self.source.measurements(now)
        with self.lock:
            self.last = measurements
            decisions = self.decider.step(now, measurements)
            stale = sorted(p for p, m in measurements.items() if m is None or not m.fresh)
            if stale and stale != self._stale:
                reasons = "; ".join(f"{p}: {_stale_reason(measurements[p])}" for p in stale)
                self.emit("stale", f"stale measurements (no move on them): {reasons}")
            self._stale = stale
            for d in decisions:
                self._handle(d, now, measurements)
        alarms = dict(self.decider.alarms)
        if now - self._started < self.config.probe.window_s + self.config.probe.stale_after_s:
            alarms.pop("probes_lost", None)  # the first windows are still filling
        self._decider_alarms = alarms
        self._sync_alarms()
        return decisions

    def _handle(self, d: Decision, now: float, measurements: Measurements) -> None:
        previous = self._last_action.get(d.flow)
        self._last_action[d.flow] = d.action
        fields: dict[str, Any] = {
            "flow": d.flow,
            "policy_class": d.policy_class,
            "from_path": d.from_path,
            "to_path": d.to_path,
            "measurement": measurement_evidence(measurements),
            "bounds": class_bounds(self.policy.class_(d.policy_class)),
            "action": d.action,
        }
        moving = d.to_path != d.from_path and d.action in ("move", "hold_best")
        if moving and d.flow not in self._in_flight and now >= self._blocked_until.get(d.flow, 0):
            self.emit("hold_best" if d.action == "hold_best" else "move", d.reason, **fields)
            self._spawn(self.flows[d.flow], d.to_path, now, d.action)
        elif d.action == "hold_best" and previous != "hold_best":
            self.emit("hold_best", d.reason, **fields)

    def _spawn(self, flow: FlowConfig, path: str, decided_at: float, action: str) -> None:
        self._in_flight.add(flow.spec.id)
        t = threading.Thread(
            target=self._actuate, args=(flow, path, decided_at, action), daemon=True
        )
        self._threads.append(t)
        t.start()

    def _actuate(self, flow: FlowConfig, path_id: str, decided_at: float, action: str) -> None:
        path = self.config.path(path_id)
        spec = flow.spec
        fields: dict[str, Any] = {"flow": spec.id, "policy_class": spec.policy_class}
        fields.update(to_path=path_id, action=action)
        retries, deadline_s = self.actuator.retries, self.actuator.deadline_s
        try:
            for attempt in range(retries + 1):
                why = f"not confirmed within {deadline_s:g} s"
                deadline = time.monotonic() + deadline_s
                try:
                    self.actuator.move(spec, path)
                    while time.monotonic() < deadline and not self._stop.is_set():
                        if self.actuator.confirm(spec, path):
                            self._confirmed(flow, path_id, decided_at, fields)
                            return
                        time.sleep(CONFIRM_POLL_S)
                except ActuatorError as exc:
                    why = str(exc)
                    self._stop.wait(max(0.0, deadline - time.monotonic()))
                if self._stop.is_set():
                    return
                if attempt < retries:
                    self.emit("retry", f"attempt {attempt + 1}: {why}", **fields)
            with self.lock:
                self._controller_alarms["controller_unconfirmed"] = (
                    f"flow {spec.id} to {path_id}: {why} after {retries + 1} attempts; "
                    "the flow keeps its current path"
                )
                self._blocked_until[spec.id] = time.monotonic() + (retries + 1) * deadline_s
                self._check_health()
            self._sync_alarms()
        finally:
            with self.lock:
                self._in_flight.discard(spec.id)

    def _confirmed(
        self, flow: FlowConfig, path_id: str, decided_at: float, fields: dict[str, Any]
    ) -> None:
        now = time.monotonic()
        with self.lock:
            previous = self.decider.flows[flow.spec.id].active
            self.decider.confirm_move(flow.spec.id, path_id, now)
            self._controller_alarms.pop("controller_unconfirmed", None)
            self.healthy, self.health_detail = True, None
            self._controller_alarms.pop("controller_unreachable", None)
        fields["from_path"] = previous if previous != path_id else None
        self.emit(
            "moved",
            f"{flow.spec.id} now on {path_id} (confirmed by {self.actuator.name})",
            time_to_effect_s=now - decided_at,
            **fields,
        )
        self._sync_alarms()

    def snapshot(self) -> dict[str, Any]:
        """The status document (``GET /v1/status``)."""
        with self.lock:
            return status_document(self)


def wait_until(predicate: Any, timeout_s: float, poll_s: float = 0.01) -> bool:
    """Poll ``predicate()`` until true or ``timeout_s`` passes (tests and the CLI)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(poll_s)
    return bool(predicate())
