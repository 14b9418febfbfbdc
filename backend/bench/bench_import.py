"""Benchmark: a 100,000-row ratings CSV imported as the import job runs it (issue 16, goal 5).

Run from the repository root:  .venv/bin/python backend/bench/bench_import.py

It uses the database of the environment (PostgreSQL with ``DATABASE_URL``, else SQLite
in a scratch ``QOELAB_DATA_DIR``), migrates it, and with ``CELERY_BROKER_URL`` unset the
task runs in-process, as in the demo. Per run:

* a fresh copy of the example study (``fixtures/studies/cloud-gaming-2014.json``) under a
  new slug;
* the CSV: ``--rows`` rows shaped like the export's round trip (identity, the four
  impairment columns, rating, ``response_ms``, ``since_end_ms``, ``agent_backend``,
  ``agent_version``, a game name that needs the formula escape); generated once,
  reproducibly (seed ``SEED``), then the same bytes every run;
* **measured**: ``submit_import`` (store the upload, count and limit the rows, create the
  job, run the task ``exports.run_import``) until the job has succeeded, wall time;
* **baseline** "pandas read_csv + COPY" (SQLite: "+ to_sql"): the same file read by
  ``pandas.read_csv`` and copied into a scratch table of the same database in one
  transaction (no validation, no lookups, no sessions), the floor of moving these bytes
  into the database.

Runs are interleaved (import, baseline, import, baseline …), ``--runs`` of each (default 3),
medians reported. Writes var/bench/import.json (the shared format) with rows/s, per-run
figures (wall, this process's CPU and the PostgreSQL backend's CPU: the work, whatever the
machine's load), the database and the load average; ``--profile`` prints a cProfile of
one import.
Exits 0 when a goal fails (the aggregate decides), non-zero on an error (a failed job).
"""

from __future__ import annotations

import argparse
import atexit
import cProfile
import io
import json
import os
import platform
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "var" / "bench"
SEED = 20261125
TARGET_S = 10.0
#: The baseline's name per database (COPY on PostgreSQL, ``DataFrame.to_sql`` on SQLite).
BASELINES = {"postgresql": "pandas read_csv + COPY", "sqlite": "pandas read_csv + to_sql"}
SCRATCH_TABLE = "bench_import_baseline"

sys.path.insert(0, str(ROOT / "backend" / "src"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qoelab.settings")
if not os.environ.get("DATABASE_URL") and "QOELAB_DATA_DIR" not in os.environ:
    # never the developer's var/qoelab.sqlite3: a scratch data folder (and SQLite file)
    _SCRATCH = tempfile.mkdtemp(prefix="qoelab-bench-import-")
    os.environ["QOELAB_DATA_DIR"] = _SCRATCH
    atexit.register(shutil.rmtree, _SCRATCH, ignore_errors=True)
os.environ.pop("CELERY_BROKER_URL", None)


def generate_csv(study: Any, rows: int, seed: int = SEED) -> bytes:
    """``rows`` importable rows for ``study``'s design: rater ``R<n>`` plays every game once
    and rates every active scenario in a shuffled order; ratings, times and agent versions
    drawn from ``random.Random(seed)``. The game is renamed ``=Ball`` beforehand by
    :func:`prepare_study`, so its cells carry the export's formula escape (``'=Ball``)."""
    from qoelab.exports.sample_ratings import scenario_cells

    rng = random.Random(seed)
    scenarios = scenario_cells(study)
    games = [
        (f"'{game.name}" if game.name.startswith("=") else game.name, game.pace)
        for game in study.games.order_by("pk")
    ]
    out = io.StringIO()
    out.write(
        "rater_id,session_id,game,game_pace,scenario,ds_delay_ms,us_delay_ms,ds_loss_pct,"
        "us_loss_pct,rating,response_ms,since_end_ms,agent_backend,agent_version\n"
    )
    written = 0
    rater = 0
    while written < rows:
        rater += 1
        for game_index, (game, pace) in enumerate(games):
            order = list(scenarios)
            rng.shuffle(order)
            for cells in order:
                if written == rows:
                    return out.getvalue().encode()
                version = f"1.{rng.randrange(3)}.{rng.randrange(10)}"
                out.write(
                    f"R{rater},R{rater}-{game_index},{game},{pace},{cells},"
                    f"{rng.randint(1, 5)},{rng.randint(800, 9000)},{rng.randint(0, 400)},"
                    f"netlink,{version}\n"
                )
                written += 1
    return out.getvalue().encode()


def prepare_study() -> Any:
    """A fresh copy of the example study; its first game named ``=Ball`` (formula cell)."""
    from django.conf import settings
    from qoelab.studies.study_document import load_study_document, read_study_document

    document = read_study_document(settings.FIXTURES_DIR / "studies" / "cloud-gaming-2014.json")
    document["slug"] = f"bench-import-{uuid.uuid4().hex[:8]}"
    study = load_study_document(document).study
    game = study.games.order_by("pk").first()
    assert game is not None
    game.name = "=" + game.name
    game.save(update_fields=["name"])
    return study


def database_cpu_s() -> float | None:
    """CPU seconds used so far by the PostgreSQL backend serving this connection (from
    /proc, when the server runs on this machine), else None. With the process's own CPU
    time it is the import's work independent of how busy the machine is."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return None  # SQLite works inside this process: its CPU time is ours
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # utime and stime, fields 14 and 15 of proc(5), counted after the ")" of the name
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_import(data: bytes, profile: bool) -> dict[str, Any]:
    """One import of ``data`` into a fresh study, as the job runs it."""
    from qoelab.exports.import_jobs import submit_import
    from qoelab.exports.models import ImportJob

    study = prepare_study()
    profiler = cProfile.Profile() if profile else None
    db_cpu = database_cpu_s()
    started = time.perf_counter()
    cpu = time.process_time()
    if profiler is not None:
        profiler.enable()
    submission = submit_import(study, [data], file_name="bench.csv")
    if profiler is not None:
        profiler.disable()
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu
    db_cpu_after = database_cpu_s()
    job = ImportJob.objects.get(pk=submission.job.pk)
    if job.state != "succeeded":
        raise SystemExit(f"the import job failed: {job.error}")
    assert job.started_at is not None and job.finished_at is not None
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
    return {
        "wall_s": round(wall, 3),
        "task_s": round((job.finished_at - job.started_at).total_seconds(), 3),
        "cpu_s": round(cpu, 3),
        "db_cpu_s": (
            round(db_cpu_after - db_cpu, 3)
            if db_cpu is not None and db_cpu_after is not None
            else None
        ),
        "ratings": job.ratings,
        "sessions": job.sessions,
        "participants_created": job.participants_created,
    }


def run_baseline(path: Path) -> dict[str, Any]:
    """pandas ``read_csv`` of the file, then the rows into a scratch table by COPY
    (PostgreSQL) or ``DataFrame.to_sql`` (SQLite), one transaction."""
    import pandas as pd
    from django.db import connection, transaction

    db_cpu = database_cpu_s()
    started = time.perf_counter()
    cpu = time.process_time()
    frame = pd.read_csv(path)
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            types = {"int64": "bigint", "float64": "double precision"}
            columns = ", ".join(
                f'"{name}" {types.get(str(dtype), "text")}' for name, dtype in frame.dtypes.items()
            )
            cursor.execute(f"DROP TABLE IF EXISTS {SCRATCH_TABLE}")
            cursor.execute(f"CREATE TABLE {SCRATCH_TABLE} ({columns})")
            buffer = io.StringIO()
            frame.to_csv(buffer, index=False, header=False)
            with cursor.cursor.copy(f"COPY {SCRATCH_TABLE} FROM STDIN (FORMAT csv)") as copy:
                copy.write(buffer.getvalue())
        else:
            frame.to_sql(SCRATCH_TABLE, connection.connection, if_exists="replace", index=False)
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu
    db_cpu_after = database_cpu_s()
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE IF EXISTS {SCRATCH_TABLE}")
    return {
        "wall_s": round(wall, 3),
        "cpu_s": round(cpu, 3),
        "db_cpu_s": (
            round(db_cpu_after - db_cpu, 3)
            if db_cpu is not None and db_cpu_after is not None
            else None
        ),
        "rows": len(frame),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile the first import")
    parser.add_argument("--out", type=Path, default=OUT / "import.json")
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    assert settings.CELERY_TASK_ALWAYS_EAGER, "the task must run in-process"
    call_command("migrate", verbosity=0)
    data = generate_csv(prepare_study(), args.rows)
    csv_path = Path(tempfile.mkdtemp(prefix="bench-import-")) / "ratings.csv"
    csv_path.write_bytes(data)

    imports: list[dict[str, Any]] = []
    baselines: list[dict[str, Any]] = []
    loads = [os.getloadavg()[0]]
    for run in range(args.runs):
        imports.append(run_import(data, args.profile and run == 0))
        baselines.append(run_baseline(csv_path))
        loads.append(os.getloadavg()[0])
        print(
            f"run {run + 1}: import {imports[-1]['wall_s']:.2f} s "
            f"(task {imports[-1]['task_s']:.2f} s, cpu {imports[-1]['cpu_s']:.2f} s, "
            f"database cpu {imports[-1]['db_cpu_s']} s), "
            f"baseline {baselines[-1]['wall_s']:.2f} s, load {loads[-1]:.2f}",
            flush=True,
        )
        if imports[-1]["ratings"] != args.rows:
            raise SystemExit(f"imported {imports[-1]['ratings']} ratings, not {args.rows}")
    shutil.rmtree(csv_path.parent)

    measured = statistics.median(r["wall_s"] for r in imports)
    baseline = statistics.median(r["wall_s"] for r in baselines)
    baseline_name = BASELINES[connection.vendor]
    goal = {
        "goal": f"import a {args.rows:,}-row ratings CSV as a background job, wall",
        "measured": round(measured, 3),
        "unit": "s",
        "baseline": baseline_name,
        "baseline_measured": round(baseline, 3),
        "ratio": round(measured / baseline, 2) if baseline else None,
        "target": f"<= {TARGET_S:g} s",
        "pass": measured <= TARGET_S,
    }
    result = {
        "goals": [goal],
        "rows": args.rows,
        "bytes": len(data),
        "seed": SEED,
        "database": connection.vendor,
        "rows_per_s": round(args.rows / measured),
        "baseline_rows_per_s": round(args.rows / baseline) if baseline else None,
        "task_s_median": round(statistics.median(r["task_s"] for r in imports), 3),
        "cpu_s_median": round(statistics.median(r["cpu_s"] for r in imports), 3),
        "db_cpu_s_median": (
            round(statistics.median(r["db_cpu_s"] for r in imports), 3)
            if all(r["db_cpu_s"] is not None for r in imports)
            else None
        ),
        "imports": imports,
        "baselines": baselines,
        "load_average_1min": [round(x, 2) for x in loads],
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"import {args.rows:,} rows ({connection.vendor}): {measured:.2f} s median "
        f"({result['rows_per_s']:,} rows/s); {baseline_name}: {baseline:.2f} s; "
        f"ratio {goal['ratio']}; target {goal['target']}: {'PASS' if goal['pass'] else 'FAIL'}"
    )
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
