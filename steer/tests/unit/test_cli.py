"""The command line: check-config, decide, run with injected measurements, bad input → 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from qoe_steer.cli import main

from .conftest import POLICY, ROOT

EXAMPLE = ROOT / "fixtures" / "policies" / "measurements.example.json"


def test_check_config_ok(
    write_config: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check-config", str(write_config())]) == 0
    assert "ok (2 paths, 1 flows, actuator dry-run" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("replace", "message"),
    [
        (
            {'class = "cloud-gaming.fast"': 'class = "chess"'},
            "flow[0].class: class 'chess' is not in",
        ),
        ({'port = "2"': 'port = "1"'}, "path[1].port: '1' is used by path 'a' too"),
        ({"dissertation_shape.policy.json": "missing.json"}, "cannot read"),
    ],
)
def test_check_config_refuses_with_one_line(
    write_config: Callable[..., Path],
    capsys: pytest.CaptureFixture[str],
    replace: dict[str, str],
    message: str,
) -> None:
    assert main(["check-config", str(write_config(replace))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err


def test_decide_prints_decisions_and_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["decide", "--policy", str(POLICY), "--measurements", str(EXAMPLE)]) == 0
    out = json.loads(capsys.readouterr().out)
    fast = next(d for d in out["decisions"] if d["class"] == "cloud-gaming.fast")
    assert fast["to_path"] == out["evaluation"]["classes"][0]["preferred_path"] == "fiber"
    # fiber degrades: the flow moves to lte (now acceptable) and the state records it
    state = tmp_path / "state.json"
    state.write_text(json.dumps(out["state"]))
    m = json.loads(EXAMPLE.read_text())
    m["paths"][0]["downstream"]["delay_ms"] = 100
    m["paths"][1]["downstream"]["loss_pct"] = 0.2  # lte within the fast class's 0.364 %
    worse = tmp_path / "m.json"
    worse.write_text(json.dumps(m))
    args = ["decide", "--policy", str(POLICY), "--measurements", str(worse), "--state", str(state)]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    fast = next(d for d in out["decisions"] if d["class"] == "cloud-gaming.fast")
    assert (fast["from_path"], fast["to_path"], fast["action"]) == ("fiber", "lte", "move")
    flow = next(f for f in out["state"]["flows"] if f["class"] == "cloud-gaming.fast")
    assert flow == {
        "flow": "cloud-gaming.fast",
        "class": "cloud-gaming.fast",
        "active_path": "lte",
        "left": ["fiber"],
    }


def test_decide_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "m.json"
    bad.write_text('{"paths": [{"id": "x"}]}')
    assert main(["decide", "--policy", str(POLICY), "--measurements", str(bad)]) == 2
    assert "invalid measurements" in capsys.readouterr().err


def test_run_with_injected_measurements_moves_and_logs(
    write_config: Callable[..., Path], tmp_path: Path
) -> None:
    lines = [
        {"t": 0.0, "paths": [_p("a", 20), _p("b", 30)]},
        {"t": 0.6, "paths": [_p("a", 120), _p("b", 30)]},
        {"t": 1.0, "paths": [_p("a", 120), _p("b", 30)]},
        {"t": 2.0, "paths": [_p("a", 120), _p("b", 30)]},
    ]
    measurements = tmp_path / "m.jsonl"
    measurements.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    events = tmp_path / "events.jsonl"
    cmd = [
        sys.executable,
        "-m",
        "qoe_steer.cli",
        "run",
        "--config",
        str(write_config()),
        "--events",
        str(events),
        "--measurements-from",
        str(measurements),
    ]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env={**os.environ})
    try:
        deadline = time.monotonic() + 10
        moved: list[dict[str, object]] = []
        while time.monotonic() < deadline and not any(e["to_path"] == "b" for e in moved):
            time.sleep(0.1)
            if events.exists():
                parsed = [json.loads(x) for x in events.read_text().splitlines()]
                moved = [e for e in parsed if e["kind"] == "moved"]
        assert any(e["to_path"] == "b" for e in moved), events.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "status on http://127.0.0.1:" in err


def test_run_refuses_a_bad_measurements_file(
    write_config: Callable[..., Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "m.jsonl"
    bad.write_text('{"paths": [{"id": "a", "upstream": {"delay_ms": -1, "loss_pct": 0}}]}\n')
    args = ["run", "--config", str(write_config()), "--measurements-from", str(bad)]
    assert main(args) == 2
    assert "line 1.paths[0].upstream.delay_ms" in capsys.readouterr().err


def _p(pid: str, delay: float) -> dict[str, object]:
    d = {"delay_ms": delay, "loss_pct": 0.0}
    return {"id": pid, "upstream": d, "downstream": d}
