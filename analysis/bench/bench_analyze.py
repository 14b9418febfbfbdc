"""Benchmark: the analysis's goals, as a user meets them (docs/performance.md).

Run from the repository root:  .venv/bin/python analysis/bench/bench_analyze.py

* generates the ratings reproducibly (``generate_study(n/10, n/10, seed=20240601)``) into
  var/bench/ratings_<n>.csv for each size of ``--sizes`` (default 1,200, 100,000 and
  1,000,000; reused when present);
* warm worker: :mod:`warm_worker` loads and analyses the 1,200 ratings in one process as
  the Celery worker does (one untimed job, then ``--worker-repeat`` timed jobs);
* runs, interleaved (A B A B …, ``--repeat`` rounds), the real CLI in a subprocess (no
  --out, so no plots; stdout to a file) and the plain pandas/SciPy/scikit-learn script of
  baseline_pandas.py; at 1 M also Weka InfoGainAttributeEval + REPTree (:mod:`weka`) in
  the same rounds (``--weka-repeat`` of them), so that a drift of the machine's speed moves
  both sides of a ratio;
* per run: wall time, CPU = user + sys of the child and its peak RSS (``os.wait4``);
  a goal compares the medians, and its spread is the range over the rounds of the same
  quantity (each round's own ratio for a ratio), which scripts/bench_report.py uses to
  call a verdict "within noise";
* ``--with-10m`` adds one CLI run on 10,000,000 ratings for the peak-memory goal;
* writes var/bench/analysis.json (the shared ``goals`` format) and prints a table.

The children run in the environment as it is (``PYTHONDONTWRITEBYTECODE`` included): the
goals hold for an install that compiled its bytecode (scripts/bootstrap-python.sh), and
the results say whether the measured one did.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import weka

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "var" / "bench"
# What the measured programs print (large JSON documents), apart from the bench results
# that scripts/bench_report.py reads from OUT.
RUN_OUT = OUT / "outputs"
HERE = Path(__file__).resolve().parent
SEED = 20240601
LAB = 1200
BASELINE_NAME = "pandas/SciPy/sklearn script"
COMPILED = ("numpy", "pandas", "scipy", "sklearn")


def measure(cmd: list[str], stdout: Path) -> dict[str, Any]:
    """Run ``cmd``; wall time (s), CPU user + sys (s), peak RSS (MiB) of the child, exit."""
    with stdout.open("wb") as sink:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    return {
        "wall_s": round(wall, 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "peak_rss_mib": round(usage.ru_maxrss / 1024.0, 1),  # ru_maxrss is KiB on Linux
        "exit_code": os.waitstatus_to_exitcode(status),
        "stderr_tail": stderr.strip().splitlines()[-3:],
    }


def bytecode_installed() -> dict[str, float]:
    """Per library the CLI and the script import: the share of its modules that have a .pyc
    of this interpreter (without, every process under PYTHONDONTWRITEBYTECODE compiles
    them again)."""
    site = Path(sysconfig.get_paths()["purelib"])
    tag = sys.implementation.cache_tag
    shares = {}
    for name in COMPILED:
        sources = list((site / name).rglob("*.py"))
        compiled = sum(
            (source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc").exists()
            for source in sources
        )
        shares[name] = round(compiled / len(sources), 3) if sources else 0.0
    return shares


def in_child(function: str, *arguments: str) -> None:
    """``function(*arguments)`` of this script in a child: the bench process stays small."""
    subprocess.run([sys.executable, __file__, "--call", function, *arguments], check=True)


def ensure_ratings(n_rows: int) -> Path:
    """var/bench/ratings_<n>.csv with n rows (n/10 raters, one session each)."""
    path = OUT / f"ratings_{n_rows}.csv"
    if path.exists():
        with path.open("rb") as fh:
            if sum(1 for _ in fh) - 1 == n_rows:
                return path
    in_child("write_ratings", str(n_rows), str(path))
    return path


def write_ratings(n_rows: str, path: str) -> None:
    from qoe_analysis.synthetic import generate_study

    df, _ = generate_study(int(n_rows) // 10, int(n_rows) // 10, seed=SEED)
    assert len(df) == int(n_rows), len(df)
    df.to_csv(path, index=False)


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians and ranges over the rounds, with every run kept."""
    walls = [r["wall_s"] for r in runs]
    cpus = [r["cpu_s"] for r in runs]
    return {
        "median_wall_s": round(statistics.median(walls), 3),
        "median_cpu_s": round(statistics.median(cpus), 3),
        "wall_range_s": [min(walls), max(walls)],
        "cpu_range_s": [min(cpus), max(cpus)],
        "max_peak_rss_mib": max(r["peak_rss_mib"] for r in runs),
        "exit_code": max(r["exit_code"] for r in runs),
        "runs": runs,
    }


def goal(
    text: str,
    measured: float | None,
    unit: str,
    limit: float,
    spread: list[float] | None,
    *,
    baseline: str | None = None,
    baseline_measured: float | None = None,
    note: str | None = None,
) -> dict[str, Any]:
    """One entry of the shared ``goals`` list. With a baseline the ratio is judged against
    ``limit`` (and ``spread`` holds the rounds' ratios); without, the measured value."""
    ratio = (
        round(measured / baseline_measured, 4)
        if measured is not None and baseline_measured
        else None
    )
    judged = ratio if baseline else measured
    entry: dict[str, Any] = {
        "goal": text,
        "measured": measured,
        "unit": unit,
        "baseline": baseline,
        "baseline_measured": baseline_measured,
        "ratio": ratio,
        "target": f"<= {limit:g}x baseline" if baseline else f"<= {limit:g} {unit}",
        "pass": judged is not None and judged <= limit,
        "limit": limit,
        "compare": "<=",
    }
    if spread:
        entry["spread"] = [round(min(spread), 4), round(max(spread), 4)]
    if note:
        entry["note"] = note
    return entry


def paired_ratios(ours: list[dict[str, Any]], ref: list[dict[str, Any]], key: str) -> list[float]:
    """Each round's own ratio (the two runs of one round saw the same machine)."""
    return [a[key] / b[key] for a, b in zip(ours, ref, strict=False) if b[key]]


def goals(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The goals of docs/performance.md from the measured sizes."""
    sizes, out = results["sizes"], []
    worker = results.get("warm_worker")
    if worker:
        out.append(
            goal(
                "analysis of 1,200 ratings in a warm worker, wall",
                worker["median_wall_s"],
                "s",
                0.2,
                worker["wall_range_s"],
            )
        )

    def versus(n: int, ref: str, key: str, limit: float, text: str, name: str) -> None:
        entry = sizes.get(str(n), {})
        ours, theirs = entry.get("qoe-analysis"), entry.get(ref)
        note = None
        if ref == "weka" and theirs is None:
            note = f"not measured: {weka.HOWTO}"
        median = f"median_{key}"
        out.append(
            goal(
                text,
                ours[median] if ours else None,
                "s",
                limit,
                paired_ratios(ours["runs"], theirs["runs"], key) if ours and theirs else None,
                baseline=name,
                baseline_measured=theirs[median] if theirs else None,
                note=note,
            )
        )

    if str(LAB) in sizes:
        versus(LAB, "baseline", "wall_s", 1.2, "CLI on 1,200 ratings, wall", BASELINE_NAME)
    for n, label in ((100_000, "100 k"), (1_000_000, "1 M")):
        if str(n) in sizes:
            versus(n, "baseline", "cpu_s", 0.8, f"CLI on {label} ratings, CPU", BASELINE_NAME)
    if "1000000" in sizes:
        versus(
            1_000_000,
            "weka",
            "cpu_s",
            0.25,
            "CLI on 1 M ratings, CPU vs Weka",
            "Weka InfoGainAttributeEval + REPTree",
        )
    if "10000000" in sizes:
        big = sizes["10000000"]["qoe-analysis"]
        out.append(
            goal("CLI on 10 M ratings, peak RSS", big["max_peak_rss_mib"], "MiB", 8192, None)
        )
    return out


def run_weka(jar: Path, csv: Path, heap: str) -> dict[str, Any]:
    """One Weka round (both programs) on the ARFF next to ``csv`` (written once)."""
    arff = csv.with_suffix(".arff")
    if not arff.exists():
        in_child("write_arff", str(csv), str(arff), "3")
    parts = {
        name: measure(cmd, OUT / f"weka_{name}_{csv.stem}.txt")
        for name, cmd in weka.commands(jar, arff, heap).items()
    }
    return {
        "wall_s": round(sum(p["wall_s"] for p in parts.values()), 3),
        "cpu_s": round(sum(p["cpu_s"] for p in parts.values()), 3),
        "peak_rss_mib": max(p["peak_rss_mib"] for p in parts.values()),
        "exit_code": max(p["exit_code"] for p in parts.values()),
        "parts": parts,
    }


def print_results(results: dict[str, Any]) -> None:
    print(f"{'rows':>10s} {'program':14s} {'wall [s]':>9s} {'CPU [s]':>8s} {'RSS [MiB]':>10s}")
    for n, entry in results["sizes"].items():
        for name in ("qoe-analysis", "baseline", "weka"):
            if name in entry:
                s = entry[name]
                print(
                    f"{int(n):10d} {name:14s} {s['median_wall_s']:9.2f} {s['median_cpu_s']:8.2f} "
                    f"{s['max_peak_rss_mib']:10.1f}"
                )
    for g in results["goals"]:
        ratio = "" if g["ratio"] is None else f" ratio {g['ratio']:.3f}"
        spread = f" spread {g['spread']}" if "spread" in g else ""
        print(
            f"{'PASS' if g['pass'] else 'FAIL'}  {g['goal']}: {g['measured']} {g['unit']}{ratio}"
            f"{spread} (target {g['target']})" + (f" - {g['note']}" if g.get("note") else "")
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds per size")
    parser.add_argument("--sizes", default="1200,100000,1000000", help="rows, comma-separated")
    parser.add_argument("--worker-repeat", type=int, default=7, help="timed warm-worker jobs")
    parser.add_argument("--no-weka", action="store_true")
    parser.add_argument("--weka-repeat", type=int, default=5, help="Weka rounds at 1 M")
    parser.add_argument("--weka-heap", default="8g")
    parser.add_argument("--with-10m", action="store_true", help="also 10 M ratings (peak RSS)")
    parser.add_argument("--call", nargs="+", help=argparse.SUPPRESS)  # see in_child
    args = parser.parse_args()
    if args.call:
        calls: dict[str, Callable[..., None]] = {
            "write_ratings": write_ratings,
            "write_arff": weka.write_arff,
        }
        calls[args.call[0]](*args.call[1:])
        return 0

    RUN_OUT.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    exe = Path(sys.executable).with_name("qoe-analysis")
    cli = [str(exe)] if exe.exists() else [sys.executable, "-m", "qoe_analysis.cli"]
    jar = None if args.no_weka else weka.find_jar()
    if jar is None and not args.no_weka:
        print(f"Weka not found (java, weka.jar): {weka.HOWTO}")
    compiled = bytecode_installed()
    if min(compiled.values()) < 0.9:
        missing = ", ".join(f"{name} {share:.0%}" for name, share in compiled.items())
        print(
            f"warning: modules with installed bytecode: {missing}: run scripts/bootstrap-python.sh"
        )
    paths = {n: ensure_ratings(n) for n in sizes}
    results: dict[str, Any] = {
        "seed": SEED,
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
        "bytecode_installed": compiled,
        "pythondontwritebytecode": bool(os.environ.get("PYTHONDONTWRITEBYTECODE")),
        "load_average_1min_before": os.getloadavg()[0],
        "sizes": {},
    }
    if LAB in sizes:
        job = [str(HERE / "warm_worker.py"), str(paths[LAB]), "--repeat", str(args.worker_repeat)]
        worker = subprocess.run(
            [sys.executable, *job],
            check=True,
            capture_output=True,
            text=True,
        )
        results["warm_worker"] = json.loads(worker.stdout)

    def ours(n: int) -> dict[str, Any]:
        return measure(
            [*cli, "analyze", str(paths[n]), "--seed", "0"], RUN_OUT / f"analysis_{n}.json"
        )

    def baseline(n: int) -> dict[str, Any]:
        script = [sys.executable, str(HERE / "baseline_pandas.py"), str(paths[n])]
        return measure(script, RUN_OUT / f"baseline_{n}.json")

    # untimed warm-up of the page cache for both programs
    ours(min(sizes))
    baseline(min(sizes))
    for n in sizes:
        runs: dict[str, list[dict[str, Any]]] = {"qoe-analysis": [], "baseline": [], "weka": []}
        for round_ in range(max(args.repeat, 1)):
            runs["qoe-analysis"].append(ours(n))
            runs["baseline"].append(baseline(n))
            if jar is not None and n == 1_000_000 and round_ < args.weka_repeat:
                runs["weka"].append(run_weka(jar, paths[n], args.weka_heap))
        entry: dict[str, Any] = {name: summarise(r) for name, r in runs.items() if r}
        if runs["weka"]:
            entry["weka_infogain_max_abs_diff"] = weka.infogain_difference(
                OUT / f"weka_infogain_{paths[n].stem}.txt", RUN_OUT / f"analysis_{n}.json"
            )
        results["sizes"][str(n)] = entry
    if args.with_10m:
        big = ensure_ratings(10_000_000)
        run = measure(
            [*cli, "analyze", str(big), "--seed", "0"], RUN_OUT / "analysis_10000000.json"
        )
        results["sizes"]["10000000"] = {"qoe-analysis": summarise([run])}
    results["load_average_1min_after"] = os.getloadavg()[0]
    results["goals"] = goals(results)
    print_results(results)
    (OUT / "analysis.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"written {OUT / 'analysis.json'}")
    failed = any(
        s["exit_code"] != 0
        for entry in results["sizes"].values()
        for s in entry.values()
        if isinstance(s, dict) and "exit_code" in s
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
