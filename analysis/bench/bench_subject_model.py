"""Benchmark: the MLE subject model on 1,000,000 ratings from 100,000 raters.

Run from the repository root:  .venv/bin/python analysis/bench/bench_subject_model.py

* simulates u = ψ_j + Δ_i + υ_i·ε reproducibly (seed 20240601): 100,000 raters rate 10 of
  30 conditions each (missing cells everywhere), true parameters known;
* fits :func:`qoe_analysis.stats.subject_model_mle.fit_subject_model_arrays` in a child process
  ``--repeat`` times (default 3) and reports the fastest fit, the child's peak RSS
  (``os.wait4`` rusage) and the recovery of the true parameters;
* budget (issue 14): fit ≤ 10 s and peak RSS ≤ 1 GiB; exit code 1 if exceeded;
* writes var/bench/subject_model.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "var" / "bench"
SEED = 20240601
RATERS, CONDITIONS, PER_RATER = 100_000, 30, 10
BUDGET_S, BUDGET_MIB = 10.0, 1024.0


def child() -> None:
    """Simulate, fit once, print timings and recovery as JSON (run in a fresh process)."""
    import numpy as np
    from qoe_analysis.stats.subject_model_mle import fit_subject_model_arrays

    rng = np.random.default_rng(SEED)
    psi = rng.uniform(1.0, 5.0, CONDITIONS)
    delta = rng.normal(0.0, 0.4, RATERS)
    upsilon = rng.uniform(0.4, 1.0, RATERS)
    raters = np.repeat(np.arange(RATERS), PER_RATER)
    # each rater rates PER_RATER distinct conditions: the first columns of a random permutation
    conditions = np.argsort(rng.random((RATERS, CONDITIONS)), axis=1)[:, :PER_RATER].ravel()
    u = psi[conditions] + delta[raters] + upsilon[raters] * rng.standard_normal(raters.size)
    start = time.perf_counter()
    fit = fit_subject_model_arrays(raters, conditions, u, RATERS, CONDITIONS)
    elapsed = time.perf_counter() - start
    ok = fit.rater_fitted
    print(
        json.dumps(
            {
                "fit_s": round(elapsed, 3),
                "status": fit.status,
                "iterations": fit.iterations,
                "converged": fit.converged,
                "n_ratings": int(u.size),
                "bias_corr": float(np.corrcoef(fit.bias[ok], delta[ok])[0, 1]),
                "inconsistency_corr": float(np.corrcoef(fit.inconsistency[ok], upsilon[ok])[0, 1]),
                "quality_max_abs_err": float(np.nanmax(np.abs(fit.quality - psi))),
            }
        )
    )


def run_once() -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child"]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        raise SystemExit(f"child failed: {err.strip().splitlines()[-3:]}")
    result: dict[str, Any] = json.loads(out)
    result["process_wall_s"] = round(time.perf_counter() - start, 3)
    result["peak_rss_mib"] = round(usage.ru_maxrss / 1024.0, 1)  # KiB on Linux
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child()
        return 0
    runs = [run_once() for _ in range(max(args.repeat, 1))]
    best = min(runs, key=lambda r: r["fit_s"])
    peak = max(r["peak_rss_mib"] for r in runs)
    within = best["fit_s"] <= BUDGET_S and peak <= BUDGET_MIB
    report = {
        "benchmark": "MLE subject model, 1,000,000 ratings, 100,000 raters x 10 of 30 conditions",
        "seed": SEED,
        "budget": {"fit_s": BUDGET_S, "peak_rss_mib": BUDGET_MIB},
        "best": best,
        "runs": runs,
        "within_budget": within,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "subject_model.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"fit {best['fit_s']:.2f} s (budget {BUDGET_S:g} s), peak RSS {peak:.0f} MiB "
          f"(budget {BUDGET_MIB:g} MiB), {best['iterations']} iterations, "
          f"converged={best['converged']}, bias r={best['bias_corr']:.3f}; "
          f"runs: {[r['fit_s'] for r in runs]}")  # fmt: skip
    return 0 if within else 1


if __name__ == "__main__":
    raise SystemExit(main())
