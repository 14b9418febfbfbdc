"""`celery` with the analysis paced, for the production smoke test (test_production_smoke.py).

    python deploy/tests/paced_worker.py --app qoelab worker --concurrency 1 ...

Exactly the `celery` command (same arguments, same app, same production settings), except
that ``qoe_analysis.analyze`` sleeps SMOKE_ANALYSIS_STAGE_SECONDS (default 0.5) after each
of its progress reports. An analysis takes about a second even on the largest import the
backend accepts, too short to stop a worker reliably in the middle of it; paced, it runs for
several seconds through the same stages, progress writes and result, so the test can kill
the worker while the job is visibly running. The analysis itself is unchanged.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

import qoe_analysis

STAGE_SECONDS = float(os.environ.get("SMOKE_ANALYSIS_STAGE_SECONDS", "0.5"))
_analyze = qoe_analysis.analyze


def paced_analyze(
    table: Any, *, progress: Callable[[float, str], None] | None = None, **kwargs: Any
) -> Any:
    def report(fraction: float, stage: str) -> None:
        if progress is not None:
            progress(fraction, stage)
        if fraction < 1.0:
            time.sleep(STAGE_SECONDS)

    return _analyze(table, progress=report, **kwargs)


# The task imports `analyze` from the package when it runs, in the prefork children, which
# inherit this module's change.
qoe_analysis.analyze = paced_analyze

if __name__ == "__main__":
    from celery.__main__ import main

    sys.exit(main())
