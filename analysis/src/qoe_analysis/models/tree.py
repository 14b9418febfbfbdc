"""Decision tree for a binary target, grown and pruned with the REPTree recipe.

Recipe (Weka ``weka.classifiers.trees.REPTree`` defaults: ``-M 2 -N 3 -S 1``):

1. A stratified hold-out of 1/3 of the rows is set aside with a fixed seed (the rows of
   scikit-learn's ``train_test_split(stratify=y)``, :mod:`qoe_analysis.models.holdout`); the tree is
   grown on the other 2/3.
2. Growing makes the splits of maximal information gain that scikit-learn's
   ``DecisionTreeClassifier(criterion="entropy")`` makes (:mod:`qoe_analysis.models.tree_growth`),
   on the distinct factor profiles with their counts as sample weights; at least
   ``min_leaf`` (= 2) ratings per leaf; numeric thresholds at the midpoint between adjacent
   distinct values (reported in float64). Nominal factors are one-hot
   encoded, so a nominal split is binary ("game_pace = slow" vs "≠ slow"), whereas Weka
   splits a nominal attribute into one branch per value.
3. Reduced-error pruning, bottom-up: a subtree is replaced by a leaf when its hold-out error
   is ≥ the hold-out error of the node as a leaf (majority class of the growing data, ties to
   "not acceptable"), as in REPTree.
4. Back-fitting: the hold-out counts are added to the class counts of every remaining node
   (REPTree ``backfitHoldOutSet``); a leaf predicts its majority class afterwards.

Prediction here and rule extraction (``tree_rules``) both walk the node structure of this
module, so the printed rules and the predictions cannot disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from qoe_analysis.models.holdout import holdout_rows
from qoe_analysis.models.tree_growth import GrownTree, grow_entropy_tree
from qoe_analysis.tabular import group_codes

__all__ = [
    "CLASS_NAMES",
    "FlatTree",
    "TreeNode",
    "constant_column",
    "fit_rep_tree",
    "predict",
    "predict_proba",
    "predict_proba_columns",
    "reduced_error_prune",
    "routing_columns",
]

#: Class labels by class index (0 = not acceptable, 1 = acceptable).
CLASS_NAMES = ("not_acceptable", "acceptable")


@dataclass
class TreeNode:
    """A node: leaf when ``feature`` is None. Numeric: left ⇔ x ≤ threshold.

    Nominal (one-hot): left ⇔ x ≠ category, right ⇔ x = category.
    ``counts`` = [not acceptable, acceptable] (growing data, plus hold-out after back-fit).
    """

    counts: np.ndarray[Any, np.dtype[np.float64]]
    feature: str | None = None
    numeric: bool = True
    threshold: float | None = None
    category: str | None = None
    left: TreeNode | None = None
    right: TreeNode | None = None

    @property
    def is_leaf(self) -> bool:
        return self.feature is None

    @property
    def prediction(self) -> int:
        return int(np.argmax(self.counts))  # first max: ties -> not acceptable

    @property
    def p_acceptable(self) -> float:
        total = float(self.counts.sum())
        return float(self.counts[1] / total) if total > 0 else float("nan")


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


Columns = dict[str, np.ndarray[Any, Any]]


def routing_columns(frame: pd.DataFrame) -> Columns:
    """The arrays the tree routes on: float64 per numeric column, ``str`` objects else."""
    out: Columns = {}
    for column in frame.columns:
        series = frame[column]
        if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(
            series.dtype
        ):
            out[str(column)] = series.to_numpy(dtype=np.float64)
        else:
            out[str(column)] = series.astype(str).to_numpy(dtype=object)
    return out


def _route(
    node: TreeNode, columns: Columns, rows: np.ndarray[Any, Any]
) -> list[tuple[TreeNode, np.ndarray[Any, Any]]]:
    """(node, row indices reaching it) for every node of the subtree."""
    out = [(node, rows)]
    stack = [(node, rows)]
    while stack:
        current, idx = stack.pop()
        if current.is_leaf or current.feature is None:
            continue
        values = columns[current.feature][idx]
        go_left = values <= current.threshold if current.numeric else values != current.category
        assert current.left is not None and current.right is not None
        left = (current.left, idx[go_left])
        right = (current.right, idx[~go_left])
        out += [left, right]
        stack += [left, right]
    return out


def _snap(threshold: float, values: np.ndarray[Any, Any]) -> float:
    """Midpoint (float64) of the node's distinct values around the grown (float32) threshold."""
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
    among equally good splits; the growing (as scikit-learn's) visits features in random
    order.
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
    """REPTree reduced-error pruning on a tree in array form (:class:`GrownTree` layout, that
    of scikit-learn's ``tree_``).

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
    grown: GrownTree,
    meta: list[tuple[str, bool, str | None]],
    encoded_rows: np.ndarray[Any, Any],
    counts: np.ndarray[Any, Any],
    is_leaf: np.ndarray[Any, Any],
) -> TreeNode:
    """Copy the (pruned) grown tree into :class:`TreeNode` objects.

    Numeric thresholds are recomputed in float64 as the midpoint of the adjacent distinct
    values *of the growing rows reaching the node* (the growing works in float32). When an
    earlier factor splits a node's rows identically it replaces the chosen one (Weka's rule
    of the first attribute on ties).
    """
    leaf, end = grown.apply(encoded_rows), grown.subtree_end()

    def build(i: int) -> TreeNode:
        if is_leaf[i]:
            return TreeNode(counts=counts[i].astype(np.float64))
        feature = int(grown.feature[i])
        rows = grown.rows_reaching(leaf, i, end)
        values = encoded_rows[rows, feature]
        threshold = _snap(float(grown.threshold[i]), np.unique(values))
        left_child, right_child = int(grown.children_left[i]), int(grown.children_right[i])
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
    """
    target = np.asarray(y, dtype=np.int64)
    profile_code, table = profiles if profiles is not None else _profiles(factors)
    n_profiles = len(table)
    grow_mask = np.ones(target.size, dtype=bool)
    if prune and target.size >= 2:
        can_stratify = bool(np.bincount(target, minlength=2).min() >= 2)
        grow_mask[holdout_rows(target, holdout_fraction, seed, stratify=can_stratify)] = False
    cell = profile_code * 2 + target
    grow = np.bincount(cell[grow_mask], minlength=2 * n_profiles).reshape(n_profiles, 2)
    hold = np.bincount(cell[~grow_mask], minlength=2 * n_profiles).reshape(n_profiles, 2)

    encoded, meta = _encode(table)
    enc = encoded.to_numpy(dtype=np.float64)
    rows = np.flatnonzero(grow.sum(axis=1) > 0)
    x_fit = np.repeat(enc[rows], 2, axis=0)
    y_fit = np.tile(np.array([0, 1]), rows.size)
    w_fit = grow[rows].reshape(-1).astype(np.float64)
    keep = w_fit > 0
    total = float(w_fit.sum())
    # min_leaf ratings per leaf, as the weight fraction scikit-learn's tree would be given
    # (and multiplied back the same way, so the float limit is the same)
    fraction = min(0.5, (min_leaf - 1e-9) / total) if total > 0 else 0.0
    grown = grow_entropy_tree(
        x_fit[keep],
        y_fit[keep],
        w_fit[keep],
        min_weight_leaf=fraction * float(np.sum(w_fit[keep])),
        min_impurity_decrease=1e-12,
        seed=seed,
    )
    if grown is None:
        return TreeNode(counts=(grow.sum(axis=0) + hold.sum(axis=0)).astype(np.float64))
    sums = grown.node_sums(enc, np.hstack([grow, hold])).astype(np.float64)
    node_grow, node_hold = sums[:, :2], sums[:, 2:]
    if prune:
        is_leaf = reduced_error_prune(
            grown.children_left, grown.children_right, node_grow, node_hold
        )
        counts = node_grow + node_hold  # back-fit (REPTree backfitHoldOutSet)
    else:
        is_leaf = grown.children_left == -1
        counts = node_grow
    return _build_nodes(grown, meta, enc[rows], counts, is_leaf)


def predict_proba(root: TreeNode, factors: pd.DataFrame) -> np.ndarray[Any, np.dtype[np.float64]]:
    """P(acceptable) of the leaf each row falls into."""
    return predict_proba_columns(root, routing_columns(factors), len(factors))


def constant_column(value: Any, n_rows: int) -> np.ndarray[Any, Any]:
    """The routing array of a column set to ``value`` on every row: what
    :func:`routing_columns` gives for ``frame[column] = value`` (a number other than a bool
    becomes a float64 column, anything else its ``str``)."""
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    ):
        return np.full(n_rows, float(value))
    return np.full(n_rows, str(value), dtype=object)


def predict_proba_columns(
    root: TreeNode | FlatTree, columns: Columns, n_rows: int
) -> np.ndarray[Any, np.dtype[np.float64]]:
    """:func:`predict_proba` of rows given as routing arrays (:func:`routing_columns`).

    Pass a :class:`FlatTree` when predicting many times with one tree (the threshold
    search, :func:`qoe_analysis.models.thresholds.tree_threshold`)."""
    flat = root if isinstance(root, FlatTree) else FlatTree(root)
    return flat.predict_proba(columns, n_rows)


class FlatTree:
    """A tree as arrays per node (preorder), for prediction level by level: all rows descend
    one level per step, so the cost grows with the depth, not with the number of nodes.
    The tests are those of :func:`_route`: numeric left ⇔ x ≤ threshold, nominal left ⇔
    x ≠ category. Built from the tree as it is; a tree changed afterwards needs a new one."""

    def __init__(self, root: TreeNode) -> None:
        self.root = root
        nodes = _preorder(root)
        #: feature -> numeric?, for the features some split tests
        self.used: dict[str, bool] = {
            node.feature: node.numeric for node in nodes if node.feature is not None
        }
        index = {id(node): i for i, node in enumerate(nodes)}
        self.features = list(self.used)
        count = len(nodes)
        self.feature_of = np.zeros(count, dtype=np.intp)
        self.threshold = np.full(count, np.nan)
        self.category = np.full(count, -1.0)
        self.numeric = np.zeros(count, dtype=bool)
        self.left = np.full(count, -1, dtype=np.intp)
        self.right = np.full(count, -1, dtype=np.intp)
        self.leaf_p = np.full(count, np.nan)
        self.codes: dict[str, dict[str, int]] = {f: {} for f in self.features}
        for i, node in enumerate(nodes):
            if node.is_leaf or node.left is None or node.right is None:
                self.leaf_p[i] = node.p_acceptable
                continue
            assert node.feature is not None
            self.feature_of[i] = self.features.index(node.feature)
            self.numeric[i] = node.numeric
            if node.numeric:
                self.threshold[i] = node.threshold
            else:
                known = self.codes[node.feature]
                self.category[i] = known.setdefault(str(node.category), len(known))
            self.left[i], self.right[i] = index[id(node.left)], index[id(node.right)]
        # nominal column arrays already coded, by identity (the array is kept, so its id
        # is not reused): the threshold search passes the same ones at every grid point
        self._coded: dict[int, tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = {}

    def _nominal_codes(self, feature: str, values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """The code of each value among the categories the splits name (-2 for others)."""
        cached = self._coded.get(id(values))
        if cached is not None and cached[0] is values:
            return cached[1]
        known = self.codes[feature]
        coded = np.array([known.get(value, -2) for value in values], dtype=np.float64)
        self._coded[id(values)] = (values, coded)
        return coded

    def predict_proba(self, columns: Columns, n_rows: int) -> np.ndarray[Any, np.dtype[np.float64]]:
        """P(acceptable) of the leaf each row falls into."""
        if any(
            feature not in columns or (columns[feature].dtype == object) == numeric
            for feature, numeric in self.used.items()
        ):  # a column of another kind than its splits: the node-by-node walk decides
            out = np.full(n_rows, np.nan)
            for node, idx in _route(self.root, columns, np.arange(n_rows)):
                if node.is_leaf:
                    out[idx] = node.p_acceptable
            return out
        # one float matrix: numeric columns as they are, nominal ones coded
        x = np.empty((n_rows, len(self.features)))
        for j, feature in enumerate(self.features):
            values = columns[feature]
            x[:, j] = values if self.used[feature] else self._nominal_codes(feature, values)
        at = np.zeros(n_rows, dtype=np.intp)
        rows = np.arange(n_rows)
        with np.errstate(invalid="ignore"):
            while rows.size:
                node_at = at[rows]
                inner = self.left[node_at] >= 0
                rows, node_at = rows[inner], node_at[inner]
                values = x[rows, self.feature_of[node_at]]
                go_left = np.where(
                    self.numeric[node_at],
                    values <= self.threshold[node_at],
                    values != self.category[node_at],
                )
                at[rows] = np.where(go_left, self.left[node_at], self.right[node_at])
        return self.leaf_p[at]


def _preorder(root: TreeNode) -> list[TreeNode]:
    out: list[TreeNode] = []
    stack = [root]
    while stack:
        node = stack.pop()
        out.append(node)
        if not node.is_leaf and node.left is not None and node.right is not None:
            stack += [node.right, node.left]
    return out


def predict(root: TreeNode, factors: pd.DataFrame) -> np.ndarray[Any, np.dtype[np.int64]]:
    """Predicted class (1 = acceptable) of the leaf each row falls into."""
    out = np.zeros(len(factors), dtype=np.int64)
    for node, idx in _route(root, routing_columns(factors), np.arange(len(factors))):
        if node.is_leaf:
            out[idx] = node.prediction
    return out
