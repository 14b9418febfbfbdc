"""A status document as ``qoe-steer`` serves it (the contract of issue 33), for the tests."""

from __future__ import annotations

import copy
from typing import Any

T0 = 1_790_000_000.0


def direction(
    delay_p95: float, loss: float, sent: int = 50, received: int | None = None
) -> dict[str, Any]:
    got = sent if received is None else received
    return {
        "sent": sent,
        "received": got,
        "loss_pct": loss,
        "delay_ms_p50": round(delay_p95 * 0.8, 3),
        "delay_ms_p95": delay_p95,
        "delay_ms_p99": round(delay_p95 * 1.1, 3),
        "jitter_ms": 1.5,
    }


GOOD: dict[str, Any] = {
    "service": "qoe-steer",
    "version": "1.0.0",
    "started_at_unix": T0,
    "policy": {
        "source": "fixtures/policies/dissertation_shape.policy.json",
        "schema": "urn:qoe-lab:schema:qoe-policy:2.0",
        "generated_at": "2026-11-20T10:00:00Z",
        "target": "acceptable",
        "application": "cloud-gaming",
    },
    "actuator": {"kind": "dry-run", "healthy": True, "detail": None},
    "settings": {
        "window_s": 1.0,
        "probe_interval_s": 0.02,
        "dwell_s": 0.5,
        "hysteresis": 0.2,
        "stale_after_s": 1.5,
        "delay_percentile": "p95",
    },
    "paths": [
        {
            "id": "a",
            "port": 1,
            "measurement": {
                "at_unix": T0 + 10,
                "window_s": 1.0,
                "fresh": True,
                "stale_reason": None,
                "upstream": direction(95.0, 0.0),
                "downstream": direction(90.0, 0.0),
            },
        },
        {
            "id": "b",
            "port": 2,
            "measurement": {
                "at_unix": T0 + 10,
                "window_s": 1.0,
                "fresh": True,
                "stale_reason": None,
                "upstream": direction(21.0, 0.0),
                "downstream": direction(20.0, 0.0),
            },
        },
    ],
    "classes": [
        {
            "class": "cloud-gaming.fast",
            "pace": "fast",
            "bounds": {
                "upstream": {"delay_ms": 72.7, "loss_pct": 0.36, "jitter_ms": None},
                "downstream": {"delay_ms": 72.7, "loss_pct": 0.36, "jitter_ms": None},
            },
            "acceptable_paths": ["b"],
            "flows": [
                {"flow": "game", "active_path": "b", "since_unix": T0 + 9.2, "pending": None}
            ],
        }
    ],
    "alarms": [],
    "events": [
        {
            "at_unix": T0,
            "kind": "start",
            "flow": None,
            "class": None,
            "from_path": None,
            "to_path": None,
            "measurement": None,
            "bounds": None,
            "action": "start",
            "time_to_effect_s": None,
            "message": "started",
        },
        {
            "at_unix": T0 + 9.2,
            "kind": "moved",
            "flow": "game",
            "class": "cloud-gaming.fast",
            "from_path": "a",
            "to_path": "b",
            "measurement": {"a": {"upstream": {"delay_ms": 95.0, "loss_pct": 0.0}}},
            "bounds": {"upstream": {"delay_ms": 72.7}},
            "action": "dry-run: output 1 -> 2",
            "time_to_effect_s": 0.004,
            "message": "path a violates upstream delay 95.0 > 72.7 ms",
        },
    ],
}


def good() -> dict[str, Any]:
    return copy.deepcopy(GOOD)
