"""Shared fixtures: the checked-in synthetic study and helpers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
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


def _correlations_with_ties(rng: np.random.Generator, n: int, nan_share: float = 0.2) -> Any:
    values = np.where(rng.random(n) < 0.5, rng.uniform(-1, 1, n), rng.integers(-16, 17, n) / 16)
    values[rng.random(n) < nan_share] = np.nan
    return values


@pytest.fixture(scope="session")
def correlations_with_ties() -> Any:
    """``f(rng, n, nan_share=0.2)``: n correlation-like values in [-1, 1] for the reason-text
    tests, half uniform, half on a 1/16 grid (exact binary ties of a 3-decimal rounding), a
    ``nan_share`` of them NaN."""
    return _correlations_with_ties
