"""The REPTree hold-out: which rows are set aside for pruning.

The rows are the ones scikit-learn's ``train_test_split(np.arange(n), test_size=fraction,
random_state=seed, stratify=y)`` puts in its test part (without ``stratify`` when a class
has fewer than 2 rows). The draws are made here with NumPy's legacy ``RandomState`` in the
same order as scikit-learn 1.x (``ShuffleSplit`` / ``StratifiedShuffleSplit`` and its
``_approximate_mode``), so the set is the same without importing scikit-learn (and with it
``scipy.stats``, most of a small analysis' run time). ``tests/test_holdout.py`` compares the
two on many inputs.

Sizes (scikit-learn ``_validate_shuffle_split``): ``n_test = ⌈fraction·n⌉``,
``n_train = n − n_test``.
"""

from __future__ import annotations

from math import ceil
from typing import Any

import numpy as np

__all__ = ["holdout_rows"]

IntArray = np.ndarray[Any, np.dtype[np.intp]]


def holdout_rows(
    y: np.ndarray[Any, Any], fraction: float, seed: int, *, stratify: bool
) -> IntArray:
    """Indices of the hold-out rows (any order).

    Unstratified: a random permutation of the rows, whose first ``n_test`` are held out.
    Stratified: per class (sorted class values), ``n_train`` and then ``n_test`` are shared
    out in proportion to the class sizes, each rounded down and the rest given to the
    largest remainders (ties drawn at random); each class's rows are permuted and split.
    Raises ValueError where scikit-learn does (an empty part, a class with one row).
    """
    target = np.asarray(y)
    n = int(target.shape[0])
    n_test = ceil(fraction * n)
    n_train = n - n_test
    if n_train <= 0 or n_test <= 0 or n_train + n_test > n:
        raise ValueError(f"cannot hold out {fraction!r} of {n} rows: a part would be empty")
    rng = np.random.RandomState(seed)
    if not stratify:
        return np.asarray(rng.permutation(n)[:n_test], dtype=np.intp)
    by_class, class_counts = _rows_by_class(target)
    if class_counts.min() < 2:
        raise ValueError("stratified hold-out: every class needs at least 2 rows")
    if n_train < class_counts.size or n_test < class_counts.size:
        raise ValueError("stratified hold-out: each part needs a row of every class")
    train_counts = _proportional_counts(class_counts, n_train, rng)
    test_counts = _proportional_counts(class_counts - train_counts, n_test, rng)
    held: list[IntArray] = []
    for rows, n_train_i, n_test_i, size in zip(
        by_class, train_counts, test_counts, class_counts, strict=True
    ):
        shuffled = rows.take(rng.permutation(size), mode="clip")
        held.append(shuffled[n_train_i : n_train_i + n_test_i])
    # scikit-learn shuffles both parts at the end; the draws no longer change the sets
    return np.concatenate(held).astype(np.intp)


#: integer classes in 0 … this − 1 are counted, not sorted (:func:`_rows_by_class`)
_COUNTED_CLASSES = 64


def _rows_by_class(
    target: np.ndarray[Any, Any],
) -> tuple[list[IntArray], np.ndarray[Any, Any]]:
    """The rows of each class in ascending row order, classes in sorted order (as
    ``np.unique``), and the class sizes. Integer classes 0 … 63 (the acceptable /
    unacceptable target) are counted and each class's rows found by one comparison; other
    classes take a stable sort of the rows by class."""
    if (
        target.dtype.kind in "iub"
        and target.size
        and int(target.min()) >= 0
        and int(target.max()) < _COUNTED_CLASSES
    ):
        counts = np.bincount(target.astype(np.intp, copy=False))
        classes = np.flatnonzero(counts)
        return [np.flatnonzero(target == value) for value in classes.tolist()], counts[classes]
    _, codes, class_counts = np.unique(target, return_inverse=True, return_counts=True)
    order = np.argsort(codes.reshape(-1), kind="stable")
    return np.split(order, np.cumsum(class_counts)[:-1]), class_counts


def _proportional_counts(
    class_counts: np.ndarray[Any, Any], n_draws: int, rng: np.random.RandomState
) -> np.ndarray[Any, Any]:
    """Largest-remainder shares of ``n_draws`` by class size (scikit-learn
    ``_approximate_mode``): floor of each exact share, then one more for the largest
    remainders, ties among equal remainders drawn without replacement."""
    exact = class_counts / class_counts.sum() * n_draws
    counts = np.floor(exact)
    missing = int(n_draws - counts.sum())
    if missing > 0:
        remainder = exact - counts
        for value in np.sort(np.unique(remainder))[::-1]:
            (tied,) = np.where(remainder == value)
            take = min(len(tied), missing)
            counts[rng.choice(tied, size=take, replace=False)] += 1
            missing -= take
            if missing == 0:
                break
    shares: np.ndarray[Any, Any] = counts.astype(int)
    return shares
