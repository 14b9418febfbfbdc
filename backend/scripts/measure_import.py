"""Measure a ratings import end to end: job created → done (issue 16: 100,000 rows ≤ 10 s).

Runs against the database of the environment (SQLite under QOELAB_DATA_DIR by default,
PostgreSQL with DATABASE_URL), with the task in-process (no CELERY_BROKER_URL) as in the
demo. Loads the example study under a fresh slug, generates N rows
(:mod:`qoelab.exports.sample_ratings`), submits them through the import service and prints
the job's timings as JSON. Not a test: a measurement to run by hand, e.g.

    QOELAB_DATA_DIR=/tmp/qoelab-measure .venv/bin/python backend/scripts/measure_import.py \
        --rows 100000 --migrate
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import sys
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qoelab.settings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--migrate", action="store_true", help="migrate the database first")
    parser.add_argument("--profile", action="store_true", help="print the top functions")
    args = parser.parse_args()

    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    if args.migrate:
        call_command("migrate", verbosity=0)
    from qoelab.exports.import_jobs import submit_import
    from qoelab.exports.models import ImportJob
    from qoelab.exports.sample_ratings import sample_csv
    from qoelab.studies.study_document import load_study_document, read_study_document

    assert settings.CELERY_TASK_ALWAYS_EAGER, "unset CELERY_BROKER_URL: the task runs in-process"
    document = read_study_document(settings.FIXTURES_DIR / "studies" / "cloud-gaming-2014.json")
    document["slug"] = f"measure-{uuid.uuid4().hex[:8]}"
    study = load_study_document(document).study
    data = sample_csv(study, args.rows).encode()
    profiler = cProfile.Profile() if args.profile else None
    started = time.perf_counter()
    cpu_started = time.process_time()
    if profiler:
        profiler.enable()
    submission = submit_import(study, [data], file_name="measure.csv")
    if profiler:
        profiler.disable()
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    job = ImportJob.objects.get(pk=submission.job.pk)
    assert job.finished_at is not None and job.started_at is not None
    print(
        json.dumps(
            {
                "database": connection.vendor,
                "rows": args.rows,
                "bytes": len(data),
                "state": job.state,
                "error": job.error,
                "ratings": job.ratings,
                "created_to_done_s": round((job.finished_at - job.created_at).total_seconds(), 2),
                "task_s": round((job.finished_at - job.started_at).total_seconds(), 2),
                "submit_wall_s": round(wall, 2),
                # CPU seconds of this process: less sensitive to a busy machine than wall
                # time (the database's own work is included for SQLite, not for PostgreSQL).
                "submit_cpu_s": round(cpu, 2),
                "load_average_1min": round(os.getloadavg()[0], 1),
            }
        )
    )
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


if __name__ == "__main__":
    main()
