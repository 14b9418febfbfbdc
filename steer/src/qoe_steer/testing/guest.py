"""The Level B payload, run as root inside the user-mode kernel.

``python -m qoe_steer.testing.guest --spec SPEC.json --out RESULTS.json`` builds the
two-path lab (:mod:`~qoe_steer.testing.lab`), starts the netem agent on path a's router,
the service's reflector in the client namespace, game traffic, and for each run of the
spec the steering service in the server namespace (``steer_lab run``); then it drives the
agent through the script (:mod:`~qoe_steer.testing.scenario`) over its REST API and
records raw facts only: when each step was verified by the agent, the service's events,
its status every 0.2 s and the path of every game packet. The judging happens on the host.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import traceback
import urllib.request
from pathlib import Path
from typing import Any

from netem_agent.testing.lab_agent import AgentProcess, write_config  # type: ignore[import-untyped]

from qoe_steer.model import FlowSpec, PathSpec
from qoe_steer.testing import lab, steer_lab
from qoe_steer.testing.route_actuator import RouteActuator
from qoe_steer.testing.scenario import Step, script
from qoe_steer.testing.traffic import GameTraffic

AGENT_PORT = 8787
LEASE_S = 3600
FLOW = FlowSpec("game", steer_lab.POLICY_CLASS, {})


def status(timeout: float = 2.0) -> dict[str, Any]:
    """GET /v1/status of the service (its listener is on the server namespace's loopback)."""
    url = f"http://127.0.0.1:{steer_lab.STATUS_PORT}/v1/status"
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {steer_lab.STATUS_TOKEN}"})
    with lab.netns(lab.SERVER), urllib.request.urlopen(req, timeout=timeout) as r:
        document: dict[str, Any] = json.loads(r.read())
    return document


def _kpis(doc: dict[str, Any]) -> dict[str, Any]:
    """The figure's sample: per path p95 delay and loss per direction, the active path."""
    paths: dict[str, Any] = {}
    for p in doc.get("paths", []):
        m = p.get("measurement")
        if m is None:
            continue
        paths[p["id"]] = {
            "fresh": m["fresh"],
            **{
                f"{d}_{k}": m[d][k]
                for d in ("upstream", "downstream")
                for k in ("delay_ms_p95", "loss_pct", "jitter_ms")
            },
        }
    flows = [f for c in doc.get("classes", []) for f in c.get("flows", [])]
    return {
        "at_unix": time.time(),
        "paths": paths,
        "active": flows[0]["active_path"] if flows else None,
    }


class StatusRecorder(threading.Thread):
    def __init__(self, every_s: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.every_s = every_s
        self.samples: list[dict[str, Any]] = []
        self.errors = 0
        self.stop_event = threading.Event()

    def run(self) -> None:
        while not self.stop_event.wait(self.every_s):
            try:
                self.samples.append(_kpis(status()))
            except (OSError, ValueError):
                self.errors += 1


def _wait_ready(proc: subprocess.Popen[bytes], timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"steering service exited with {proc.returncode}")
        try:
            last = status()
            fresh = [p for p in last["paths"] if p["measurement"] and p["measurement"]["fresh"]]
            if len(fresh) == len(lab.PATHS):
                ready: dict[str, Any] = last
                return ready
        except (OSError, ValueError):
            pass
        time.sleep(0.2)
    raise RuntimeError(f"steering service not ready: {json.dumps(last)[:2000]}")


def run_once(run: dict[str, Any], agents: dict[str, AgentProcess], work: Path) -> dict[str, Any]:
    """One pass of the script under one decision setting."""
    name = run["name"]
    steps = script(run["repetitions"], run["long_s"], run["short_s"])
    # start from a clean state: flow on a, a at the first step's impairment
    path_a = PathSpec("a", "", 0, "a")
    RouteActuator().move(FLOW, path_a)
    for pid, agent in agents.items():
        code, body = agent.put(steps[0].profile(pid), lease=LEASE_S)
        if code != 200:
            raise RuntimeError(f"agent {pid} refused the first profile: {code} {body}")
    config = work / f"steer-{name}.toml"
    config.write_text(steer_lab.config_text(**run["settings"]))
    events = work / f"events-{name}.jsonl"
    events.unlink(missing_ok=True)
    log = open(work / f"steer-{name}.log", "wb")  # noqa: SIM115 - closed below
    cmd = [sys.executable, "-m", "qoe_steer.testing.steer_lab", "run", "--config", str(config)]
    proc = subprocess.Popen(
        ["ip", "netns", "exec", lab.SERVER, *cmd, "--events", str(events)], stdout=log, stderr=log
    )
    recorder = StatusRecorder(every_s=0.3)
    out: dict[str, Any] = {"name": name, "settings": run["settings"], "steps": []}
    try:
        out["ready_status"] = _wait_ready(proc)
        time.sleep(1.5)
        recorder.start()
        traffic = GameTraffic(interval_s=0.02)
        traffic.start()
        time.sleep(1.0)
        out["steps"] = _drive(agents, steps)
        time.sleep(0.5)
        traffic.stop()
        out["traffic"] = traffic.result()
        out["final_status"] = status()
    finally:
        recorder.stop_event.set()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
    out["status_samples"] = recorder.samples
    out["status_errors"] = recorder.errors
    out["events"] = [json.loads(x) for x in events.read_text().splitlines() if x.strip()]
    out["service_log"] = (work / f"steer-{name}.log").read_text(errors="replace")[-4000:]
    return out


def _drive(agents: dict[str, AgentProcess], steps: list[Step]) -> list[dict[str, Any]]:
    """Apply each step through the agent of the path it changes; note when that agent
    answered (its verified state)."""
    done: list[dict[str, Any]] = []
    previous: Step | None = None
    for step in steps:
        sent = time.time()
        if done:
            done[-1]["end_unix"] = sent
        for pid, agent in agents.items():
            if previous is not None and step.profile(pid) == previous.profile(pid):
                continue
            code, body = agent.put(step.profile(pid), lease=LEASE_S)
            if code != 200:
                raise RuntimeError(f"agent {pid} refused step {step.label}: {code} {body}")
        applied = time.time()
        done.append(
            {
                "label": step.label,
                "a": list(step.a),
                "b": list(step.b),
                "hold_s": step.hold_s,
                "sent_unix": sent,
                "applied_unix": applied,
                "applied_after_s": round(applied - sent, 4),
            }
        )
        previous = step
        time.sleep(max(0.0, applied + step.hold_s - time.time()))
    done[-1]["end_unix"] = time.time()
    return done


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    spec = json.loads(args.spec.read_text())
    work = args.out.parent
    results: dict[str, Any] = {"started_unix": time.time(), "runs": [], "errors": []}
    reflector = None
    agents: dict[str, AgentProcess] = {}
    try:
        lab.setup("a")
        results["uname"] = os.uname().release
        for p in lab.PATHS:
            cfg = write_config(
                work / f"agent-{p.id}.toml",
                topology={
                    "mode": "bridge",
                    "client_iface": p.router_client_dev,
                    "server_iface": p.router_server_dev,
                },
                port=AGENT_PORT,
                listen=lab.MGMT[p.id][1],
                state_dir=f"/run/agent-state-{p.id}",
                lease=LEASE_S,
            )
            agents[p.id] = AgentProcess(cfg, ns=p.router, host=lab.MGMT[p.id][1], port=AGENT_PORT)
            agents[p.id].start()
        reflect = [sys.executable, "-m", "qoe_steer.cli", "reflect"]
        reflector = subprocess.Popen(
            [
                "ip",
                "netns",
                "exec",
                lab.CLIENT,
                *reflect,
                "--listen",
                f"0.0.0.0:{steer_lab.REFLECTOR_PORT}",
            ],
            stdout=open(work / "reflector.log", "wb"),  # noqa: SIM115 - lives as long as the payload
            stderr=subprocess.STDOUT,
        )
        for run in spec["runs"]:
            try:
                results["runs"].append(run_once(run, agents, work))
            except Exception:
                results["errors"].append(f"run {run['name']}: {traceback.format_exc()}")
            _save(args.out, results)
    except Exception:
        results["errors"].append(traceback.format_exc())
    finally:
        if reflector is not None:
            reflector.terminate()
        for agent in agents.values():
            agent.stop()
        results["finished_unix"] = time.time()
        _save(args.out, results)
    return 0 if not results["errors"] else 1


def _save(path: Path, results: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(results, indent=1, default=str))
    tmp.replace(path)


if __name__ == "__main__":
    sys.exit(main())
