"""Host side of Level B: boot user-mode Linux with :mod:`~qoe_steer.testing.guest`, judge.

Shared by ``steer/tests/kernel`` and ``steer/bench/bench_steer.py``. A *run* is one pass of
the script under one decision setting; ``HYSTERESIS`` is the service's defaults, and
``BASELINE`` the same loop without hysteresis or dwell that checks the policy once per
window (``evaluate_every_s = window_s``) and moves at once: the naive controller the
hysteresis and the dwell time are meant to beat (it flaps in the oscillation).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from netem_agent.testing.uml import (  # type: ignore[import-untyped]
    Missing,
    find_uml,
    python,
    run_in_uml,
)

from qoe_steer.testing import steer_lab
from qoe_steer.testing.judge import judge
from qoe_steer.testing.scenario import Step, expected_paths

HYSTERESIS: dict[str, Any] = {"dwell_s": 0.5, "hysteresis": 0.2, "evaluate_every_s": 0.1}
BASELINE: dict[str, Any] = {"dwell_s": 0.0, "hysteresis": 0.0, "evaluate_every_s": 1.0}


def run_spec(
    repetitions: int, with_baseline: bool, long_s: float = 4.0, short_s: float = 2.0
) -> dict[str, Any]:
    runs = [("steer", HYSTERESIS)] + ([("baseline", BASELINE)] if with_baseline else [])
    return {
        "runs": [
            {
                "name": name,
                "repetitions": repetitions,
                "long_s": long_s,
                "short_s": short_s,
                "settings": {"interval_s": 0.005, "window_s": 1.0, **settings},
            }
            for name, settings in runs
        ]
    }


def missing_prerequisite() -> str | None:
    """What the user-mode kernel run lacks (naming the Debian package), or None."""
    try:
        find_uml()
    except Missing as exc:
        return str(exc)
    return None


def boot(spec: dict[str, Any], out_dir: Path, timeout: float = 1200) -> dict[str, Any]:
    """Run the guest payload in a fresh user-mode kernel; its results plus the boot's facts."""
    env = find_uml()
    out_dir.mkdir(parents=True, exist_ok=True)
    spec_file, results = out_dir / "spec.json", out_dir / "results.json"
    spec_file.write_text(json.dumps(spec, indent=1))
    results.unlink(missing_ok=True)
    started = time.time()
    payload = [python(), "-m", "qoe_steer.testing.guest", "--spec", str(spec_file)]
    run = run_in_uml([*payload, "--out", str(results)], out_dir, timeout=timeout, env=env)
    document: dict[str, Any] = json.loads(results.read_text()) if results.exists() else {}
    document["boot"] = {
        "exit_code": run.exit_code,
        "booted": run.booted,
        "timed_out": run.timed_out,
        "seconds": round(run.seconds, 1),
        "started_unix": started,
        "payload_log": run.payload_log[-4000:],
        "console": run.console[-2000:],
    }
    return document


def moves(run: dict[str, Any]) -> list[dict[str, Any]]:
    """The service's confirmed moves between paths (its ``moved`` events)."""
    return [
        {"at_unix": e["at_unix"], "from": e["from_path"], "to": e["to_path"]}
        for e in run.get("events", [])
        if e.get("kind") == "moved" and e.get("from_path") and e["from_path"] != e["to_path"]
    ]


def judge_run(run: dict[str, Any]) -> dict[str, Any]:
    """Judge one run against the expectation of its own hysteresis setting."""
    settings = run["settings"]
    steps = [Step(s["label"], tuple(s["a"]), tuple(s["b"]), s["hold_s"]) for s in run["steps"]]
    policy = json.loads(steer_lab.POLICY.read_text())
    expected = expected_paths(steps, policy, steer_lab.POLICY_CLASS, settings["hysteresis"])
    return judge(
        {
            "steps": run["steps"],
            "expected": expected,
            "moves": moves(run),
            "traffic": run["traffic"],
        }
    )
