"""The status document of ``GET /v1/status`` (shape in docs/steering.md).

Times are Unix seconds; a path's measurement is its last window (null before the first),
each class lists its bounds, the paths the evaluator last found acceptable and its flows
with their active and pending path.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from qoe_steer import __version__
from qoe_steer.decide import class_bounds
from qoe_steer.model import PathMeasurement

if TYPE_CHECKING:
    from qoe_steer.daemon import Daemon


def measurement_document(
    m: PathMeasurement | None, unix: Callable[[float], float]
) -> dict[str, Any] | None:
    """A path's window as the status document shows it (``unix``: monotonic → Unix time)."""
    if m is None:
        return None
    return {
        "at_unix": unix(m.at),
        "window_s": m.window_s,
        "fresh": m.fresh,
        "stale_reason": m.stale_reason,
        "upstream": asdict(m.upstream),
        "downstream": asdict(m.downstream),
    }


def status_document(daemon: Daemon) -> dict[str, Any]:
    """Everything the console shows, from the daemon's state (call with its lock held)."""
    config, policy, decider = daemon.config, daemon.policy, daemon.decider
    evaluation = decider.last_evaluation or {"classes": []}
    acceptable = {c["class"]: c["acceptable_paths"] for c in evaluation["classes"]}
    classes = []
    for class_id in dict.fromkeys(f.spec.policy_class for f in config.flows):
        cls = policy.class_(class_id)
        flows = []
        for state in decider.flows.values():
            if state.spec.policy_class != class_id:
                continue
            pending = None
            if state.pending_to is not None and state.pending_since is not None:
                pending = {
                    "to_path": state.pending_to,
                    "since_unix": daemon.unix(state.pending_since),
                    "reason": state.pending_reason,
                }
            flows.append(
                {
                    "flow": state.spec.id,
                    "active_path": state.active,
                    "since_unix": None if state.since is None else daemon.unix(state.since),
                    "pending": pending,
                }
            )
        classes.append(
            {
                "class": class_id,
                "pace": cls["pace"],
                "bounds": class_bounds(cls),
                "acceptable_paths": acceptable.get(class_id, []),
                "flows": flows,
            }
        )
    return {
        "service": "qoe-steer",
        "version": __version__,
        "started_at_unix": daemon.started_at_unix,
        "policy": {
            "source": policy.source,
            "schema": policy.schema,
            "generated_at": policy.generated_at,
            "target": policy.target,
            "application": policy.application,
        },
        "actuator": {
            "kind": config.actuator.kind,
            "healthy": daemon.healthy,
            "detail": daemon.health_detail,
        },
        "settings": {
            "window_s": config.probe.window_s,
            "probe_interval_s": config.probe.interval_s,
            "dwell_s": config.decision.dwell_s,
            "hysteresis": config.decision.hysteresis,
            "stale_after_s": config.probe.stale_after_s,
            "delay_percentile": config.probe.delay_percentile,
        },
        "paths": [
            {
                "id": p.id,
                "port": p.port,
                "measurement": measurement_document(daemon.last.get(p.id), daemon.unix),
            }
            for p in config.paths
        ],
        "classes": classes,
        "alarms": [
            {"code": code, "message": message, "since_unix": since}
            for code, (message, since) in daemon.alarms.items()
        ],
        "events": daemon.events.recent(),
    }
