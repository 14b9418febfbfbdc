"""Live lab under load (issue 16, goal 3): 50 live sessions on PostgreSQL, closed loop.

    .venv/bin/python backend/bench/bench_live_lab.py [--seconds 40] [--sessions 50]
        [--baseline-root /path/to/a/checkout/of/main]

Starts the app of this checkout with the project's own gunicorn config
(deploy/gunicorn.conf.py; GUNICORN_WORKERS / GUNICORN_WORKER_CLASS / GUNICORN_THREADS
override it as in production) on loopback, against an own PostgreSQL database on the
server of DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres, as the test
kit) and an own Redis database as the cache; one dry-run netem agent per station; sets up
``--sessions`` playing sessions through the API; then runs the load of
:mod:`live_lab_load` (one screen per session, ``--consoles`` consoles) for ``--seconds``
or ``--requests``, whichever ends first. Afterwards every acknowledged rating must be
stored exactly once (counted in the database).

Targets (absolute, issue 16): participant poll p99 <= 100 ms and >= 500 req/s, 0 errors
on every path, acknowledged ratings stored once. With ``--baseline-root`` the same load
also runs against another checkout (e.g. ``git worktree add ../base main``), interleaved
A B A B over ``--rounds``, and its medians are the baseline. Writes
var/bench/live_lab.json; exits 0 whether or not a target is met, non-zero on an error.
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
from live_lab_load import LoadResult, run_load

REPO = Path(__file__).resolve().parents[2]
POLL = "participant poll"
TARGET_P99_MS = 100.0
TARGET_RPS = 500.0


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


def summarise(load: LoadResult, stored: dict[tuple[int, str], int], cpu: float) -> dict[str, Any]:
    paths = {}
    total = 0
    for name, stats in sorted(load.paths.items()):
        ms = [s * 1000 for s in stats.seconds]
        total += len(ms)
        paths[name] = {
            "requests": len(ms),
            "req_per_s": round(len(ms) / load.seconds, 1),
            "p50_ms": round(percentile(ms, 50) or 0, 2),
            "p99_ms": round(percentile(ms, 99) or 0, 2),
            "max_ms": round(max(ms, default=0), 2),
            "errors": stats.errors,
            "statuses": {str(k): v for k, v in sorted(stats.statuses.items())},
        }
    acked = load.acknowledged
    once = sum(1 for key in acked if stored.get(key) == 1)
    return {
        "seconds": round(load.seconds, 2),
        "requests": total,
        "req_per_s": round(total / load.seconds, 1),
        "paths": paths,
        "errors": sum(p["errors"] for p in paths.values()),
        "error_samples": load.error_samples,
        "ratings": {
            "acknowledged": len(acked),
            "stored_exactly_once": once,
            "acknowledged_missing": sum(1 for key in acked if key not in stored),
            "duplicated": sum(1 for n in stored.values() if n > 1),
            "stored_not_acknowledged": sum(1 for key in stored if key not in acked),
        },
        "server_cpu_s": round(cpu, 2),
        "server_cpu_ms_per_request": round(cpu * 1000 / max(total, 1), 2),
    }


def one_round(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    with (
        tempfile.TemporaryDirectory(prefix="bench-live-lab-") as work,
        serve(root, Path(work), stations=args.sessions, gunicorn_env={}) as app,
    ):
        load_before = os.getloadavg()
        pids = app.server_pids()
        cpu_start = cpu_seconds(pids)
        agents_start = cpu_seconds(app.agent_pids)
        client_start = resource.getrusage(resource.RUSAGE_SELF)
        load = run_load(app, seconds=args.seconds, requests=args.requests, consoles=args.consoles)
        cpu = cpu_seconds(pids) - cpu_start
        client_end = resource.getrusage(resource.RUSAGE_SELF)
        result = summarise(load, stored_ratings(app), cpu)
        # Who else used the two cores: the load generator itself and the agents.
        result["client_cpu_s"] = round(
            client_end.ru_utime
            + client_end.ru_stime
            - client_start.ru_utime
            - client_start.ru_stime,
            2,
        )
        result["agents_cpu_s"] = round(cpu_seconds(app.agent_pids) - agents_start, 2)
        result["loadavg_before"] = [round(x, 2) for x in load_before]
        result["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
        result["server_processes"] = len(pids)
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
) -> dict[str, Any]:
    return {
        "goal": text,
        "measured": measured,
        "unit": unit,
        "baseline": name,
        "baseline_measured": baseline,
        "ratio": round(measured / baseline, 3) if baseline else None,
        "target": target,
        "pass": passed,
    }


def median_of(runs: list[dict[str, Any]], pick: Any) -> float | None:
    values = [pick(run) for run in runs]
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 2) if values else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0, help="load duration per round")
    parser.add_argument("--requests", type=int, default=200_000, help="request budget per round")
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--consoles", type=int, default=4)
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
            poll = result["paths"].get(POLL, {})
            print(
                f"  {result['req_per_s']} req/s overall; poll {poll.get('req_per_s')} req/s "
                f"p50 {poll.get('p50_ms')} ms p99 {poll.get('p99_ms')} ms; "
                f"errors {result['errors']}; ratings {result['ratings']}; "
                f"load {result['loadavg_after']}",
                flush=True,
            )

    new = runs["new"]
    base = runs.get("baseline", [])
    base_name = f"main @ {commit_of(args.baseline_root)}" if args.baseline_root else None

    def poll_value(key: str) -> Any:
        return lambda run: run["paths"].get(POLL, {}).get(key)

    p99 = median_of(new, poll_value("p99_ms")) or 0.0
    rps = median_of(new, poll_value("req_per_s")) or 0.0
    errors = sum(run["errors"] for run in new)
    requests = sum(run["requests"] for run in new)
    acked = sum(run["ratings"]["acknowledged"] for run in new)
    once = sum(run["ratings"]["stored_exactly_once"] for run in new)
    extra = sum(run["ratings"]["duplicated"] for run in new)
    lab = f"live lab, {args.sessions} sessions + {args.consoles} consoles"
    goals = [
        goal(
            f"{lab}: participant poll p99",
            p99,
            "ms",
            f"<= {TARGET_P99_MS:g} ms",
            p99 <= TARGET_P99_MS,
            median_of(base, poll_value("p99_ms")),
            base_name,
        ),
        goal(
            f"{lab}: participant poll throughput",
            rps,
            "req/s",
            f">= {TARGET_RPS:g} req/s",
            rps >= TARGET_RPS,
            median_of(base, poll_value("req_per_s")),
            base_name,
        ),
        goal(
            "live lab: failed requests (all paths) / requests",
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
    document = {
        "goals": goals,
        "runs": runs,
        "settings": {
            "seconds": args.seconds,
            "requests": args.requests,
            "sessions": args.sessions,
            "consoles": args.consoles,
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
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
