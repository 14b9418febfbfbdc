"""A fitted decision tree as nodes, and prediction with it.

A node is a leaf when ``feature`` is None. A numeric split sends x ≤ threshold left; a
nominal (one-hot) split sends x ≠ category left and x = category right. Prediction walks
these nodes (:class:`FlatTree` level by level, :func:`_route` node by node), as the rule
extraction of :mod:`qoe_analysis.models.tree_rules` does, so rules and predictions agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "CLASS_NAMES",
    "Columns",
    "FlatTree",
    "TreeNode",
    "constant_column",
    "predict",
    "predict_proba",
    "predict_proba_columns",
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
