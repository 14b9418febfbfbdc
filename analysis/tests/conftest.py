"""Shared fixtures: the checked-in synthetic study and helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from qoe_analysis import load_ratings

REPO = Path(__file__).resolve().parents[2]
STUDY_DIR = REPO / "fixtures" / "synthetic" / "dissertation_shape"
WEKA_DIR = REPO / "fixtures" / "datasets" / "weka_reference"


@pytest.fixture(scope="session")
def study_dir() -> Path:
    """fixtures/synthetic/dissertation_shape: ratings.csv + truth.json (seed 2013)."""
    return STUDY_DIR


@pytest.fixture(scope="session")
def weka_dir() -> Path:
    """Weka 3.6.14 reference outputs (see make_reference.sh there)."""
    return WEKA_DIR


@pytest.fixture(scope="session")
def study() -> pd.DataFrame:
    """The generated study in the dissertation's shape (790 ratings), validated."""
    return load_ratings(STUDY_DIR / "ratings.csv")


@pytest.fixture(scope="session")
def study_truth() -> dict[str, Any]:
    return json.loads((STUDY_DIR / "truth.json").read_text())


@pytest.fixture(scope="session")
def study_doc(study: pd.DataFrame) -> dict[str, Any]:
    from qoe_analysis import analyze

    return analyze(study)
