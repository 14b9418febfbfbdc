"""Where the daemon's measurements come from: its own probes, or injected ones.

* :class:`ProbeSource`: a :class:`~qoe_steer.probes.Prober` per path in one thread
  (``selectors``), summarised by :func:`~qoe_steer.window.summarize` on demand;
* :class:`InjectedSource`: JSON lines (``qoe-steer run --measurements-from FILE|-``), one
  object per line ``{"t"?: s, "paths": [{"id", "upstream": {"delay_ms", "loss_pct",
  "jitter_ms"?}, "downstream": {…}, "fresh"?: bool, "stale_reason"?: str, "n"?: int}]}``.
  A line with ``t`` applies from ``t`` seconds after start (a replayed file), one without
  from when it is read (a live pipe). A path absent from the current line is missing;
  the whole line is stale once older than ``stale_after_s``;
* :class:`CallableSource`: any ``f(at) -> {path: PathMeasurement | None}`` (tests).
"""

from __future__ import annotations

import json
import selectors
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, Any, Protocol

from qoe_steer.config import ProbeConfig
from qoe_steer.model import DirectionStats, PathMeasurement, PathSpec
from qoe_steer.probes import Prober, now_ns
from qoe_steer.window import summarize

Measurements = dict[str, PathMeasurement | None]


class MeasurementSource(Protocol):
    def start(self) -> None: ...

    def stop(self) -> None: ...

    def measurements(self, at: float) -> Measurements: ...


class ProbeSource:
    """Probes every path from one thread; ``measurements`` summarises the windows."""

    def __init__(self, paths: Sequence[PathSpec], probe: ProbeConfig) -> None:
        self.probe = probe
        keep = probe.window_s + max(probe.stale_after_s, 1.0)
        self.probers = [
            Prober(p.id, p.probe_host, p.probe_port, probe.interval_s, keep) for p in paths
        ]
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="qoe-steer-probes", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2.0)
        for p in self.probers:
            p.close()

    def _run(self) -> None:
        selector = selectors.DefaultSelector()
        for prober in self.probers:
            selector.register(prober.sock, selectors.EVENT_READ, prober)
        while not self._stop.is_set():
            t = now_ns()
            with self._lock:
                for prober in self.probers:
                    prober.send_due(t)
            wait = min(p.due_in_s(now_ns()) for p in self.probers)
            for key, _ in selector.select(timeout=min(wait, 0.05)):
                with self._lock:
                    key.data.receive_all()
        selector.close()

    def measurements(self, at: float) -> Measurements:
        t = now_ns()
        with self._lock:
            snapshots = [(p.path_id, p.snapshot(), p.last_reply_ns) for p in self.probers]
        return {
            path: summarize(
                path,
                records,
                now_ns=t,
                at=at,
                window_s=self.probe.window_s,
                stale_after_s=self.probe.stale_after_s,
                min_samples=self.probe.min_samples,
                last_reply_ns=last,
            )
            for path, records, last in snapshots
        }


def direction_stats(entry: Any, n: int, where: str) -> DirectionStats:
    """One direction of a policy-check path (every percentile = delay_ms; n probes sent)."""
    if not isinstance(entry, dict):
        raise ValueError(f"{where}: not an object")
    delay, loss, jitter = entry.get("delay_ms"), entry.get("loss_pct"), entry.get("jitter_ms")
    for key, value in (("delay_ms", delay), ("loss_pct", loss), ("jitter_ms", jitter)):
        if key == "jitter_ms" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ValueError(f"{where}.{key}: {value!r} is not a number ≥ 0")
    assert isinstance(loss, int | float) and isinstance(delay, int | float)
    if loss > 100:
        raise ValueError(f"{where}.loss_pct: {loss!r} is above 100")
    received = round(n * (1 - float(loss) / 100))
    return DirectionStats(
        sent=n,
        received=received,
        loss_pct=float(loss),
        delay_ms_p50=float(delay),
        delay_ms_p95=float(delay),
        delay_ms_p99=float(delay),
        jitter_ms=None if jitter is None else float(jitter),
    )


def parse_line(line: str, where: str) -> tuple[float | None, list[Any]]:
    """(t or None, [(path, fields)]) of one injected line; ValueError names the problem."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{where}: not JSON: {exc.msg}") from exc
    if not isinstance(obj, dict) or not isinstance(obj.get("paths"), list):
        raise ValueError(f"{where}: needs an object with a list 'paths'")
    t = obj.get("t")
    if t is not None and (isinstance(t, bool) or not isinstance(t, int | float) or t < 0):
        raise ValueError(f"{where}.t: {t!r} is not a number ≥ 0")
    entries = []
    for i, p in enumerate(obj["paths"]):
        w = f"{where}.paths[{i}]"
        if not isinstance(p, dict) or not isinstance(p.get("id"), str):
            raise ValueError(f"{w}.id: missing")
        n = p.get("n", 100)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"{w}.n: {n!r} is not a positive integer")
        up = direction_stats(p.get("upstream"), n, f"{w}.upstream")
        down = direction_stats(p.get("downstream"), up.received or n, f"{w}.downstream")
        fresh = p.get("fresh", True)
        entries.append((p["id"], up, down, bool(fresh), p.get("stale_reason")))
    return (None if t is None else float(t)), entries


class InjectedSource:
    """Measurements read from JSON lines instead of probes (see the module doc)."""

    def __init__(
        self,
        paths: Sequence[PathSpec],
        lines: Iterable[str] | IO[str],
        *,
        window_s: float,
        stale_after_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.paths = [p.id for p in paths]
        self.window_s, self.stale_after_s, self.clock = window_s, stale_after_s, clock
        self._lines = lines
        self._timed: list[tuple[float, list[Any]]] = []
        self._live: tuple[float, list[Any]] | None = None
        self._lock = threading.Lock()
        self._started = clock()
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._read, name="qoe-steer-inject", daemon=True)

    def start(self) -> None:
        self._started = self.clock()
        self._thread.start()

    def stop(self) -> None:
        pass  # the reader thread is a daemon thread blocked on its input

    def _read(self) -> None:
        for number, line in enumerate(self._lines, 1):
            if not line.strip():
                continue
            try:
                t, entries = parse_line(line, f"line {number}")
            except ValueError as exc:
                self.errors.append(str(exc))
                print(f"qoe-steer: measurements {exc}: ignored", file=sys.stderr)
                continue
            with self._lock:
                if t is None:
                    self._live = (self.clock(), entries)
                else:
                    self._timed.append((self._started + t, entries))
                    self._timed.sort(key=lambda e: e[0])

    def measurements(self, at: float) -> Measurements:
        with self._lock:
            current = [e for e in self._timed if e[0] <= at]
            candidates = ([current[-1]] if current else []) + ([self._live] if self._live else [])
        out: Measurements = {p: None for p in self.paths}
        if not candidates:
            return out
        since, entries = max(candidates, key=lambda e: e[0])
        age = at - since
        for path, up, down, fresh, reason in entries:
            if path not in out:
                continue
            if fresh and age > self.stale_after_s:
                fresh, reason = False, f"no injected measurement for {age:.2f} s"
            out[path] = PathMeasurement(
                path, at, self.window_s, up, down, fresh, None if fresh else str(reason or "stale")
            )
        return out


class CallableSource:
    """Measurements from a function of the (monotonic) time."""

    def __init__(self, fn: Callable[[float], Mapping[str, PathMeasurement | None]]) -> None:
        self.fn = fn

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def measurements(self, at: float) -> Measurements:
        return dict(self.fn(at))
