"""deploy/gunicorn.conf.py's defaults: worker processes per CPU, threads, override by env."""

from __future__ import annotations

import multiprocessing
import runpy
from pathlib import Path
from typing import Any

import pytest

CONF = Path(__file__).resolve().parents[1] / "gunicorn.conf.py"


def settings(monkeypatch: pytest.MonkeyPatch, cpus: int, **env: str) -> dict[str, Any]:
    for name in ("GUNICORN_WORKERS", "GUNICORN_THREADS", "GUNICORN_WORKER_CLASS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(multiprocessing, "cpu_count", lambda: cpus)
    return runpy.run_path(str(CONF))


@pytest.mark.parametrize(("cpus", "workers"), [(1, 2), (2, 3), (4, 5), (7, 8), (32, 8)])
def test_one_threaded_worker_per_cpu_plus_one_at_most_eight(
    monkeypatch: pytest.MonkeyPatch, cpus: int, workers: int
) -> None:
    conf = settings(monkeypatch, cpus)
    assert conf["workers"] == workers
    assert conf["worker_class"] == "gthread" and conf["threads"] == 8


def test_the_environment_overrides_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    conf = settings(monkeypatch, 2, GUNICORN_WORKERS="5", GUNICORN_THREADS="4")
    assert conf["workers"] == 5 and conf["threads"] == 4
