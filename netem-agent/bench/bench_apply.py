#!/usr/bin/env python3
"""Switch latency of the netem agent inside the user-mode kernel, against its floor and tc.

Boots Debian's user-mode-linux ``--runs`` times (default 5). In each boot the router
namespace of the test lab runs ``netem-agent serve`` (netlink backend) and the root
namespace switches profiles ``--switches`` times (default 1,000) over the REST API (one
keep-alive connection, as the backend does), cycling through the scenarios of table 4.1.
Interleaved with the agent's samples (A B A B ...) in the same boot, on the same qdiscs:

* **agent** — time from sending ``PUT /v1/profile`` to receiving its 200, which the agent
  sends only after reading the kernel state back and comparing it with the request
  ("request to verified state").
* **floor** — the kernel work of one switch from one process with no HTTP and no agent
  logic: the same two ``RTM_NEWQDISC`` changes (messages encoded beforehand) and one
  ``RTM_GETQDISC`` dump, on a netlink socket opened once in the router namespace. The
  agent cannot be faster than this; ``agent / floor`` is its overhead.
* **tc** — the named baseline: what a script would run, ``tc qdisc change`` per device
  plus ``tc -j qdisc show`` (iproute2, three processes). Slow (process start-up), so it
  is sampled every ``--tc-every`` switches.

The goal (issue 16, goal 4) is agent p99 <= 10 ms in every run. Python's garbage
collector is off in the measuring process during the samples (its pauses are the
client's, not the agent's). Writes var/bench/agent.json (the shared format: ``goals``)
and prints one line per run and the summary.

    .venv/bin/python netem-agent/bench/bench_apply.py [--runs 5] [--switches 1000]
        [--tc-every 20] [--out FILE]

About a minute per boot (half of it tc's process start-ups); 5–6 minutes in all on the
2-core machine at load average 10–15. The host's load shows in the tails of all three
paths alike: read the floor's p99 before blaming the agent's (each run records the load).
"""

from __future__ import annotations

import argparse
import gc
import http.client
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "netem-agent" / "src"
TARGET_P99_MS = 10.0
ROOT_HANDLE = 0x4E450000  # the agent's root netem (shaping_plan.ROOT_HANDLE)
DEVICES = {"upstream": "rs", "downstream": "rc"}  # bridge topology of the lab
NLMSGHDR = struct.Struct("=IHHII")  # struct nlmsghdr

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
    """Nearest-rank percentile (the smallest value with at least q % of the samples at or
    below it)."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * len(s) + 0.5) - 1))]


def summary(values: list[float]) -> dict[str, Any]:
    return {
        "n": len(values),
        "p50": round(pct(values, 50), 3),
        "p99": round(pct(values, 99), 3),
        "max": round(max(values), 3),
        "mean": round(statistics.fmean(values), 3),
    }


# --- inside UML ------------------------------------------------------------------------
class Floor:
    """The kernel work of one switch, from this process: two changes and one dump."""

    def __init__(self, plist: list[dict[str, Any]]) -> None:
        from netem_agent import rtnl
        from netem_agent.netem import encode_options, params_from_profile
        from netem_agent.testing import lab
        from netem_profile import parse_profile

        self.rtnl = rtnl
        with lab.netns(lab.ROUTER):  # the socket stays in the namespace it was made in
            self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, rtnl.NETLINK_ROUTE)
            self.sock.bind((0, 0))
            index = {d: socket.if_nametoindex(d) for d in DEVICES.values()}
        self.buf = bytearray(1 << 16)
        self.seq = 0
        # messages per profile, encoded once: the floor is the kernel round trips only
        self.bodies = []
        for p in plist:
            prof = parse_profile(p)
            self.bodies.append(
                [
                    rtnl.qdisc_request(
                        index[dev],
                        rtnl.TC_H_ROOT,
                        ROOT_HANDLE,
                        "netem",
                        encode_options(params_from_profile(prof.direction(d)), None),
                    )
                    for d, dev in DEVICES.items()
                ]
            )
        self.dump = rtnl.tcmsg(0, 0, 0)

    def _send(self, msg_type: int, flags: int, body: bytes) -> int:
        self.seq += 1
        self.sock.send(
            NLMSGHDR.pack(NLMSGHDR.size + len(body), msg_type, flags, self.seq, 0) + body
        )
        return self.seq

    def _until(self, seq: int, done: int) -> int:
        """Receive until the message of type ``done`` for ``seq``; count the others."""
        r = self.rtnl
        seen = 0
        while True:
            n = self.sock.recv_into(self.buf)
            pos = 0
            while pos + NLMSGHDR.size <= n:
                length, rtype, _f, rseq, _p = NLMSGHDR.unpack_from(self.buf, pos)
                if rseq == seq:
                    if rtype == r.NLMSG_ERROR:
                        (code,) = struct.unpack_from("=i", self.buf, pos + NLMSGHDR.size)
                        if code:
                            raise OSError(-code, os.strerror(-code))
                        return seen
                    if rtype == done:
                        return seen
                    seen += 1
                pos += (length + 3) & ~3

    def switch(self, i: int) -> int:
        """Change both netem qdiscs to profile ``i`` and dump the qdiscs; returns how many
        qdiscs the dump listed."""
        r = self.rtnl
        for body in self.bodies[i]:
            self._until(self._send(r.RTM_NEWQDISC, r.NLM_F_REQUEST | r.NLM_F_ACK, body), -1)
        flags = r.NLM_F_REQUEST | r.NLM_F_DUMP
        return self._until(self._send(r.RTM_GETQDISC, flags, self.dump), r.NLMSG_DONE)


def tc_switch(profile: dict[str, Any], ns: str) -> list[dict[str, Any]]:
    """The iproute2 way: ``tc qdisc change`` per device, then ``tc -j qdisc show``."""
    for d, dev in DEVICES.items():
        p = profile.get(d, {"delay_ms": 0, "loss_pct": 0})
        subprocess.run(
            [
                *("tc", "-n", ns, "qdisc", "change", "dev", dev, "root", "handle", "4e45:"),
                *("netem", "delay", f"{p['delay_ms']}ms", "loss", f"{p['loss_pct']}%"),
                *("limit", "10000"),
            ],
            check=True,
        )
    out = subprocess.run(
        ["tc", "-n", ns, "-j", "qdisc", "show"], check=True, capture_output=True, text=True
    ).stdout
    shown: list[dict[str, Any]] = json.loads(out)
    return shown


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
    conn.connect()
    # as urllib3 (requests, the backend's client) sets on every connection: the body,
    # sent after the headers, is not held back until the headers are acknowledged
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
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
    floor = Floor(plist)
    for i, p in enumerate(plist):  # warm-up of all three paths
        put(p)
        floor.switch(i)
        tc_switch(p, lab.ROUTER)
    agent_ms: list[float] = []
    agent_apply_ms: list[float] = []
    floor_ms: list[float] = []
    tc_ms: list[float] = []
    errors: list[dict[str, Any]] = []
    gc.collect()
    gc.freeze()
    gc.disable()
    for i in range(args.switches):
        k = i % len(plist)
        p = plist[k]
        ms, status, body = put(p)
        if status != 200 or body.get("mode") != "switch":
            errors.append({"i": i, "status": status, "body": body})
        else:
            for d in ("upstream", "downstream"):
                want = p.get(d, {"delay_ms": 0, "loss_pct": 0})
                got = body["installed"][d]
                if got["delay_ms"] != want["delay_ms"] or got["loss_pct"] != want["loss_pct"]:
                    errors.append({"i": i, "direction": d, "want": want, "got": got})
            agent_ms.append(ms)
            agent_apply_ms.append(body["apply_ms"])
        # the floor switches to the next profile, so the agent's next change is a change
        t0 = time.perf_counter()
        listed = floor.switch((k + 1) % len(plist))
        floor_ms.append((time.perf_counter() - t0) * 1000)
        if listed < len(DEVICES):
            errors.append({"i": i, "floor": f"the dump listed {listed} qdiscs"})
        if args.tc_every and i % args.tc_every == 0:
            t0 = time.perf_counter()
            shown = tc_switch(plist[(k + 2) % len(plist)], lab.ROUTER)
            tc_ms.append((time.perf_counter() - t0) * 1000)
            if not any(q.get("kind") == "netem" for q in shown):
                errors.append({"i": i, "tc": "no netem qdisc shown"})
    gc.enable()
    conn.close()
    agent.request("DELETE", "/v1/profile")
    agent.stop()
    result = {
        "switches": len(agent_ms),
        "errors": errors[:20],
        "error_count": len(errors),
        "agent_ms": summary(agent_ms),
        "agent_apply_ms": summary(agent_apply_ms),
        "floor_ms": summary(floor_ms),
        "tc_ms": summary(tc_ms) if tc_ms else None,
        "agent_over_10ms": sum(x > TARGET_P99_MS for x in agent_ms),
        "agent_slowest_ms": [round(x, 2) for x in sorted(agent_ms)[-12:]],
        "floor_slowest_ms": [round(x, 2) for x in sorted(floor_ms)[-12:]],
        "loadavg_guest": Path("/proc/loadavg").read_text().split()[:3],
    }
    Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


# --- on the host -----------------------------------------------------------------------
def one_run(args: argparse.Namespace, n: int, env: Any) -> dict[str, Any]:
    from netem_agent.testing.uml import python, run_in_uml

    work = REPO / "var" / "bench" / "uml-agent"
    raw = work / "guest.json"
    raw.parent.mkdir(parents=True, exist_ok=True)
    raw.unlink(missing_ok=True)
    load_before = os.getloadavg()
    run = run_in_uml(
        [
            python(),
            str(Path(__file__).resolve()),
            "--guest",
            "--switches",
            str(args.switches),
            "--tc-every",
            str(args.tc_every),
            "--out",
            str(raw),
        ],
        work,
        timeout=1200,
        env=env,
    )
    if run.exit_code != 0 or not raw.exists():
        raise RuntimeError(
            f"run {n}: bench failed in UML (exit {run.exit_code}, timed out {run.timed_out}):\n"
            f"{run.payload_log[-4000:]}"
        )
    result: dict[str, Any] = json.loads(raw.read_text())
    result["run"] = n
    result["uml_seconds"] = round(run.seconds, 1)
    result["loadavg_host_before"] = [round(x, 2) for x in load_before]
    result["loadavg_host_after"] = [round(x, 2) for x in os.getloadavg()]
    result["meets_target"] = (
        result["agent_ms"]["p99"] <= TARGET_P99_MS and result["error_count"] == 0
    )
    return result


def host(args: argparse.Namespace) -> int:
    # the guest and the agent it starts import this checkout's package, not another copy
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    sys.path.insert(0, str(SRC))
    from netem_agent.testing.uml import Missing, find_uml

    try:
        env = find_uml()
    except Missing as e:
        print(f"bench: {e}", file=sys.stderr)
        return 2
    runs = []
    for n in range(1, args.runs + 1):
        try:
            r = one_run(args, n, env)
        except RuntimeError as e:
            print(str(e), file=sys.stderr)
            return 1
        runs.append(r)
        a, f, t = r["agent_ms"], r["floor_ms"], r["tc_ms"]
        tc_text = f"tc p50 {t['p50']:.1f} p99 {t['p99']:.1f}" if t else "tc not sampled"
        print(
            f"run {n}: agent p50 {a['p50']:.2f} p99 {a['p99']:.2f} ms | floor p50 "
            f"{f['p50']:.2f} p99 {f['p99']:.2f} ms | {tc_text} ms | errors {r['error_count']}"
            f" | load {r['loadavg_host_before'][0]:.2f} → {r['loadavg_host_after'][0]:.2f}",
            flush=True,
        )
    result = report(args, runs, env.release)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    g = result["goals"][0]
    s = result["summary"]
    print(
        f"netem agent, {args.switches} switches × {len(runs)} runs in UML {env.release}: "
        f"agent p99 worst {g['measured']:.2f} ms (median p50 {s['agent_p50_ms']:.2f}, p99 "
        f"{s['agent_p99_ms']:.2f}); floor p50 {s['floor_p50_ms']:.2f} p99 "
        f"{s['floor_p99_ms']:.2f} ms (agent/floor p50 {s['agent_over_floor_p50']:.2f}×, "
        f"p99 {s['agent_over_floor_p99']:.2f}×); tc p99 {s['tc_p99_ms']} ms; target p99 <= "
        f"{TARGET_P99_MS:g} ms in {s['runs_meeting_target']} of {len(runs)} runs: "
        f"{'PASS' if g['pass'] else 'FAIL'} → {out}"
    )
    return 0


def report(args: argparse.Namespace, runs: list[dict[str, Any]], release: str) -> dict[str, Any]:
    """The shared bench format: medians over runs; the goal holds for the worst run."""

    def med(key: str, q: str) -> float:
        return round(float(statistics.median(r[key][q] for r in runs if r[key])), 3)

    worst = max(r["agent_ms"]["p99"] for r in runs)
    meeting = sum(r["meets_target"] for r in runs)
    tc_p99 = med("tc_ms", "p99") if any(r["tc_ms"] for r in runs) else None
    summary_ = {
        "agent_p50_ms": med("agent_ms", "p50"),
        "agent_p99_ms": med("agent_ms", "p99"),
        "agent_p99_worst_ms": worst,
        "agent_internal_p50_ms": med("agent_apply_ms", "p50"),
        "agent_internal_p99_ms": med("agent_apply_ms", "p99"),
        "floor_p50_ms": med("floor_ms", "p50"),
        "floor_p99_ms": med("floor_ms", "p99"),
        "tc_p50_ms": med("tc_ms", "p50") if tc_p99 is not None else None,
        "tc_p99_ms": tc_p99,
        "agent_over_floor_p50": round(med("agent_ms", "p50") / med("floor_ms", "p50"), 2),
        "agent_over_floor_p99": round(med("agent_ms", "p99") / med("floor_ms", "p99"), 2),
        "runs_meeting_target": meeting,
        "error_count": sum(r["error_count"] for r in runs),
    }
    goal = {
        "goal": f"netem agent switch, request → verified, p99 over {args.switches:,} switches "
        f"in UML (worst of {len(runs)} runs)",
        "measured": worst,
        "unit": "ms",
        "baseline": "tc (tc qdisc change per device + tc -j qdisc show)",
        "baseline_measured": tc_p99,
        "ratio": round(worst / tc_p99, 3) if tc_p99 else None,
        "target": f"<= {TARGET_P99_MS:g} ms in {len(runs)} of {len(runs)} runs",
        "pass": meeting == len(runs) and summary_["error_count"] == 0,
    }
    return {
        "benchmark": "netem-agent switch latency (PUT /v1/profile → verified kernel state)",
        "goals": [goal],
        "summary": summary_,
        "floor": "the same two netem changes (RTM_NEWQDISC, pre-encoded) + one qdisc dump "
        "(RTM_GETQDISC) on one netlink socket from the measuring process: no HTTP, no agent",
        "kernel": f"user-mode-linux {release}",
        "switches": args.switches,
        "tc_every": args.tc_every,
        "target_p99_ms": TARGET_P99_MS,
        "meets_target": goal["pass"],
        "runs": runs,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="UML boots (default 5)")
    ap.add_argument("--switches", type=int, default=1000, help="agent switches per run")
    ap.add_argument(
        "--tc-every", type=int, default=20, help="one tc sample every N switches (0: none)"
    )
    ap.add_argument("--out", default=str(REPO / "var" / "bench" / "agent.json"))
    ap.add_argument("--guest", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    return guest(args) if args.guest else host(args)


if __name__ == "__main__":
    raise SystemExit(main())
