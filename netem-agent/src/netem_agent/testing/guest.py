"""The kernel test payload, run as root *inside* the user-mode kernel.

``python -m netem_agent.testing.guest --spec SPEC.json --out RESULTS.json`` builds the lab
(see :mod:`netem_agent.testing.lab`), runs the agent as a real process and measures with
real packets. It records raw measurements only; the pass/fail decisions are made by the
pytest tests on the host, which read RESULTS.json. Each section is isolated: an error is
recorded under ``sections.<name>.error`` and the next section still runs.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from netem_agent.testing import lab
from netem_agent.testing.lab import CLIENT, CLIENT_IP, ROUTER, SERVER, SERVER_IP, tc_qdiscs
from netem_agent.testing.lab_agent import AgentProcess, write_config
from netem_agent.testing.probes import Stream, measure, ping

BRIDGE = {"mode": "bridge", "client_iface": "rc", "server_iface": "rs"}


class Runner:
    def __init__(self, spec: dict[str, Any], out: Path, work: Path) -> None:
        self.spec = spec
        self.out = out
        self.work = work
        self.results: dict[str, Any] = {"sections": {}, "started": time.time()}
        self.port = 20000

    def save(self) -> None:
        tmp = self.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.results, indent=1, default=str))
        tmp.replace(self.out)

    def section(self, name: str, fn: Callable[[dict[str, Any]], None]) -> None:
        res: dict[str, Any] = {"started": time.time()}
        self.results["sections"][name] = res
        print(f"== {name}", flush=True)
        try:
            fn(res)
        except Exception:
            res["error"] = traceback.format_exc()
            print(res["error"], flush=True)
        res["seconds"] = time.time() - res["started"]
        self.save()

    def next_ports(self) -> tuple[int, int]:
        self.port += 2
        return self.port, self.port + 1

    def streams(self) -> tuple[Stream, Stream]:
        up_port, down_port = self.next_ports()
        return (
            Stream("upstream", CLIENT, SERVER, SERVER_IP, up_port),
            Stream("downstream", SERVER, CLIENT, CLIENT_IP, down_port),
        )

    def router_state(self) -> dict[str, Any]:
        return {d: tc_qdiscs(ROUTER, d) for d in ("rc", "rs")}

    # ------------------------------------------------------------------------------
    def scenarios(self, res: dict[str, Any]) -> None:
        agent = AgentProcess(write_config(self.work / "router.toml", topology=dict(BRIDGE)))
        agent.start()
        count = self.spec["probes"]["count"]
        interval = self.spec["probes"]["interval_s"]
        try:
            for sc in self.spec["scenarios"]:
                entry: dict[str, Any] = {}
                res[sc["id"]] = entry
                status, body = agent.put(sc["profile"], lease=120)
                entry["put_status"] = status
                entry["installed"] = body.get("installed") if isinstance(body, dict) else None
                if status != 200:
                    entry["put_body"] = body
                    continue
                entry["tc"] = self.router_state()
                up, down = self.streams()
                max_delay = (
                    max(
                        sc["profile"].get(d, {}).get("delay_ms", 0)
                        for d in ("upstream", "downstream")
                    )
                    / 1000
                )
                measure([up, down], count, interval, max_delay)
                entry["upstream"], entry["downstream"] = up.summary(), down.summary()
                up.close()
                down.close()
                entry["ping"] = ping(
                    CLIENT, SERVER_IP, self.spec["probes"]["ping_count"], 0.02, 2 + 2 * max_delay
                )
                print(
                    sc["id"],
                    json.dumps({k: entry[k] for k in ("upstream", "downstream", "ping")}),
                    flush=True,
                )
        finally:
            agent.request("DELETE", "/v1/profile")
            res["stop_code"] = agent.stop()

    def switching(self, res: dict[str, Any]) -> None:
        agent = AgentProcess(write_config(self.work / "switch.toml", topology=dict(BRIDGE)))
        agent.start()
        profiles = self.spec["switching"]["profiles"]
        count = self.spec["switching"]["count"]
        interval = self.spec["switching"]["interval_s"]
        try:
            status, _ = agent.put(profiles[0], lease=120)
            res["initial_status"] = status
            up, down = self.streams()
            switches: list[dict[str, Any]] = []
            done = threading.Event()

            def switcher() -> None:
                i = 0
                while not done.is_set():
                    i += 1
                    t0 = time.monotonic()
                    st, body = agent.put(profiles[i % len(profiles)], lease=120)
                    switches.append(
                        {
                            "status": st,
                            "mode": body.get("mode"),
                            "ms": (time.monotonic() - t0) * 1000,
                        }
                    )
                    time.sleep(self.spec["switching"]["pause_s"])

            th = threading.Thread(target=switcher)

            def during() -> None:
                th.start()

            measure([up, down], count, interval, 0.5, during=during)
            done.set()
            th.join()
            res["switches"] = len(switches)
            res["switch_status"] = sorted({s["status"] for s in switches})
            res["switch_modes"] = sorted({str(s["mode"]) for s in switches})
            res["switch_ms"] = [round(s["ms"], 3) for s in switches]
            for s in (up, down):
                res[s.name] = s.summary()
                res[s.name]["delays_ms"] = [round(d, 3) for d in s.delays_ms()]
                s.close()
        finally:
            agent.request("DELETE", "/v1/profile")
            res["stop_code"] = agent.stop()

    def crash(self, res: dict[str, Any]) -> None:
        cfg = write_config(self.work / "crash.toml", topology=dict(BRIDGE), lease=60)
        profile = {"upstream": {"delay_ms": 50}, "downstream": {"delay_ms": 50, "loss_pct": 1}}
        res["original"] = self.router_state()
        # 1. kill -9, then restart
        agent = AgentProcess(cfg, log=self.work / "crash-agent.log")
        agent.start()
        res["put_status"] = agent.put(profile)[0]
        res["applied"] = self.router_state()
        res["kill9_code"] = agent.kill(signal.SIGKILL)
        res["after_kill9"] = self.router_state()
        agent.start()
        res["after_restart"] = self.router_state()
        st, body = agent.request("GET", "/v1/profile")
        res["get_after_restart"] = {
            "status": st,
            "installed": body.get("installed"),
            "complete": body.get("complete"),
        }
        # 2. lease expiry
        # Nothing slow (a tc dump) runs between the PUT and the heartbeats: on a busy
        # host it could outlast the lease. The gaps are recorded for the test to judge.
        lease = 3.0
        res["lease_seconds"] = lease
        res["lease_put_status"] = agent.put(profile, lease=lease)[0]
        last = time.monotonic()
        renew, gaps = [], []
        for _ in range(8):  # 8 × 0.5 s: heartbeats for longer than the lease
            time.sleep(0.5)
            sent = time.monotonic()
            gaps.append(round(sent - last, 3))
            renew.append(agent.request("POST", "/v1/lease/renew", {"lease_seconds": lease})[0])
            last = time.monotonic()
        res["renew_status"] = renew
        res["renew_gaps_s"] = gaps
        res["after_renewals"] = self.router_state()
        # ... until they stop: poll (bounded) for the restore
        deadline = last + lease + 15.0
        while True:
            state = self.router_state()
            if state == res["original"] or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        res["restored_after_s"] = round(time.monotonic() - last, 3)
        res["after_expiry"] = state
        st, body = agent.request("GET", "/v1/profile")
        res["get_after_expiry"] = {"status": st, "installed": body.get("installed")}
        res["renew_after_expiry"] = agent.request("POST", "/v1/lease/renew", {})[0]
        # 3. SIGTERM restores too
        res["term_put_status"] = agent.put(profile)[0]
        res["term_applied"] = self.router_state()
        res["sigterm_code"] = agent.kill(signal.SIGTERM)
        res["after_sigterm"] = self.router_state()
        res["log_tail"] = (self.work / "crash-agent.log").read_text()[-3000:]

    def bad_requests(self, res: dict[str, Any]) -> None:
        agent = AgentProcess(write_config(self.work / "bad.toml", topology=dict(BRIDGE)))
        agent.start()
        good = {"upstream": {"delay_ms": 30}, "downstream": {"delay_ms": 20, "loss_pct": 0.5}}
        try:
            res["good_status"] = agent.put(good)[0]
            before = (self.router_state(), agent.request("GET", "/v1/profile")[1]["installed"])
            cases: dict[str, tuple[int, Any]] = {
                "unknown_field": agent.put({"upstream": {"delay_ms": 10, "bandwidth": 5}}),
                "unknown_direction": agent.put({"sideways": {"delay_ms": 10}}),
                "loss_150": agent.put({"upstream": {"loss_pct": 150}}),
                "negative_delay": agent.put({"downstream": {"delay_ms": -5}}),
                "two_loss_models": agent.put(
                    {"downstream": {"loss_pct": 1, "gilbert_elliott": {"p_pct": 1, "r_pct": 50}}}
                ),
                "reorder_without_delay": agent.put({"upstream": {"reorder_pct": 5}}),
                "missing_token": agent.request("PUT", "/v1/profile", {"profile": good}, auth=False),
                "wrong_token": agent.request(
                    "PUT", "/v1/profile", {"profile": good}, token="not-the-token-xxxxxxxx"
                ),
                "missing_token_delete": agent.request("DELETE", "/v1/profile", auth=False),
                "bad_json": agent.request("PUT", "/v1/profile", raw=b"{not json"),
                "bad_lease": agent.request(
                    "PUT", "/v1/profile", {"profile": good, "lease_seconds": -1}
                ),
                "unknown_body_field": agent.request(
                    "PUT", "/v1/profile", {"profile": good, "iface": "eth9"}
                ),
            }
            res["cases"] = {k: {"status": s, "body": b} for k, (s, b) in cases.items()}
            after = (self.router_state(), agent.request("GET", "/v1/profile")[1]["installed"])
            res["unchanged"] = before == after
            res["before"], res["after"] = before, after
        finally:
            agent.request("DELETE", "/v1/profile")
            agent.stop()
        # unknown interface: an agent configured with an interface the box does not have
        bad = write_config(
            self.work / "badif.toml",
            port=8788,
            topology={"mode": "bridge", "client_iface": "rc", "server_iface": "nosuch0"},
        )
        agent2 = AgentProcess(bad, port=8788)
        agent2.start()
        try:
            before_if = self.router_state()
            st, body = agent2.put(good)
            res["cases"]["unknown_interface"] = {"status": st, "body": body}
            res["unknown_interface_unchanged"] = before_if == self.router_state()
        finally:
            agent2.stop()
        # unknown interface on the command line
        cli = subprocess.run(
            [
                "ip",
                "netns",
                "exec",
                ROUTER,
                sys.executable,
                "-m",
                "netem_agent.cli",
                "apply",
                "--client-iface",
                "rc",
                "--server-iface",
                "nosuch0",
                "--state-dir",
                "/run/cli-bad",
                "-",
            ],
            input=json.dumps(good),
            capture_output=True,
            text=True,
        )
        res["cli_unknown_interface"] = {"code": cli.returncode, "stderr": cli.stderr[-1500:]}
        res["cli_unknown_interface_unchanged"] = before_if == self.router_state()

    def single(self, res: dict[str, Any]) -> None:
        """Single-interface mode on the client box itself, driven by the CLI."""
        base = [sys.executable, "-m", "netem_agent.cli"]
        opts = ["--iface", "c0", "--role", "client", "--state-dir", "/run/cli-single"]

        def cli(*args: str, stdin: str | None = None) -> dict[str, Any]:
            p = subprocess.run(
                ["ip", "netns", "exec", CLIENT, *base, *args],
                input=stdin,
                capture_output=True,
                text=True,
            )
            try:
                out = json.loads(p.stdout) if p.stdout.strip() else None
            except ValueError:
                out = p.stdout
            return {"code": p.returncode, "json": out, "stderr": p.stderr[-2000:]}

        def state() -> dict[str, Any]:
            return {"c0": tc_qdiscs(CLIENT, "c0"), "links": lab.links(CLIENT)}

        res["check"] = cli("check", *opts)
        res["original"] = state()
        profile = self.spec["single"]["profile"]
        res["apply"] = cli("apply", *opts, "-", stdin=json.dumps(profile))
        res["applied"] = state()
        ifb_state = tc_qdiscs(CLIENT, "qoeifb0") if "qoeifb0" in lab.links(CLIENT) else None
        res["ifb_qdiscs"] = ifb_state
        res["show"] = cli("show", "--json", *opts)
        up, down = self.streams()
        measure([up, down], self.spec["single"]["count"], self.spec["probes"]["interval_s"], 0.2)
        res["upstream"], res["downstream"] = up.summary(), down.summary()
        up.close()
        down.close()
        res["clear"] = cli("clear", *opts)
        res["after_clear"] = state()
        # a missing ifb module: a clear error and nothing left behind
        res["rmmod_ifb"] = lab.sh("rmmod", "ifb", check=False).returncode
        res["check_no_ifb"] = cli("check", *opts)
        res["apply_no_ifb"] = cli("apply", *opts, "-", stdin=json.dumps(profile))
        res["after_failed_apply"] = state()
        env = self.spec["module_dir"]
        res["insmod_ifb"] = lab.sh(
            "insmod", f"{env}/drivers/net/ifb.ko", "numifbs=0", check=False
        ).returncode

    def flow(self, res: dict[str, Any]) -> None:
        topo = dict(BRIDGE, flow={"server_addr": SERVER_IP, "ports": [9000], "protocol": "udp"})
        agent = AgentProcess(write_config(self.work / "flow.toml", topology=topo))
        agent.start()
        try:
            st, body = agent.put({"upstream": {"delay_ms": 80}, "downstream": {"delay_ms": 40}})
            res["put_status"] = st
            res["installed"] = body.get("installed") if isinstance(body, dict) else body
            if st != 200:
                res["put_body"] = body
            res["tc"] = self.router_state()
            count = self.spec["flow"]["count"]
            interval = self.spec["probes"]["interval_s"]
            for label, port in (("game", 9000), ("other", 9100)):
                up = Stream("upstream", CLIENT, SERVER, SERVER_IP, port)
                measure([up], count, interval, 0.2)
                res[f"{label}_upstream"] = up.summary()
                up.close()
                down = Stream("downstream", SERVER, CLIENT, CLIENT_IP, 30000 + port, src_port=port)
                measure([down], count, interval, 0.2)
                res[f"{label}_downstream"] = down.summary()
                down.close()
            res["ping"] = ping(CLIENT, SERVER_IP, 10, 0.02, 2)
        finally:
            agent.request("DELETE", "/v1/profile")
            res["after_clear"] = self.router_state()
            agent.stop()

    def gilbert(self, res: dict[str, Any]) -> None:
        agent = AgentProcess(write_config(self.work / "ge.toml", topology=dict(BRIDGE)))
        agent.start()
        try:
            ge = self.spec["gilbert_elliott"]
            st, body = agent.put({"upstream": {"gilbert_elliott": ge["model"]}})
            res["put_status"] = st
            res["installed"] = body.get("installed") if isinstance(body, dict) else body
            up, down = self.streams()
            measure([up, down], ge["count"], self.spec["probes"]["interval_s"], 0.1)
            res["upstream"], res["downstream"] = up.summary(), down.summary()
            # burstiness: mean run length of consecutive losses
            lost = [s not in up.recv for s in sorted(up.sent)]
            runs, cur = [], 0
            for x in lost:
                if x:
                    cur += 1
                elif cur:
                    runs.append(cur)
                    cur = 0
            res["loss_runs"] = len(runs)
            res["mean_loss_run"] = (sum(runs) / len(runs)) if runs else 0
            up.close()
            down.close()
        finally:
            agent.request("DELETE", "/v1/profile")
            agent.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sections", default=None, help="comma-separated subset")
    args = ap.parse_args(argv)
    spec = json.loads(Path(args.spec).read_text())
    out = Path(args.out)
    work = Path("/run/qoelab-work")
    work.mkdir(parents=True, exist_ok=True)
    runner = Runner(spec, out, work)
    lab.setup_lab()
    names = ["scenarios", "switching", "crash", "bad_requests", "single", "flow", "gilbert"]
    if args.sections:
        names = [n for n in names if n in args.sections.split(",")]
    for name in names:
        runner.section(name, getattr(runner, name))
    runner.results["finished"] = time.time()
    runner.save()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
