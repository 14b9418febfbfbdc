"""Live lab under load: 50 participant screens polling each second and 4 consoles.

    .venv/bin/python backend/bench/bench_live_lab.py [--seconds 40] [--sessions 50]
        [--consoles 4] [--period-ms 1000] [--console-period-ms 1000]
        [--saturation-seconds 10] [--rounds 1] [--baseline-root /path/to/another/checkout]

Starts the app of this checkout with the project's own gunicorn config
(deploy/gunicorn.conf.py; GUNICORN_WORKERS / GUNICORN_WORKER_CLASS / GUNICORN_THREADS
override it as in production) on loopback, against an own PostgreSQL database on the
server of DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres, as the test
kit) and an own Redis database as the cache; one dry-run netem agent per station; sets up
``--sessions`` playing sessions through the API; then runs the paced load of
:mod:`live_lab_load` for ``--seconds`` or ``--requests``, whichever ends first: every
screen sends one request per ``--period-ms`` (a poll, or its rating when one is due) and
every console reads a session view per ``--console-period-ms``, as the real screen and
console do. Afterwards every acknowledged rating must be stored exactly once (counted in
the database).

The profile is a real lab's worst case with headroom: a lab runs one session per seat
(a station), and 50 seats all playing at once, with 4 researchers watching, is more than
a lab room holds.

Goals: participant poll p99 <= 100 ms (the median of the rounds' p99, with their range as
the spread), no failed request on any path, every acknowledged rating stored exactly
once. Throughput is reported, not a goal: the offered rate is fixed by the schedule.
Saturation, for information: after the paced load, the same server gets
``--saturation-seconds`` of the same users without waits; its poll throughput is the
server's capacity under this mix (``saturation`` in the JSON). Its requests and ratings
count in the failed-request and stored-once goals.

With ``--baseline-root`` the same load also runs against another checkout (e.g. a copy
with another middleware list), interleaved A B A B over ``--rounds``, and its medians are
the baseline. Every round also reports the CPU of the server, its PostgreSQL backends, the
agents and the load generator, and how busy the whole machine was (``/proc/stat``), so
that a slow round can be told from a busy machine. Writes var/bench/<label>.json; exits 0
whether or not a target is met, non-zero on an error.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))

from live_lab_app import App, cpu_seconds, serve
from live_lab_load import LoadResult, Pace, run_load

REPO = Path(__file__).resolve().parents[2]
POLL = "participant poll"
TARGET_P99_MS = 100.0


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (0–100) by linear interpolation between order statistics
    (numpy's default "linear" method)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def stored_ratings(app: App) -> dict[tuple[int, str], int]:
    """How many rows the database holds per (session, idempotency key)."""
    with psycopg.connect(app.database_url) as connection:
        rows = connection.execute(
            "SELECT session_id, idempotency_key, count(*) FROM ratings_rating "
            "GROUP BY session_id, idempotency_key"
        ).fetchall()
    return {(session, key): n for session, key, n in rows}


def summarise(load: LoadResult) -> dict[str, Any]:
    """Requests, req/s, mean/p50/p99/max latency, errors and statuses per path."""
    paths = {}
    total = 0
    for name, stats in sorted(load.paths.items()):
        ms = [s * 1000 for s in stats.seconds]
        total += len(ms)
        paths[name] = {
            "requests": len(ms),
            "req_per_s": round(len(ms) / load.seconds, 1),
            "mean_ms": round(statistics.fmean(ms), 2) if ms else 0.0,
            "p50_ms": round(percentile(ms, 50) or 0, 2),
            "p99_ms": round(percentile(ms, 99) or 0, 2),
            "max_ms": round(max(ms, default=0), 2),
            "errors": stats.errors,
            "statuses": {str(k): v for k, v in sorted(stats.statuses.items())},
        }
    return {
        "seconds": round(load.seconds, 2),
        "requests": total,
        "req_per_s": round(total / load.seconds, 1),
        "paths": paths,
        "errors": sum(p["errors"] for p in paths.values()),
        "error_samples": load.error_samples,
    }


def rating_check(acked: set[tuple[int, str]], stored: dict[tuple[int, str], int]) -> dict[str, int]:
    """Every acknowledged rating against the rows the database holds."""
    return {
        "acknowledged": len(acked),
        "stored_exactly_once": sum(1 for key in acked if stored.get(key) == 1),
        "acknowledged_missing": sum(1 for key in acked if key not in stored),
        "duplicated": sum(1 for n in stored.values() if n > 1),
        "stored_not_acknowledged": sum(1 for key in stored if key not in acked),
    }


def machine_jiffies() -> tuple[int, int]:
    """(busy, total) clock ticks of all CPUs since boot (``/proc/stat``: busy = all but
    idle and iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields) - fields[3] - fields[4], sum(fields)


def postgres_pids(database_url: str) -> list[int]:
    """The PostgreSQL backends connected to the bench's database (the app's connections)."""
    with psycopg.connect(database_url) as connection:
        rows = connection.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ).fetchall()
    return [pid for (pid,) in rows]


class Meter:
    """The CPU each party used over a phase: the server (gunicorn's master and workers), its
    PostgreSQL backends, the dry-run agents, the load generator (this process), and the
    whole machine's busy cores (other jobs included)."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.pids = app.server_pids()
        self.postgres = {pid: cpu_seconds([pid]) for pid in postgres_pids(app.database_url)}
        self.server = cpu_seconds(self.pids)
        self.agents = cpu_seconds(app.agent_pids)
        self.client = resource.getrusage(resource.RUSAGE_SELF)
        self.machine = machine_jiffies()
        self.load = os.getloadavg()

    def read(self, requests: int) -> dict[str, Any]:
        server = cpu_seconds(self.pids) - self.server
        machine = machine_jiffies()
        # Backends opened during the phase count from 0 (their connection setup included).
        pg = sum(
            cpu_seconds([pid]) - self.postgres.get(pid, 0.0)
            for pid in postgres_pids(self.app.database_url)
        )
        client = resource.getrusage(resource.RUSAGE_SELF)
        busy = machine[0] - self.machine[0]
        total = machine[1] - self.machine[1]
        return {
            "server_cpu_s": round(server, 2),
            "server_cpu_ms_per_request": round(server * 1000 / max(requests, 1), 2),
            "postgres_cpu_s": round(pg, 2),
            "agents_cpu_s": round(cpu_seconds(self.app.agent_pids) - self.agents, 2),
            "client_cpu_s": round(
                client.ru_utime + client.ru_stime - self.client.ru_utime - self.client.ru_stime,
                2,
            ),
            # Busy cores of the whole machine, averaged over the phase (2.0: both saturated).
            "machine_busy_cores": round((os.cpu_count() or 1) * busy / max(total, 1), 2),
            "loadavg_before": [round(x, 2) for x in self.load],
            "loadavg_after": [round(x, 2) for x in os.getloadavg()],
            "server_processes": len(self.pids),
        }


def phase(app: App, args: argparse.Namespace, pace: Pace, seconds: float) -> LoadResult:
    return run_load(app, seconds=seconds, requests=args.requests, consoles=args.consoles, pace=pace)


def one_round(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The paced load, then (``--saturation-seconds``) the same users without waits, on
    one server; then the ratings of both against the database."""
    with (
        tempfile.TemporaryDirectory(prefix="bench-live-lab-") as work,
        serve(root, Path(work), stations=args.sessions, gunicorn_env={}) as app,
    ):
        pace = Pace(args.period_ms / 1000, args.console_period_ms / 1000)
        meter = Meter(app)
        load = phase(app, args, pace, args.seconds)
        result = summarise(load)
        result |= meter.read(result["requests"])
        result["period_ms"] = args.period_ms
        result["console_period_ms"] = args.console_period_ms
        acked = set(load.acknowledged)
        if args.saturation_seconds > 0:
            meter = Meter(app)
            saturated = phase(app, args, Pace(0.0, 0.0), args.saturation_seconds)
            result["saturation"] = summarise(saturated)
            result["saturation"] |= meter.read(result["saturation"]["requests"])
            acked |= saturated.acknowledged
        result["ratings"] = rating_check(acked, stored_ratings(app))
        return result


def commit_of(root: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip()


def goal(
    text: str,
    measured: float,
    unit: str,
    target: str,
    passed: bool,
    baseline: float | None,
    name: str | None,
    *,
    limit: float | None = None,
    spread: list[float] | None = None,
) -> dict[str, Any]:
    """One entry of the shared ``goals`` list (scripts/bench_report.py); ``limit`` and
    ``spread`` (the rounds' range) let the report tell a verdict within noise."""
    entry: dict[str, Any] = {
        "goal": text,
        "measured": measured,
        "unit": unit,
        "baseline": name,
        "baseline_measured": baseline,
        "ratio": round(measured / baseline, 3) if baseline else None,
        "target": target,
        "pass": passed,
    }
    if limit is not None and spread:
        entry |= {"limit": limit, "compare": "<=", "spread": spread}
    return entry


def median_of(runs: list[dict[str, Any]], pick: Any) -> float | None:
    values = [pick(run) for run in runs]
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 2) if values else None


def range_of(runs: list[dict[str, Any]], pick: Any) -> list[float] | None:
    values = [pick(run) for run in runs]
    values = [v for v in values if v is not None]
    return [min(values), max(values)] if values else None


def headline(result: dict[str, Any]) -> str:
    poll = result["paths"].get(POLL, {})
    return (
        f"{result['req_per_s']} req/s overall; poll {poll.get('req_per_s')} req/s "
        f"mean {poll.get('mean_ms')} p50 {poll.get('p50_ms')} p99 {poll.get('p99_ms')} ms; "
        f"errors {result['errors']}; CPU s: server {result['server_cpu_s']} "
        f"({result['server_cpu_ms_per_request']} ms/req), postgres {result['postgres_cpu_s']}, "
        f"client {result['client_cpu_s']}; machine {result['machine_busy_cores']} cores busy, "
        f"load {result['loadavg_after'][0]}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0, help="load duration per round")
    parser.add_argument("--requests", type=int, default=200_000, help="request budget per round")
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--consoles", type=int, default=4)
    parser.add_argument(
        "--period-ms", type=float, default=1000.0, help="one request per screen per period"
    )
    parser.add_argument(
        "--console-period-ms", type=float, default=1000.0, help="one view per console per period"
    )
    parser.add_argument(
        "--saturation-seconds",
        type=float,
        default=10.0,
        help="then the same users without waits, for information (0: skip)",
    )
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--baseline-root", type=Path, help="another checkout to load the same way")
    parser.add_argument("--label", default="live_lab", help="var/bench/<label>.json")
    args = parser.parse_args()

    plan = [("new", REPO)]
    if args.baseline_root:
        plan = [("baseline", args.baseline_root.resolve()), ("new", REPO)]
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name, _ in plan}
    for round_number in range(args.rounds):
        for name, root in plan:
            print(f"round {round_number + 1}/{args.rounds}: {name} ({root}) ...", flush=True)
            result = one_round(root, args)
            runs[name].append(result)
            print(f"  paced ({args.period_ms:g} ms): {headline(result)}", flush=True)
            if "saturation" in result:
                print(f"  saturation (no waits): {headline(result['saturation'])}", flush=True)
            print(f"  ratings {result['ratings']}", flush=True)

    new = runs["new"]
    base = runs.get("baseline", [])
    base_name = (
        f"{args.baseline_root.name} @ {commit_of(args.baseline_root)}"
        if args.baseline_root
        else None
    )

    def poll_value(key: str) -> Any:
        return lambda run: run["paths"].get(POLL, {}).get(key)

    def saturated_poll(run: dict[str, Any]) -> Any:
        return run.get("saturation", {}).get("paths", {}).get(POLL, {}).get("req_per_s")

    p99 = median_of(new, poll_value("p99_ms")) or 0.0
    # Errors and ratings of both phases: the saturation phase is not a goal, but a failed
    # request or a lost rating under it is still a fault.
    phases = list(new) + [run["saturation"] for run in new if "saturation" in run]
    errors = sum(run["errors"] for run in phases)
    requests = sum(run["requests"] for run in phases)
    acked = sum(run["ratings"]["acknowledged"] for run in new)
    once = sum(run["ratings"]["stored_exactly_once"] for run in new)
    extra = sum(run["ratings"]["duplicated"] for run in new)
    lab = (
        f"live lab, {args.sessions} screens polling every {args.period_ms / 1000:g} s "
        f"+ {args.consoles} consoles"
    )
    goals = [
        goal(
            f"{lab}: participant poll p99",
            p99,
            "ms",
            f"<= {TARGET_P99_MS:g} ms",
            p99 <= TARGET_P99_MS,
            median_of(base, poll_value("p99_ms")),
            base_name,
            limit=TARGET_P99_MS,
            spread=range_of(new, poll_value("p99_ms")),
        ),
        goal(
            "live lab: failed requests (all paths, saturation phase included) / requests",
            round(errors / max(requests, 1), 6),
            "ratio",
            "== 0",
            errors == 0,
            None,
            None,
        ),
        goal(
            "live lab: acknowledged ratings stored exactly once / acknowledged",
            round(once / acked, 6) if acked else 0.0,
            "ratio",
            "== 1 (no duplicates)",
            acked > 0 and once == acked and extra == 0,
            None,
            None,
        ),
    ]
    # Reported, not goals: the paced rate (fixed by the schedule) and the capacity.
    throughput = {
        "poll_req_per_s": median_of(new, poll_value("req_per_s")),
        "all_req_per_s": median_of(new, lambda run: run["req_per_s"]),
        "saturation_poll_req_per_s": median_of(new, saturated_poll),
        "baseline_poll_p99_ms_range": range_of(base, poll_value("p99_ms")),
        "baseline_saturation_poll_req_per_s": median_of(base, saturated_poll),
    }
    document = {
        "goals": goals,
        "throughput": throughput,
        "runs": runs,
        "settings": {
            "seconds": args.seconds,
            "requests": args.requests,
            "sessions": args.sessions,
            "consoles": args.consoles,
            "period_ms": args.period_ms,
            "console_period_ms": args.console_period_ms,
            "saturation_seconds": args.saturation_seconds,
            "rounds": args.rounds,
            "gunicorn_env": {k: v for k, v in os.environ.items() if k.startswith("GUNICORN_")},
            "commit": commit_of(REPO),
        },
        "environment": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "machine": platform.machine(),
            "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        },
    }
    out = REPO / "var" / "bench" / f"{args.label}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    for g in goals:
        mark = "PASS" if g["pass"] else "FAIL"
        base_text = (
            f" (baseline {g['baseline_measured']})" if g["baseline_measured"] is not None else ""
        )
        print(f"{mark} {g['goal']}: {g['measured']} {g['unit']}{base_text}; target {g['target']}")
    print(f"throughput (reported, not a goal): {throughput}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
