#!/usr/bin/env python3
"""Apply latency of the netem agent inside the user-mode kernel.

Boots Debian's user-mode-linux, starts `netem-agent serve` (netlink backend) on the
router namespace of the test lab and switches profiles N times (default 1,000) over the
REST API from the root namespace, cycling through the scenarios of table 4.1. Each
sample is the time from sending PUT /v1/profile to receiving the 200 response, which the
agent only sends after reading the kernel state back and verifying it ("request to
verified state"). Prints p50/p99 and writes var/bench/agent.json.

    .venv/bin/python netem-agent/bench/bench_apply.py [--switches 1000] [--out FILE]
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
TARGET_P99_MS = 20.0

# table 4.1 (one-way delay ms, loss %, directions)
TABLE = [
    ("B", 0, 0.0, "both"),
    ("D1", 80, 0.0, "both"),
    ("D2", 200, 0.0, "both"),
    ("D3", 300, 0.0, "both"),
    ("L1", 0, 0.3, "both"),
    ("L2", 0, 1.0, "both"),
    ("M1", 40, 1.5, "both"),
    ("M2", 180, 0.3, "both"),
    ("A1", 120, 1.0, "upstream"),
    ("A2", 120, 1.0, "downstream"),
]


def profiles() -> list[dict[str, Any]]:
    out = []
    for _id, delay, loss, dirs in TABLE:
        p = {}
        for d in ("upstream", "downstream"):
            if dirs in ("both", d):
                p[d] = {"delay_ms": delay, "loss_pct": loss}
        out.append(p)
    return out


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * len(s) + 0.5) - 1))]


def guest(args: argparse.Namespace) -> int:
    from netem_agent.testing import lab, lab_agent

    lab.setup_lab()
    work = Path("/run/bench")
    work.mkdir(parents=True, exist_ok=True)
    cfg = lab_agent.write_config(
        work / "agent.toml", topology={"mode": "bridge", "client_iface": "rc", "server_iface": "rs"}
    )
    agent = lab_agent.AgentProcess(cfg)
    agent.start()
    conn = http.client.HTTPConnection(lab.MGMT_IP, 8787, timeout=30)
    headers = {"Authorization": f"Bearer {lab.TOKEN}", "Content-Type": "application/json"}

    def put(profile: dict[str, Any]) -> tuple[float, int, dict[str, Any]]:
        body = json.dumps({"profile": profile, "lease_seconds": 300})
        t0 = time.perf_counter()
        conn.request("PUT", "/v1/profile", body, headers)
        resp = conn.getresponse()
        data = resp.read()
        ms = (time.perf_counter() - t0) * 1000
        return ms, resp.status, json.loads(data)

    plist = profiles()
    put(plist[-1])  # builds the tree (not a switch; not measured)
    for p in plist:  # warm-up
        put(p)
    samples, agent_ms, errors = [], [], []
    for i in range(args.switches):
        p = plist[i % len(plist)]
        ms, status, body = put(p)
        if status != 200 or body.get("mode") != "switch":
            errors.append({"i": i, "status": status, "body": body})
            continue
        for d in ("upstream", "downstream"):
            want = p.get(d, {"delay_ms": 0, "loss_pct": 0})
            got = body["installed"][d]
            if got["delay_ms"] != want["delay_ms"] or got["loss_pct"] != want["loss_pct"]:
                errors.append({"i": i, "direction": d, "want": want, "got": got})
        samples.append(ms)
        agent_ms.append(body["apply_ms"])
    conn.close()
    agent.request("DELETE", "/v1/profile")
    agent.stop()
    result = {
        "switches": len(samples),
        "errors": errors[:20],
        "error_count": len(errors),
        "request_to_verified_ms": {
            "p50": round(pct(samples, 50), 3),
            "p99": round(pct(samples, 99), 3),
            "max": round(max(samples), 3),
            "mean": round(statistics.fmean(samples), 3),
        },
        "slowest_ms": [round(x, 2) for x in sorted(samples)[-15:]],
        "slowest_agent_ms": [round(x, 2) for x in sorted(agent_ms)[-15:]],
        "over_10ms": sum(x > 10 for x in samples),
        "agent_apply_ms": {
            "p50": round(pct(agent_ms, 50), 3),
            "p99": round(pct(agent_ms, 99), 3),
            "max": round(max(agent_ms), 3),
        },
    }
    Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


def host(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(REPO / "netem-agent" / "src"))
    from netem_agent.testing.uml import Missing, find_uml, python, run_in_uml

    try:
        env = find_uml()
    except Missing as e:
        print(f"bench: {e}", file=sys.stderr)
        return 2
    work = REPO / "var" / "bench" / "uml-agent"
    raw = work / "guest.json"
    raw.parent.mkdir(parents=True, exist_ok=True)
    raw.unlink(missing_ok=True)
    run = run_in_uml(
        [
            python(),
            str(Path(__file__).resolve()),
            "--guest",
            "--switches",
            str(args.switches),
            "--out",
            str(raw),
        ],
        work,
        timeout=1200,
        env=env,
    )
    if run.exit_code != 0 or not raw.exists():
        print(
            f"bench failed (exit {run.exit_code}, timed out {run.timed_out}):\n"
            f"{run.payload_log[-4000:]}",
            file=sys.stderr,
        )
        return 1
    result = json.loads(raw.read_text())
    lat = result["request_to_verified_ms"]
    result.update(
        {
            "benchmark": "netem-agent apply latency (PUT /v1/profile → verified kernel state)",
            "kernel": f"user-mode-linux {env.release}",
            "target_p99_ms": TARGET_P99_MS,
            "meets_target": lat["p99"] < TARGET_P99_MS and result["error_count"] == 0,
            "uml_seconds": round(run.seconds, 1),
        }
    )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(
        f"netem-agent apply latency over {result['switches']} switches in UML "
        f"{env.release}: p50 {lat['p50']:.2f} ms, p99 {lat['p99']:.2f} ms "
        f"(max {lat['max']:.2f}; target p99 < {TARGET_P99_MS:g} ms: "
        f"{'met' if result['meets_target'] else 'NOT met'}); agent-internal p50 "
        f"{result['agent_apply_ms']['p50']:.2f} ms, p99 {result['agent_apply_ms']['p99']:.2f} ms"
        f"; errors {result['error_count']} → {out}"
    )
    return 0 if result["error_count"] == 0 else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--switches", type=int, default=1000)
    ap.add_argument("--out", default=str(REPO / "var" / "bench" / "agent.json"))
    ap.add_argument("--guest", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    return guest(args) if args.guest else host(args)


if __name__ == "__main__":
    raise SystemExit(main())
