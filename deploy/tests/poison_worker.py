"""`celery` with switchable poison jobs, for test_job_bounds.py.

    POISON_DIR=... python deploy/tests/poison_worker.py --app qoelab worker --queues heavy ...

Exactly the `celery` command (same arguments, app and production settings), except that the
test can make one run of a chosen job overrun its time limit. A switch is a file in
POISON_DIR named ``<kind>-<job>``; the run that finds its switch removes it, so the next
delivery of the same job runs normally unless the test puts the file back. ``<job>`` names
the job by its content, known before it is submitted: ``import-<first 16 hex digits of the
file's SHA-256>``, or ``analysis-<min_reliable_raters>`` (an option the test sets apart).
The kinds:

* ``slow``: the run sleeps (an interruptible wait) instead of working: the soft time limit
  stops it, or the test kills its process;
* ``stubborn``: the run also blocks the soft limit's signal (SIGUSR1, billiard's
  SIG_SOFT_TIMEOUT), as a run stuck in C code would ignore it: only the hard limit ends it,
  the worker killing the process.

The switch is looked at where the real work starts (``qoe_analysis.analyze``, the import's
``import_ratings``), after the run has claimed its job: the job is ``running`` and its
attempt counted, as with a real overrun.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import qoe_analysis
from celery import signals

POISON_DIR = Path(os.environ.get("POISON_DIR", "."))
_analyze = qoe_analysis.analyze


def take_poison(job: str) -> None:
    """Overrun as the switch for ``job`` says (if there is one), removing the switch."""
    for kind in ("stubborn", "slow"):
        try:
            (POISON_DIR / f"{kind}-{job}").unlink()
        except FileNotFoundError:
            continue
        if kind == "stubborn":
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
        time.sleep(3600)


def poisoned_analyze(table: Any, **kwargs: Any) -> Any:
    take_poison(f"analysis-{kwargs.get('min_reliable_raters')}")
    return _analyze(table, **kwargs)


@signals.task_prerun.connect
def poison_the_import(**_: Any) -> None:
    """Wrap the import's work once per process (Django is set up by the time a task runs)."""
    from qoelab.exports import import_run

    real = import_run.import_ratings
    if getattr(real, "poisoned", False):
        return

    def poisoned_import(study: Any, lines: Any, digest: str, *args: Any, **kwargs: Any) -> Any:
        take_poison(f"import-{digest}")
        return real(study, lines, digest, *args, **kwargs)

    poisoned_import.poisoned = True  # type: ignore[attr-defined]
    import_run.import_ratings = poisoned_import


# The task imports `analyze` from the package when it runs, in the prefork children, which
# inherit this module's change.
qoe_analysis.analyze = poisoned_analyze

if __name__ == "__main__":
    from celery.__main__ import main

    sys.exit(main())
