"""How far the REP tree (:mod:`qoe_analysis.models.tree`) can be trusted: cross-validated
accuracy beside the majority-class accuracy, and how often its root split recurs.

* **Cross-validated accuracy** (``cv_accuracy``): stratified k-fold with
  k = min(5, ratings of the smaller class); the whole recipe (hold-out of 1/3, growing with
  :func:`~qoe_analysis.models.tree.min_leaf_for` of the fold's ratings, reduced-error
  pruning, back-fitting) is refitted on each training part and scored on the held-out
  fold; ``cv_accuracy`` is the mean of the k fold accuracies (as scikit-learn's
  ``cross_val_score(...).mean()``), ``cv_accuracy_sd`` their sample SD (ddof = 1). With
  k < 2 there is no cross-validation (``cv_note`` says why).
* **Majority-class accuracy**: the share of the more frequent class (ties: "not
  acceptable", as a leaf predicts), i.e. the accuracy of always answering it.
* **Root-split recurrence**: the share of the k fold trees and of refits on all ratings with
  10 other seeds (seed + 1 … seed + 10) whose root splits on each feature seen at a root.

Everything runs on the distinct factor profiles with their class counts, never rating by
rating. The folds and the pruning hold-outs are drawn as counts: per class, the ratings of
each profile that fall into a fold (or the hold-out) follow the multivariate hypergeometric
distribution of a uniformly random stratified partition — the distribution of scikit-learn's
``StratifiedKFold(shuffle=True)`` and ``train_test_split(stratify=y)`` row assignments, with
their exact part sizes (``StratifiedKFold``'s per-class allocation; ``train_test_split``'s
⌈n/3⌉ test rows, split over the classes by its approximate mode) — without a row index.
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
import pandas as pd

from qoe_analysis.models.tree import fit_rep_tree_counts, min_leaf_for
from qoe_analysis.models.tree_nodes import CLASS_NAMES, TreeNode, predict
from qoe_analysis.schema.model_types import SplitRecurrence, TreeEvidence

__all__ = [
    "N_SEEDS",
    "class_counts",
    "cv_accuracies",
    "fit_counts",
    "holdout_counts",
    "n_leaves",
    "stratified_fold_counts",
    "tree_evidence",
]

#: Refits with other seeds for the root-split recurrence.
N_SEEDS = 10
#: At most this many folds.
MAX_FOLDS = 5

Counts = np.ndarray[Any, np.dtype[np.int64]]


def class_counts(codes: np.ndarray[Any, Any], n_profiles: int, y: np.ndarray[Any, Any]) -> Counts:
    """(profiles × 2) counts of [not acceptable, acceptable] ratings per profile code."""
    cell = np.asarray(codes, dtype=np.int64) * 2 + np.asarray(y, dtype=np.int64)
    return np.bincount(cell, minlength=2 * n_profiles).reshape(n_profiles, 2).astype(np.int64)


def _approximate_mode(totals: np.ndarray[Any, Any], n_draws: int, rng: np.random.Generator) -> Any:
    """scikit-learn's ``_approximate_mode``: ⌊totals · n_draws / Σ totals⌋, the remainder
    given one by one to the largest fractional parts (ties at random)."""
    continuous = totals / totals.sum() * n_draws
    floored = np.floor(continuous)
    need = int(n_draws - floored.sum())
    remainder = continuous - floored
    for value in np.sort(np.unique(remainder))[::-1]:
        if need <= 0:
            break
        (inds,) = np.nonzero(remainder == value)
        add = min(len(inds), need)
        floored[rng.choice(inds, size=add, replace=False)] += 1
        need -= add
    return floored.astype(np.int64)


def _draw(counts: np.ndarray[Any, Any], size: int, rng: np.random.Generator) -> Counts:
    """``size`` ratings drawn without replacement from the cells ``counts`` (any shape)."""
    flat = np.asarray(counts, dtype=np.int64).reshape(-1)
    if size <= 0:
        return np.zeros_like(counts, dtype=np.int64)
    drawn = rng.multivariate_hypergeometric(flat, int(size), method="marginals")
    return np.asarray(drawn, dtype=np.int64).reshape(np.shape(counts))


def holdout_counts(
    counts: np.ndarray[Any, Any], fraction: float, rng: np.random.Generator
) -> tuple[Counts, Counts]:
    """(grow, hold): a hold-out of ⌈fraction · n⌉ ratings drawn from the (profiles × 2)
    ``counts``, stratified by class unless a class has fewer than 2 ratings (as
    :func:`~qoe_analysis.models.tree._holdout_mask`, with the same sizes per class)."""
    counts = np.asarray(counts, dtype=np.int64)
    totals = counts.sum(axis=0)
    n = int(totals.sum())
    n_test = math.ceil(fraction * n)
    if totals.min() >= 2:
        held_per_class = totals - _approximate_mode(totals, n - n_test, rng)
        hold = np.column_stack([_draw(counts[:, c], int(held_per_class[c]), rng) for c in (0, 1)])
    else:
        hold = _draw(counts, n_test, rng)
    return counts - hold, hold


def stratified_fold_counts(
    counts: np.ndarray[Any, Any], k: int, rng: np.random.Generator
) -> Counts:
    """(k × profiles × 2) rating counts of each test fold of a shuffled stratified k-fold.

    Fold i gets, per class, the ratings that ``StratifiedKFold`` allocates it (the class
    counts of ``sorted(y)[i::k]``); which ratings of a class go to which fold is uniformly
    random (sequential multivariate hypergeometric draws)."""
    counts = np.asarray(counts, dtype=np.int64)
    n0, n = int(counts[:, 0].sum()), int(counts.sum())
    folds = np.zeros((k, *counts.shape), dtype=np.int64)
    for c in (0, 1):
        remaining = counts[:, c].copy()
        for i in range(k):
            before = len(range(i, n0, k))
            size = before if c == 0 else len(range(i, n, k)) - before
            take = remaining.copy() if i == k - 1 else _draw(remaining, size, rng)
            folds[i, :, c] = take
            remaining -= take
    return folds


def fit_counts(
    table: pd.DataFrame, counts: np.ndarray[Any, Any], *, seed: int, fraction: float = 1.0 / 3.0
) -> TreeNode:
    """The analysis' recipe on (profiles × 2) ``counts``: a count-drawn stratified hold-out
    (generator seeded with ``seed``), min leaf :func:`min_leaf_for` of the ratings, growing
    with ``random_state=seed``, pruning and back-fitting."""
    counts = np.asarray(counts, dtype=np.int64)
    n = int(counts.sum())
    if n >= 2:
        grow, hold = holdout_counts(counts, fraction, np.random.default_rng(seed))
    else:
        grow, hold = counts, np.zeros_like(counts)
    return fit_rep_tree_counts(table, grow, hold, seed=seed, min_leaf=min_leaf_for(n))


def _accuracy(root: TreeNode, table: pd.DataFrame, counts: np.ndarray[Any, Any]) -> float:
    """Share of the ratings ``counts`` (profiles × 2) whose class the tree predicts."""
    predicted = predict(root, table)
    correct = counts[np.arange(len(table)), predicted].sum()
    return float(correct / counts.sum())


def cv_accuracies(
    table: pd.DataFrame,
    counts: np.ndarray[Any, Any],
    test_folds: np.ndarray[Any, Any],
    *,
    seed: int,
) -> tuple[np.ndarray[Any, np.dtype[np.float64]], list[TreeNode]]:
    """Accuracy on each test fold of the tree :func:`fit_counts` grows on the other ratings,
    and those trees. ``test_folds`` is (k × profiles × 2), e.g. from
    :func:`stratified_fold_counts`."""
    scores, roots = [], []
    for test in np.asarray(test_folds, dtype=np.int64):
        fold_root = fit_counts(table, counts - test, seed=seed)
        scores.append(_accuracy(fold_root, table, test))
        roots.append(fold_root)
    return np.asarray(scores, dtype=np.float64), roots


def n_leaves(root: TreeNode) -> int:
    """Number of leaves of a tree."""
    if root.is_leaf or root.left is None or root.right is None:
        return 1
    return n_leaves(root.left) + n_leaves(root.right)


def _recurrence(
    main: TreeNode, folds: list[TreeNode], seeds: list[TreeNode]
) -> list[SplitRecurrence]:
    """Per feature seen at a root: share of fold trees and of seed refits splitting on it at
    the root. The main tree's root feature first, the others by decreasing shares."""

    def share(trees: list[TreeNode], feature: str) -> float | None:
        return sum(t.feature == feature for t in trees) / len(trees) if trees else None

    def order(row: SplitRecurrence) -> tuple[bool, float, str]:
        total = (row["share_folds"] or 0.0) + (row["share_seeds"] or 0.0)
        return row["feature"] != main.feature, -total, row["feature"]

    seen = {t.feature for t in [main, *folds, *seeds] if t.feature is not None}
    rows: list[SplitRecurrence] = [
        {"feature": f, "share_folds": share(folds, f), "share_seeds": share(seeds, f)} for f in seen
    ]
    return sorted(rows, key=order)


def tree_evidence(
    root: TreeNode,
    profiles: tuple[np.ndarray[Any, Any], pd.DataFrame],
    y: np.ndarray[Any, Any],
    *,
    seed: int = 0,
    n_seeds: int = N_SEEDS,
) -> TreeEvidence:
    """The tree section's evidence keys (module docstring) for the tree ``root`` fitted on
    ratings ``y`` with profile codes and table ``profiles`` (``group_codes`` of the factors).

    Keys: cv_accuracy, cv_accuracy_sd, cv_folds, cv_note, majority_accuracy,
    majority_class, n_leaves, top_split_recurrence."""
    codes, table = profiles
    counts = class_counts(codes, len(table), y)
    totals = counts.sum(axis=0)
    n = int(totals.sum())
    k = min(MAX_FOLDS, int(totals.min()))
    majority = int(np.argmax(totals))  # first max: ties -> not acceptable, as a leaf
    out: TreeEvidence = {
        "cv_accuracy": None,
        "cv_accuracy_sd": None,
        "cv_folds": None,
        "cv_note": None,
        "majority_accuracy": float(totals[majority] / n) if n else None,
        "majority_class": cast(Any, CLASS_NAMES[majority]) if n else None,
        "n_leaves": n_leaves(root),
        "top_split_recurrence": [],
    }
    fold_roots: list[TreeNode] = []
    if k >= 2:
        folds = stratified_fold_counts(counts, k, np.random.default_rng(seed))
        scores, fold_roots = cv_accuracies(table, counts, folds, seed=seed)
        out["cv_accuracy"] = float(scores.mean())
        out["cv_accuracy_sd"] = float(scores.std(ddof=1))
        out["cv_folds"] = k
    else:
        smaller = CLASS_NAMES[int(np.argmin(totals))]
        out["cv_note"] = (
            f"no cross-validation: {int(totals.min())} rating(s) are {smaller}; stratified "
            "k-fold needs at least 2 ratings of each class"
        )
    seed_roots = [fit_counts(table, counts, seed=seed + i) for i in range(1, n_seeds + 1)]
    out["top_split_recurrence"] = _recurrence(root, fold_roots, seed_roots)
    return out
