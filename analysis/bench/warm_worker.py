"""The analysis as the Celery worker runs it, timed in one warm process.

    .venv/bin/python analysis/bench/warm_worker.py RATINGS.csv [--repeat 7]

The worker (``backend/src/qoelab/analysis_jobs/run_job.py``) imports the analysis once per
process, then for each job loads the stored CSV text with ``load_ratings`` and calls
``analyze(table, seed=0)`` with warnings recorded. This script does the same: one untimed
job warms the imports and the caches, then ``--repeat`` jobs are timed (wall clock and
CPU of this process). Prints one JSON object: the per-job seconds, their median and range.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import time
import warnings
from pathlib import Path
from typing import Any


def one_job(text: str) -> tuple[float, float]:
    """Wall and CPU seconds of ``analyze(load_ratings(text))`` as the worker calls it."""
    from qoe_analysis import analyze, load_ratings

    wall, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        analyze(load_ratings(io.StringIO(text)), seed=0)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ratings", type=Path)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    text = args.ratings.read_text(encoding="utf-8")
    one_job(text)  # the worker's first job: imports, caches
    walls, cpus = zip(*(one_job(text) for _ in range(max(args.repeat, 1))), strict=True)
    result: dict[str, Any] = {
        "jobs": len(walls),
        "wall_s": [round(w, 4) for w in walls],
        "cpu_s": [round(c, 4) for c in cpus],
        "median_wall_s": round(statistics.median(walls), 4),
        "median_cpu_s": round(statistics.median(cpus), 4),
        "wall_range_s": [round(min(walls), 4), round(max(walls), 4)],
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
