"""The import tests follow a job to its end in-process, with or without a broker."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _imports_in_process(tasks_in_process: None) -> None:
    """Every test here runs the import task in-process (see ``tasks_in_process``)."""
