"""Benchmark: `qoe-analysis analyze` against the pandas baseline and Weka (issue 16, goal 1).

Run from the repository root:  .venv/bin/python analysis/bench/bench_analyze.py

* generates the ratings reproducibly (``generate_study(n/10, n/10, seed=20240601)``) into
  var/bench/ratings_<n>.csv for n = 1,200, 100,000 and 1,000,000 (reused when present);
* runs, interleaved in the same run (A B A B …, ``--repeat`` rounds, default 5), the real
  CLI in a subprocess (no --out, so no plots; stdout to a file) and the plain
  pandas/SciPy/scikit-learn script of analysis/bench/baseline_pandas.py, and at 1 M also
  Weka 3.6 InfoGainAttributeEval + REPTree (``--weka-repeat`` rounds, default 5: one in
  each round, so a drift of the machine's speed moves both sides of the ratio) when
  ``java`` and weka.jar exist (Debian: ``apt-get install -y weka``);
* per run: wall time, CPU = user + sys of the child and its peak RSS (``os.wait4``);
  medians over the rounds are compared;
* ``--with-10m`` adds one CLI run on 10,000,000 ratings for the peak-RSS goal (long);
* writes var/bench/analysis.json (the shared ``goals`` format) and prints a table.

Every child runs with byte-code caching on (a private ``PYTHONPYCACHEPREFIX`` under
var/bench/, warmed by one untimed run of each program): an installed package has its .pyc
files (the images build with UV_COMPILE_BYTECODE=1), while PYTHONDONTWRITEBYTECODE=1 in a
development shell would make every run compile SciPy and scikit-learn from source.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "var" / "bench"
# What the measured programs print (large JSON documents), apart from the bench results
# that scripts/bench_report.py reads from OUT.
RUN_OUT = OUT / "outputs"
BASELINE = Path(__file__).resolve().with_name("baseline_pandas.py")
SEED = 20240601
WEKA_JARS = (Path("/usr/share/java/weka.jar"), Path("/usr/share/java/weka-3.6.14.jar"))
WEKA_HOWTO = "install Weka 3.6 and Java to measure it: sudo apt-get install -y weka default-jre"
BASELINE_NAME = "pandas/SciPy/sklearn script"


def child_env() -> dict[str, str]:
    """The environment of every timed child: byte-code cache on, in var/bench/pycache."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(OUT / "pycache")
    return env


def measure(cmd: list[str], stdout: Path) -> dict[str, Any]:
    """Run ``cmd``; wall time (s), CPU user + sys (s), peak RSS (MiB) of the child, exit."""
    with stdout.open("wb") as sink:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.PIPE, env=child_env())
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    return {
        "wall_s": round(wall, 3),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
        "peak_rss_mib": round(usage.ru_maxrss / 1024.0, 1),  # ru_maxrss is KiB on Linux
        "exit_code": proc.returncode,
        "stderr_tail": stderr.strip().splitlines()[-3:],
    }


def in_child(function: str, *arguments: str) -> None:
    """Run ``function(*arguments)`` of this script in a child process: the bench process
    stays small, since a child's peak RSS (``ru_maxrss``) counts the memory it shares with
    the parent at fork time (before exec)."""
    subprocess.run(
        [sys.executable, __file__, "--call", function, *arguments], check=True, env=child_env()
    )


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


def write_arff(csv_path: str, arff_path: str, acceptable_from: str) -> None:
    """The same factors as `qoe-analysis analyze` uses, target rating >= acceptable_from."""
    from qoe_analysis import load_ratings
    from qoe_analysis.io.arff import to_arff
    from qoe_analysis.report import factor_frame

    table = load_ratings(csv_path)
    y = (table["rating"].to_numpy() >= float(acceptable_from)).astype(int)
    Path(arff_path).write_text(
        to_arff(factor_frame(table), y, relation="qoe_bench"), encoding="utf-8"
    )


def compare_infogain(weka_output: Path, analysis_json: Path) -> float | None:
    """Largest |ours − Weka| over the factors (Weka's Ranker prints 8 decimals)."""
    ours = json.loads(analysis_json.read_text())["weights"]["weka"]
    diffs = []
    in_ranking = False
    for line in weka_output.read_text().splitlines():
        if line.startswith("Ranked attributes"):
            in_ranking = True
            continue
        parts = line.split()
        if in_ranking and len(parts) == 3:
            diffs.append(abs(float(parts[0]) - ours[parts[2]]))
        elif in_ranking and not parts:
            break
    return max(diffs) if diffs else None


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the rounds, with every run kept."""
    return {
        "median_wall_s": round(statistics.median(r["wall_s"] for r in runs), 3),
        "median_cpu_s": round(statistics.median(r["cpu_s"] for r in runs), 3),
        "max_peak_rss_mib": max(r["peak_rss_mib"] for r in runs),
        "exit_code": max(r["exit_code"] for r in runs),
        "runs": runs,
    }


def goal(
    text: str,
    measured: float | None,
    unit: str,
    baseline: str | None,
    baseline_measured: float | None,
    target: str,
    ok: Callable[[float], bool],
    *,
    use_ratio: bool,
    note: str | None = None,
) -> dict[str, Any]:
    """One entry of the shared ``goals`` list; ``ok`` judges the ratio or the value."""
    ratio = (
        round(measured / baseline_measured, 4)
        if measured is not None and baseline_measured
        else None
    )
    judged = ratio if use_ratio else measured
    entry: dict[str, Any] = {
        "goal": text,
        "measured": measured,
        "unit": unit,
        "baseline": baseline,
        "baseline_measured": baseline_measured,
        "ratio": ratio,
        "target": target,
        "pass": judged is not None and ok(judged),
    }
    if note:
        entry["note"] = note
    return entry


def weka_commands(jar: Path, arff: Path, heap: str) -> dict[str, list[str]]:
    java = ["java", f"-Xmx{heap}", "-cp", str(jar)]
    return {
        "infogain": [
            *java,
            "weka.attributeSelection.InfoGainAttributeEval",
            "-s",
            "weka.attributeSelection.Ranker",
            "-i",
            str(arff),
        ],
        "reptree": [*java, "weka.classifiers.trees.REPTree", "-t", str(arff), "-no-cv", "-M", "2"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds per size")
    parser.add_argument("--sizes", default="1200,100000,1000000", help="rows, comma-separated")
    parser.add_argument("--no-weka", action="store_true")
    parser.add_argument("--weka-repeat", type=int, default=5, help="Weka rounds at 1 M")
    parser.add_argument("--weka-heap", default="8g")
    parser.add_argument("--with-10m", action="store_true", help="also 10 M ratings (peak RSS)")
    parser.add_argument("--call", nargs="+", help=argparse.SUPPRESS)  # see in_child
    args = parser.parse_args()
    if args.call:
        {"write_ratings": write_ratings, "write_arff": write_arff}[args.call[0]](*args.call[1:])
        return 0

    RUN_OUT.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    exe = Path(sys.executable).with_name("qoe-analysis")
    cli = [str(exe)] if exe.exists() else [sys.executable, "-m", "qoe_analysis.cli"]
    jar = next((j for j in WEKA_JARS if j.exists()), None)
    have_weka = not args.no_weka and jar is not None and shutil.which("java") is not None
    if not have_weka and not args.no_weka:
        print(f"Weka not found (java, /usr/share/java/weka.jar): {WEKA_HOWTO}")
    paths = {n: ensure_ratings(n) for n in sizes}

    def ours(n: int) -> dict[str, Any]:
        return measure(
            [*cli, "analyze", str(paths[n]), "--seed", "0"], RUN_OUT / f"analysis_{n}.json"
        )

    def baseline(n: int) -> dict[str, Any]:
        return measure(
            [sys.executable, str(BASELINE), str(paths[n])], RUN_OUT / f"baseline_{n}.json"
        )

    # untimed warm-up: fills the byte-code cache and the page cache for both programs
    smallest = min(sizes)
    ours(smallest)
    baseline(smallest)

    results: dict[str, Any] = {
        "seed": SEED,
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
        "load_average_1min_before": os.getloadavg()[0],
        "sizes": {},
    }
    arff = None
    if have_weka and 1_000_000 in sizes:
        assert jar is not None
        arff = paths[1_000_000].with_suffix(".arff")
        if not arff.exists():
            in_child("write_arff", str(paths[1_000_000]), str(arff), "3")
    for n in sizes:
        runs: dict[str, list[dict[str, Any]]] = {"qoe-analysis": [], "baseline": [], "weka": []}
        for round_ in range(max(args.repeat, 1)):
            runs["qoe-analysis"].append(ours(n))
            runs["baseline"].append(baseline(n))
            if arff is not None and n == 1_000_000 and round_ < args.weka_repeat:
                assert jar is not None
                parts = {
                    name: measure(cmd, OUT / f"weka_{name}_{n}.txt")
                    for name, cmd in weka_commands(jar, arff, args.weka_heap).items()
                }
                runs["weka"].append(
                    {
                        "wall_s": round(sum(p["wall_s"] for p in parts.values()), 3),
                        "cpu_s": round(sum(p["cpu_s"] for p in parts.values()), 3),
                        "peak_rss_mib": max(p["peak_rss_mib"] for p in parts.values()),
                        "exit_code": max(p["exit_code"] for p in parts.values()),
                        "parts": parts,
                    }
                )
        entry = {name: summarise(r) for name, r in runs.items() if r}
        if runs["weka"]:
            # the CPU ratio of each round: how much one round's verdict can move
            entry["cpu_ratio_to_weka_per_round"] = [
                round(ours_run["cpu_s"] / weka_run["cpu_s"], 4)
                for ours_run, weka_run in zip(runs["qoe-analysis"], runs["weka"], strict=False)
            ]
            entry["weka_infogain_max_abs_diff"] = compare_infogain(
                OUT / f"weka_infogain_{n}.txt", RUN_OUT / f"analysis_{n}.json"
            )
        results["sizes"][str(n)] = entry
    if args.with_10m:
        big = ensure_ratings(10_000_000)
        run = measure(
            [*cli, "analyze", str(big), "--seed", "0"], RUN_OUT / "analysis_10000000.json"
        )
        results["sizes"]["10000000"] = {"qoe-analysis": summarise([run])}
    results["load_average_1min_after"] = os.getloadavg()[0]
    results["goals"] = goals(results["sizes"])

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
        print(
            f"{'PASS' if g['pass'] else 'FAIL'}  {g['goal']}: {g['measured']} {g['unit']}{ratio} "
            f"(target {g['target']})" + (f" - {g['note']}" if g.get("note") else "")
        )
    (OUT / "analysis.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"written {OUT / 'analysis.json'}")
    failed = any(
        s["exit_code"] != 0
        for entry in results["sizes"].values()
        for s in entry.values()
        if isinstance(s, dict) and "exit_code" in s
    )
    return 1 if failed else 0


def goals(sizes: dict[str, Any]) -> list[dict[str, Any]]:
    """The goals of issue 16, goal 1, from the medians."""
    out = []

    def med(n: int, name: str, key: str) -> float | None:
        entry = sizes.get(str(n), {}).get(name)
        return None if entry is None else entry[key]

    def versus_pandas(
        n: int, text: str, key: str, target: str, ok: Callable[[float], bool], *, use_ratio: bool
    ) -> dict[str, Any]:
        """A goal on ``key`` (seconds) of our run against the pandas script's at size ``n``."""
        return goal(
            text,
            med(n, "qoe-analysis", key),
            "s",
            BASELINE_NAME,
            med(n, "baseline", key),
            target,
            ok,
            use_ratio=use_ratio,
        )

    if str(1200) in sizes:
        out.append(
            versus_pandas(
                1200,
                "analyze 1,200 ratings, wall",
                "median_wall_s",
                "<= 1.0 s",
                lambda v: v <= 1.0,
                use_ratio=False,
            )
        )
    if str(100_000) in sizes:
        out.append(
            versus_pandas(
                100_000,
                "analyze 100 k ratings, CPU",
                "median_cpu_s",
                "<= 0.8x baseline",
                lambda r: r <= 0.8,
                use_ratio=True,
            )
        )
    if str(1_000_000) in sizes:
        ours_cpu = med(1_000_000, "qoe-analysis", "median_cpu_s")
        weka_cpu = med(1_000_000, "weka", "median_cpu_s")
        out.append(
            goal(
                "analyze 1 M ratings, CPU vs Weka InfoGain + REPTree",
                ours_cpu,
                "s",
                "Weka 3.6 InfoGainAttributeEval + REPTree",
                weka_cpu,
                "<= 0.10x baseline",
                lambda r: r <= 0.10,
                use_ratio=True,
                note=None if weka_cpu is not None else f"not measured: {WEKA_HOWTO}",
            )
        )
        out.append(
            versus_pandas(
                1_000_000,
                "analyze 1 M ratings, CPU vs pandas script",
                "median_cpu_s",
                "<= 0.5x baseline",
                lambda r: r <= 0.5,
                use_ratio=True,
            )
        )
    if "10000000" in sizes:
        out.append(
            goal(
                "analyze 10 M ratings, peak RSS",
                med(10_000_000, "qoe-analysis", "max_peak_rss_mib"),
                "MiB",
                None,
                None,
                "<= 8192 MiB",
                lambda v: v <= 8192,
                use_ratio=False,
            )
        )
    return out


if __name__ == "__main__":
    raise SystemExit(main())
