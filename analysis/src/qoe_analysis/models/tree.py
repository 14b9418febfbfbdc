"""Decision tree for a binary target, grown and pruned with the REPTree recipe.

Recipe (Weka ``weka.classifiers.trees.REPTree`` defaults: ``-M 2 -N 3 -S 1``):

1. A stratified hold-out of 1/3 of the rows is set aside with a fixed seed: the test part of
   scikit-learn's ``train_test_split(rows, test_size=1/3, random_state=seed, stratify=y)``
   (unstratified when a class has fewer than 2 rows); the tree is grown on the other 2/3.
2. Growing is scikit-learn's ``DecisionTreeClassifier(criterion="entropy",
   random_state=seed)`` (splits of maximal information gain) on the distinct factor
   profiles with their counts as sample weights; at least ``min_leaf`` ratings per leaf
   (``min_weight_fraction_leaf``): REPTree's 2 by default, :func:`min_leaf_for` (growing
   with the number of ratings) in the analysis. Numeric thresholds are then set to the float64
   midpoint between the adjacent distinct values at the node (scikit-learn splits float32
   values), and an earlier factor that splits a node's rows identically replaces the chosen
   one (Weka takes the first attribute on ties; scikit-learn visits features in random
   order). Nominal factors are one-hot encoded, so a nominal split is binary
   ("game_pace = slow" vs "≠ slow"), whereas Weka splits a nominal attribute into one
   branch per value.
3. Reduced-error pruning, bottom-up: a subtree is replaced by a leaf when its hold-out error
   is ≥ the hold-out error of the node as a leaf (majority class of the growing data, ties to
   "not acceptable"), as in REPTree.
4. Back-fitting: the hold-out counts are added to the class counts of every remaining node
   (REPTree ``backfitHoldOutSet``); a leaf predicts its majority class afterwards.

Prediction here and rule extraction (``tree_rules``) both walk the node structure of this
module, so the printed rules and the predictions cannot disagree.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.models.tree_nodes import TreeNode
from qoe_analysis.tabular import group_codes

__all__ = ["fit_rep_tree", "fit_rep_tree_counts", "min_leaf_for", "reduced_error_prune"]


def _encode(factors: pd.DataFrame) -> tuple[pd.DataFrame, list[tuple[str, bool, str | None]]]:
    """Numeric columns as float64; nominal columns one-hot (sorted categories)."""
    cols: dict[str, np.ndarray[Any, Any]] = {}
    meta: list[tuple[str, bool, str | None]] = []
    for column in factors.columns:
        series = factors[column]
        if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
            series.dtype
        ):
            cols[str(column)] = series.to_numpy(dtype=np.float64)
            meta.append((str(column), True, None))
        else:
            values = series.astype(str).to_numpy(dtype=object)
            for category in sorted(set(values.tolist())):
                cols[f"{column}={category}"] = (values == category).astype(np.float64)
                meta.append((str(column), False, category))
    return pd.DataFrame(cols), meta


def _profiles(factors: pd.DataFrame) -> tuple[np.ndarray[Any, Any], pd.DataFrame]:
    """Profile code per row (distinct combinations of factor values) and the profile table."""
    return group_codes(factors, list(factors.columns))


def _snap(threshold: float, values: np.ndarray[Any, Any]) -> float:
    """Midpoint (float64) of the node's distinct values around scikit-learn's threshold
    (computed from float32 values)."""
    below = values[values <= threshold]
    above = values[values > threshold]
    if below.size == 0 or above.size == 0:
        return float(threshold)
    return float((below.max() + above.min()) / 2.0)


def _first_equivalent_split(
    rows: np.ndarray[Any, Any],
    go_left: np.ndarray[Any, Any],
    feature: int,
    meta: list[tuple[str, bool, str | None]],
    encoded_rows: np.ndarray[Any, Any],
) -> tuple[int, float, bool] | None:
    """An earlier numeric column splitting the node's rows into exactly the same two sets.

    Returns (column index, threshold, swapped) or None. ``swapped`` means the earlier
    column sends the current right-hand rows to the left. Weka picks the first attribute
    among equally good splits; scikit-learn visits features in random order.
    """
    left, right = rows[go_left], rows[~go_left]
    if left.size == 0 or right.size == 0:
        return None
    for j in range(feature):
        if not meta[j][1]:
            continue
        a, b = encoded_rows[left, j], encoded_rows[right, j]
        if a.max() < b.min():
            return j, float((a.max() + b.min()) / 2.0), False
        if b.max() < a.min():
            return j, float((b.max() + a.min()) / 2.0), True
    return None


def reduced_error_prune(
    children_left: np.ndarray[Any, Any],
    children_right: np.ndarray[Any, Any],
    grow_counts: np.ndarray[Any, Any],
    holdout_counts: np.ndarray[Any, Any],
) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """REPTree reduced-error pruning on a tree in the array form of scikit-learn's ``tree_``
    (nodes in depth-first preorder, ``children_left[i] == -1`` for a leaf).

    Bottom-up, a subtree is replaced by a leaf when its hold-out error is ≥ the hold-out
    error of the node as a leaf; a node predicts the majority class of its growing counts
    (ties → class 0). Returns a mask of the nodes that end up as leaves.
    """
    n = len(children_left)
    prediction = np.argmax(grow_counts, axis=1)
    leaf_error = holdout_counts.sum(axis=1) - holdout_counts[np.arange(n), prediction]
    is_leaf = children_left == -1
    subtree_error = np.where(is_leaf, leaf_error, 0.0)
    # children have larger ids than their parent (preorder): reverse order is post-order
    for i in range(n - 1, -1, -1):
        if is_leaf[i]:
            continue
        error = subtree_error[children_left[i]] + subtree_error[children_right[i]]
        if error >= leaf_error[i]:
            is_leaf[i] = True
            error = leaf_error[i]
        subtree_error[i] = error
    return np.asarray(is_leaf)


def _build_nodes(
    tree: Any,
    paths: Any,
    meta: list[tuple[str, bool, str | None]],
    encoded_rows: np.ndarray[Any, Any],
    counts: np.ndarray[Any, Any],
    is_leaf: np.ndarray[Any, Any],
) -> TreeNode:
    """Copy the (pruned) fitted ``tree_`` into :class:`TreeNode` objects.

    ``paths`` is the decision path (rows × nodes, CSC) of the growing rows
    ``encoded_rows``. Numeric thresholds are recomputed in float64 as the midpoint of the
    adjacent distinct values *of the growing rows reaching the node*. When an earlier
    factor splits a node's rows identically it replaces the chosen one (Weka's rule of the
    first attribute on ties).
    """

    def build(i: int) -> TreeNode:
        if is_leaf[i]:
            return TreeNode(counts=counts[i].astype(np.float64))
        feature = int(tree.feature[i])
        rows = paths.indices[paths.indptr[i] : paths.indptr[i + 1]]
        values = encoded_rows[rows, feature]
        threshold = _snap(float(tree.threshold[i]), np.unique(values))
        left_child, right_child = int(tree.children_left[i]), int(tree.children_right[i])
        tie = _first_equivalent_split(rows, values <= threshold, feature, meta, encoded_rows)
        if tie is not None:
            feature, threshold, swapped = tie
            if swapped:
                left_child, right_child = right_child, left_child
        column, numeric, category = meta[feature]
        return TreeNode(
            counts=counts[i].astype(np.float64),
            feature=column,
            numeric=numeric,
            threshold=threshold if numeric else None,
            category=category,
            left=build(left_child),
            right=build(right_child),
        )

    return build(0)


def _holdout_mask(target: np.ndarray[Any, Any], fraction: float, seed: int) -> np.ndarray[Any, Any]:
    """True for the rows held out: the test part of scikit-learn's ``train_test_split``,
    stratified by class unless a class has fewer than 2 rows."""
    from sklearn.model_selection import train_test_split  # type: ignore[import-untyped]

    can_stratify = bool(np.bincount(target, minlength=2).min() >= 2)
    _, held = train_test_split(
        np.arange(target.size),
        test_size=fraction,
        random_state=seed,
        stratify=target if can_stratify else None,
    )
    mask = np.zeros(target.size, dtype=bool)
    mask[held] = True
    return mask


def min_leaf_for(n_ratings: float) -> int:
    """The minimum leaf size for a tree learnt from ``n_ratings`` ratings:
    ``max(2, ⌈n / 100⌉)`` ratings per leaf of the growing part.

    REPTree's default ``-M 2`` up to 200 ratings; beyond that a leaf must hold at least 1 %
    of the ratings, so the number of leaves stays below about 100 however many ratings
    there are, and a leaf is no longer a handful of ratings of one rater (issue 31: a P.809
    study of 2,500 ratings grew 49 leaves of 2–5 ratings). Chosen so that the example
    study's thresholds (790 ratings: 8 per leaf) stay where REPTree's 2 put them."""
    return max(2, math.ceil(float(n_ratings) / 100.0))


def fit_rep_tree(
    factors: pd.DataFrame,
    y: np.ndarray[Any, Any],
    *,
    seed: int = 0,
    min_leaf: float = 2.0,
    holdout_fraction: float = 1.0 / 3.0,
    prune: bool = True,
    profiles: tuple[np.ndarray[Any, Any], pd.DataFrame] | None = None,
) -> TreeNode:
    """Grow on 2/3, prune on the stratified 1/3 hold-out, back-fit (see module doc).

    With ``prune=False`` the tree is grown on all rows (like REPTree ``-P``); so is it
    with a single rating, which leaves nothing to hold out.
    ``profiles`` may pass precomputed ``group_codes(factors, factors.columns)``.
    ``min_leaf`` defaults to REPTree's 2; the analysis passes :func:`min_leaf_for`.
    """
    target = np.asarray(y, dtype=np.int64)
    profile_code, table = profiles if profiles is not None else _profiles(factors)
    n_profiles = len(table)
    held = np.zeros(target.size, dtype=bool)
    if prune and target.size >= 2:
        held = _holdout_mask(target, holdout_fraction, seed)
    cell = profile_code * 2 + target
    grow = np.bincount(cell[~held], minlength=2 * n_profiles).reshape(n_profiles, 2)
    hold = np.bincount(cell[held], minlength=2 * n_profiles).reshape(n_profiles, 2)
    return fit_rep_tree_counts(table, grow, hold, seed=seed, min_leaf=min_leaf, prune=prune)


def fit_rep_tree_counts(
    table: pd.DataFrame,
    grow: np.ndarray[Any, Any],
    hold: np.ndarray[Any, Any],
    *,
    seed: int = 0,
    min_leaf: float = 2.0,
    prune: bool = True,
) -> TreeNode:
    """Steps 2–4 of the recipe on the distinct profiles ``table`` (one row per profile) with
    their class counts: ``grow`` and ``hold`` are (profiles × 2) counts of [not acceptable,
    acceptable] ratings in the growing part and in the hold-out. With ``prune=False`` the
    hold-out is ignored (pass zeros)."""
    from sklearn.tree import DecisionTreeClassifier  # type: ignore[import-untyped]

    grow = np.asarray(grow, dtype=np.int64)
    hold = np.asarray(hold, dtype=np.int64)
    encoded, meta = _encode(table)
    enc = encoded.to_numpy(dtype=np.float64)
    rows = np.flatnonzero(grow.sum(axis=1) > 0)
    # one row per (profile, class) with a rating, weighted by its count
    x_fit = np.repeat(enc[rows], 2, axis=0)
    y_fit = np.tile(np.array([0, 1]), rows.size)
    w_fit = grow[rows].reshape(-1).astype(np.float64)
    keep = w_fit > 0
    if np.unique(y_fit[keep]).size < 2:  # one class: the tree is a leaf
        return TreeNode(counts=(grow.sum(axis=0) + hold.sum(axis=0)).astype(np.float64))
    total = float(w_fit.sum())
    # min_leaf ratings per leaf as a weight fraction (scikit-learn multiplies it back by
    # the total weight); 1e-9 below so that exactly min_leaf passes
    clf = DecisionTreeClassifier(
        criterion="entropy",
        random_state=seed,
        min_weight_fraction_leaf=min(0.5, (min_leaf - 1e-9) / total),
        min_impurity_decrease=1e-12,
    ).fit(x_fit[keep], y_fit[keep], sample_weight=w_fit[keep])
    tree = clf.tree_
    paths = clf.decision_path(enc)  # profiles × nodes: 1 where the profile passes
    sums = np.asarray(paths.T @ np.hstack([grow, hold]), dtype=np.float64)
    node_grow, node_hold = sums[:, :2], sums[:, 2:]
    if prune:
        is_leaf = reduced_error_prune(tree.children_left, tree.children_right, node_grow, node_hold)
        counts = node_grow + node_hold  # back-fit (REPTree backfitHoldOutSet)
    else:
        is_leaf = tree.children_left == -1
        counts = node_grow
    return _build_nodes(tree, paths[rows].tocsc(), meta, enc[rows], counts, is_leaf)
