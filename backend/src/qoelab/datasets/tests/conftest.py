"""The dataset import tests run the job in-process (as the demo does, without a broker),
with QOELAB_DATA_DIR in a temporary folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import override_settings


@pytest.fixture(autouse=True)
def _jobs_in_process(tasks_in_process: None) -> None:
    """Every test here runs the import task in-process (see ``tasks_in_process``)."""


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path) -> Iterator[Path]:
    """QOELAB_DATA_DIR in a temporary folder; yields the imports folder."""
    with override_settings(DATA_DIR=tmp_path):
        yield tmp_path / "imports"
