"""holdout_rows: hand-checked sizes, and the same rows as scikit-learn's train_test_split."""

from __future__ import annotations

import numpy as np
import pytest
from qoe_analysis.models.holdout import holdout_rows


def test_sizes_and_strata_by_hand() -> None:
    # 9 rows, 1/3 held out → ⌈3⌉ = 3; classes 6 × 0 and 3 × 1: train shares 4 + 2, then the
    # 3 held out rows are 2 of class 0 and 1 of class 1 (exact shares, no remainder)
    y = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1])
    held = holdout_rows(y, 1 / 3, seed=0, stratify=True)
    assert held.size == 3 and len(set(held.tolist())) == 3
    assert np.bincount(y[held], minlength=2).tolist() == [2, 1]
    assert holdout_rows(np.arange(10) % 2, 1 / 3, seed=3, stratify=False).size == 4  # ⌈10/3⌉


def test_refuses_what_sklearn_refuses() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        holdout_rows(np.array([0, 0, 0, 1]), 1 / 3, seed=0, stratify=True)
    with pytest.raises(ValueError, match="empty"):
        holdout_rows(np.array([1]), 1 / 3, seed=0, stratify=False)


def test_same_rows_as_train_test_split() -> None:
    from sklearn.model_selection import train_test_split

    rng = np.random.default_rng(7)
    for _ in range(400):
        n = int(rng.integers(4, 300))
        y = (rng.random(n) < rng.uniform(0.05, 0.95)).astype(np.int64)
        fraction = float(rng.choice([1 / 3, 0.25, 0.5, 0.1]))
        seed = int(rng.integers(0, 1000))
        stratify = bool(np.bincount(y, minlength=2).min() >= 2) and bool(rng.integers(2))
        try:
            _, expected = train_test_split(
                np.arange(n),
                test_size=fraction,
                random_state=seed,
                stratify=y if stratify else None,
            )
        except ValueError:
            with pytest.raises(ValueError):
                holdout_rows(y, fraction, seed, stratify=stratify)
            continue
        assert sorted(holdout_rows(y, fraction, seed, stratify=stratify)) == sorted(expected)


@pytest.mark.parametrize(
    "y",
    [
        np.array([2, 0, 2, 5, 0, 5, 2, 2, 0, 5, 5, 0]),  # counted: classes 0, 2, 5
        np.array([True, False, True, True, False, False, True, False]),
        np.array([3, 3, 64, 64, 3, 64, 3, 64], dtype=np.uint8),  # 64: sorted
        np.array([-1, 1, -1, 1, 1, -1, 1, -1]),  # a negative class: sorted
        np.array([0.5, 1.5, 0.5, 1.5, 0.5, 1.5, 0.5, 1.5]),
        np.array(["b", "a", "b", "a", "b", "a", "a", "b"]),
    ],
)
def test_same_rows_for_any_classes(y: np.ndarray) -> None:
    """Counted small integer classes and sorted other classes hold out the rows
    scikit-learn holds out (several classes, booleans, floats, texts)."""
    from sklearn.model_selection import train_test_split

    for seed in range(20):
        _, expected = train_test_split(
            np.arange(y.size), test_size=0.25, random_state=seed, stratify=y
        )
        assert sorted(holdout_rows(y, 0.25, seed, stratify=True)) == sorted(expected)
