"""pytest configuration of the deployment suite (run from deploy/: ../.venv/bin/pytest)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "system: starts the production stack as separate processes (gunicorn, Celery "
        "worker, dry-run agent) against PostgreSQL and Redis; deselect with -m 'not system'",
    )
    config.addinivalue_line(
        "markers",
        "slow: runs a whole tool chain on a copy of the tree (e.g. the CI gate with "
        "`make lint`); deselect with -m 'not slow'",
    )
    config.addinivalue_line(
        "markers",
        "kernel: boots the user-mode Linux kernel (package user-mode-linux) and measures "
        "netem with real packets; deselect with -m 'not kernel'",
    )
