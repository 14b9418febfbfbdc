"""Benchmark: `qoe-analysis analyze` on 1,000,000 synthetic ratings (100,000 raters).

Run from the repository root:  .venv/bin/python analysis/bench/bench_analyze.py

* generates the ratings reproducibly (``generate_study(100_000, 100_000, seed=20240601)``)
  into var/bench/ratings_1m.csv (reused when present and of the right size);
* runs the real CLI in a subprocess (no --out, so no plots; stdout to a file) ``--repeat``
  times (default 3) and reports the fastest run with the others listed, with wall time and
  the peak RSS of that child (``os.wait4`` rusage, per child);
* if ``java`` and weka.jar exist, runs Weka 3.6 InfoGainAttributeEval and REPTree on the
  same rows (ARFF written once) and measures them the same way;
* prints a table and writes var/bench/analysis.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "var" / "bench"
SEED = 20240601
WEKA_JARS = (Path("/usr/share/java/weka.jar"), Path("/usr/share/java/weka-3.6.14.jar"))


def measure(cmd: list[str], stdout: Path) -> dict[str, Any]:
    """Run ``cmd``; wall time (s), peak RSS of the child (MiB) and exit code."""
    with stdout.open("wb") as sink:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    return {
        "command": " ".join(cmd),
        "wall_s": round(wall, 3),
        "peak_rss_mib": round(usage.ru_maxrss / 1024.0, 1),  # ru_maxrss is KiB on Linux
        "exit_code": proc.returncode,
        "stderr_tail": stderr.strip().splitlines()[-3:],
    }


def ensure_ratings(path: Path, participants: int) -> int:
    from qoe_analysis.synthetic import generate_study

    if path.exists():
        with path.open("rb") as fh:
            n = sum(1 for _ in fh) - 1
        if n == participants * 10:
            return n
    df, _ = generate_study(participants, participants, seed=SEED)
    df.to_csv(path, index=False)
    return len(df)


def write_arff(csv_path: Path, arff_path: Path, acceptable_from: int) -> None:
    """The same factors as `qoe-analysis analyze` uses, target rating >= acceptable_from."""
    from qoe_analysis import load_ratings
    from qoe_analysis.arff import to_arff
    from qoe_analysis.report import factor_frame

    table = load_ratings(csv_path)
    y = (table["rating"].to_numpy() >= acceptable_from).astype(int)
    arff_path.write_text(to_arff(factor_frame(table), y, relation="qoe_bench"), encoding="utf-8")


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--raters", type=int, default=100_000)
    parser.add_argument("--no-weka", action="store_true")
    parser.add_argument("--weka-heap", default="8g")
    parser.add_argument("--repeat", type=int, default=3, help="CLI runs (min is reported)")
    args = parser.parse_args()

    OUT.mkdir(parents=True, exist_ok=True)
    csv_path = OUT / f"ratings_{args.raters * 10}.csv"
    n_rows = ensure_ratings(csv_path, args.raters)
    exe = Path(sys.executable).with_name("qoe-analysis")
    results: dict[str, Any] = {
        "rows": n_rows,
        "raters": args.raters,
        "seed": SEED,
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
        "runs": {},
    }
    cli_runs = [
        measure([str(exe), "analyze", str(csv_path), "--seed", "0"], OUT / "analysis_1m.json")
        for _ in range(max(args.repeat, 1))
    ]
    best = min(cli_runs, key=lambda r: r["wall_s"])
    results["runs"]["qoe-analysis analyze"] = {
        **best,
        "all_wall_s": [r["wall_s"] for r in cli_runs],
        "all_peak_rss_mib": [r["peak_rss_mib"] for r in cli_runs],
        "exit_code": max(r["exit_code"] for r in cli_runs),
    }
    results["load_average_1min_after"] = os.getloadavg()[0]

    jar = next((j for j in WEKA_JARS if j.exists()), None)
    if not args.no_weka and jar is not None and shutil.which("java"):
        arff = csv_path.with_suffix(".arff")
        if not arff.exists():
            write_arff(csv_path, arff, acceptable_from=3)
        java = ["java", f"-Xmx{args.weka_heap}", "-cp", str(jar)]
        results["weka_jar"] = str(jar)
        results["runs"]["weka InfoGainAttributeEval"] = measure(
            [
                *java,
                "weka.attributeSelection.InfoGainAttributeEval",
                "-s",
                "weka.attributeSelection.Ranker",
                "-i",
                str(arff),
            ],
            OUT / "weka_infogain_1m.txt",
        )
        results["runs"]["weka REPTree"] = measure(
            [*java, "weka.classifiers.trees.REPTree", "-t", str(arff), "-no-cv", "-M", "2"],
            OUT / "weka_reptree_1m.txt",
        )

        results["weka_infogain_max_abs_diff"] = compare_infogain(
            OUT / "weka_infogain_1m.txt", OUT / "analysis_1m.json"
        )

    print(f"{'run':32s} {'wall [s]':>10s} {'peak RSS [MiB]':>15s} {'exit':>5s}")
    for name, run in results["runs"].items():
        print(f"{name:32s} {run['wall_s']:10.2f} {run['peak_rss_mib']:15.1f} {run['exit_code']:5d}")
    if len(cli_runs) > 1:
        print(f"qoe-analysis wall times of all runs: {[r['wall_s'] for r in cli_runs]}")
    (OUT / "analysis.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if results.get("weka_infogain_max_abs_diff") is not None:
        print(f"max |IG ours - IG Weka| = {results['weka_infogain_max_abs_diff']:.2e}")
    print(f"rows: {n_rows}; written {OUT / 'analysis.json'}")
    failed = any(run["exit_code"] != 0 for run in results["runs"].values())
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
