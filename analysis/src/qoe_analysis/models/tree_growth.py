"""Growing a binary decision tree of maximal information gain (entropy splits).

The tree is the one scikit-learn's ``DecisionTreeClassifier(criterion="entropy",
random_state=seed, min_weight_fraction_leaf=..., min_impurity_decrease=...)`` grows from the
same rows (depth first, best splitter, all features), node for node: same features, same
float thresholds, same node order. It is grown here because importing scikit-learn (and
through it ``scipy.stats``) costs more than a small study's whole analysis.
``tests/test_tree_growth.py`` compares the two trees on many inputs, ties included.

The rule, per node (scikit-learn ``BestSplitter`` / ``DepthFirstTreeBuilder``):

* entropy H = −Σ_k p_k log₂ p_k of the class weights; a node is a leaf when it has fewer
  than 2 rows, less than 2·``min_weight_leaf`` weight, H ≤ ε (float64 machine epsilon), no
  admissible split, or an improvement (w_node/w_all)·(H − w_L/w_node·H_L − w_R/w_node·H_R)
  below ``min_impurity_decrease`` − ε;
* candidate splits lie between adjacent distinct float32 values of a feature (values closer
  than 1e-7 count as equal), each side with at least ``min_weight_leaf`` weight; the best
  maximises −w_R·H_R − w_L·H_L, the first one found winning ties;
* features are visited in a random order: a Fisher–Yates draw with scikit-learn's 32-bit
  xorshift generator, seeded from ``RandomState(seed).randint(0, 2³¹−1)``, which also skips
  the features already found constant above the node (that bookkeeping changes the draws,
  so it is kept exactly);
* the threshold is the midpoint x_prev/2 + x_next/2 (float64 of the float32 values); a row
  goes left when its float32 value ≤ threshold.

Exactness needs the sums of weights to be exact, so weights must be whole numbers (counts)
below 2⁵³; logarithms use ``math.log``, the C library's, as scikit-learn's compiled code does.
Not reproduced: scikit-learn's splits on missing values (NaN), other criteria, depth or leaf
limits, ``max_features``, monotonic constraints. Values must be finite (the ratings'
validation already refuses missing factor values).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["GrownTree", "grow_entropy_tree"]

#: scikit-learn's ``FEATURE_THRESHOLD`` (float32): closer values are one value
_SAME_VALUE = np.float32(1e-7)
_EPSILON = float(np.finfo(np.float64).eps)
_RAND_R_MAX = 0x7FFFFFFF
_LN2 = math.log(2.0)
_LEAF = -1


@dataclass(frozen=True)
class GrownTree:
    """Nodes in depth-first preorder (left subtree first); ``children_left[i] == -1`` for a
    leaf. ``feature``/``threshold`` are meaningful for inner nodes only."""

    children_left: np.ndarray[Any, np.dtype[np.intp]]
    children_right: np.ndarray[Any, np.dtype[np.intp]]
    feature: np.ndarray[Any, np.dtype[np.intp]]
    threshold: np.ndarray[Any, np.dtype[np.float64]]

    @property
    def node_count(self) -> int:
        return int(self.children_left.size)

    def apply(self, x: np.ndarray[Any, Any]) -> np.ndarray[Any, np.dtype[np.intp]]:
        """The leaf each row ends in (scikit-learn ``apply``: float32 values, left ⇔
        x ≤ threshold); the rows descend one level per step."""
        values = np.asarray(x, dtype=np.float32).astype(np.float64)
        at = np.zeros(values.shape[0], dtype=np.intp)
        rows = np.arange(values.shape[0])
        while rows.size:
            node = at[rows]
            inner = self.children_left[node] != _LEAF
            rows, node = rows[inner], node[inner]
            goes_left = values[rows, self.feature[node]] <= self.threshold[node]
            at[rows] = np.where(goes_left, self.children_left[node], self.children_right[node])
        return at

    def subtree_end(self) -> np.ndarray[Any, np.dtype[np.intp]]:
        """One past the last node of each node's subtree: in preorder, the subtree of node
        i is the nodes i … end[i] − 1."""
        end = np.arange(1, self.node_count + 1, dtype=np.intp)
        for i in range(self.node_count - 1, -1, -1):
            if self.children_left[i] != _LEAF:
                end[i] = end[self.children_right[i]]
        return end

    def node_sums(
        self, x: np.ndarray[Any, Any], values: np.ndarray[Any, Any]
    ) -> np.ndarray[Any, Any]:
        """nodes × columns: the sum of ``values`` (rows × columns) over the rows reaching
        each node (exact for whole numbers)."""
        leaf = self.apply(x)
        per_node = np.zeros((self.node_count + 1, values.shape[1]), dtype=values.dtype)
        np.add.at(per_node, leaf + 1, values)
        running: np.ndarray[Any, Any] = np.cumsum(per_node, axis=0)
        sums: np.ndarray[Any, Any] = running[self.subtree_end()] - running[: self.node_count]
        return sums

    def rows_reaching(
        self, leaf: np.ndarray[Any, Any], node: int, end: np.ndarray[Any, Any]
    ) -> np.ndarray[Any, Any]:
        """Indices of the rows (given by their leaf, :meth:`apply`) whose path passes
        through ``node`` (``end`` = :meth:`subtree_end`)."""
        return np.flatnonzero((leaf >= node) & (leaf < end[node]))


def _first_state(seed: int) -> int:
    """The state of scikit-learn's ``our_rand_r`` (32-bit xorshift 13, 17, 5) for a tree
    grown with ``random_state=seed``: ``RandomState(seed).randint(0, 2³¹ − 1)``, 0 read as
    1. The generator never returns to 0 from another state, so that rule is needed once."""
    return int(np.random.RandomState(seed).randint(0, _RAND_R_MAX)) or 1


@dataclass
class _Split:
    feature: int
    threshold: float
    left_rows: Rows
    right_rows: Rows
    left_weights: tuple[float, float]
    right_weights: tuple[float, float]


#: A node's rows: an index array for large nodes, a list for small ones (plain Python is
#: quicker there than a dozen NumPy calls per feature).
Rows = np.ndarray[Any, Any] | list[int]
_SMALL = 100


class _Grower:
    """The depth-first growing of one tree (see the module docstring)."""

    def __init__(
        self,
        x: np.ndarray[Any, Any],
        y: np.ndarray[Any, Any],
        weight: np.ndarray[Any, Any],
        min_weight_leaf: float,
        min_impurity_decrease: float,
        seed: int,
    ) -> None:
        # The splitter's decisions depend on each distinct row value's class weights and row
        # count only, so equal rows are merged into one unit (halves the work: every factor
        # profile comes as a class-0 and a class-1 row).
        present = weight != 0
        units, unit_of = np.unique(x[present], axis=0, return_inverse=True)
        unit_of = unit_of.reshape(-1)
        n_units = units.shape[0]
        self.x = units
        self.w0 = np.bincount(
            unit_of, weights=np.where(y[present] == 0, weight[present], 0.0), minlength=n_units
        )
        self.w1 = np.bincount(
            unit_of, weights=np.where(y[present] == 1, weight[present], 0.0), minlength=n_units
        )
        self.n_rows = np.bincount(unit_of, minlength=n_units)
        self.min_weight_leaf = min_weight_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.rng_state = _first_state(seed)
        n_features = x.shape[1]
        self.features = list(range(n_features))
        self.constant_features = [0] * n_features
        self.entropies: dict[tuple[float, float], float] = {}
        self.total_weight = float(weight.sum())
        # the same data as Python objects for small nodes, and per feature the float32
        # value + 1e-7 (float32) of each value: a next value at most that is the same value
        self.x_list: list[list[float]] = units.T.astype(np.float64).tolist()
        self.w0_list: list[float] = self.w0.tolist()
        self.w1_list: list[float] = self.w1.tolist()
        self.n_list: list[int] = self.n_rows.tolist()
        self.same_up_to: list[dict[float, float]] = []
        for column in units.T:
            distinct = np.unique(column)
            self.same_up_to.append(
                dict(
                    zip(
                        distinct.astype(np.float64).tolist(),
                        (distinct + _SAME_VALUE).astype(np.float64).tolist(),
                        strict=True,
                    )
                )
            )

    def entropy(self, class0: float, class1: float) -> float:
        """H in bits of two class weights, summed in class order as scikit-learn does."""
        key = (class0, class1)
        cached = self.entropies.get(key)
        if cached is not None:
            return cached
        total = class0 + class1
        h = 0.0
        for count in key:
            if count > 0.0:
                p = count / total
                h -= p * (math.log(p) / _LN2)
        self.entropies[key] = h
        return h

    def improvement(
        self,
        node_weight: float,
        impurity: float,
        left: tuple[float, float],
        right: tuple[float, float],
    ) -> float:
        """Weighted impurity decrease of a split (scikit-learn ``impurity_improvement``)."""
        weight_left, weight_right = left[0] + left[1], right[0] + right[1]
        return (node_weight / self.total_weight) * (
            impurity
            - (weight_right / node_weight * self.entropy(*right))
            - (weight_left / node_weight * self.entropy(*left))
        )

    def visit_order(self, rows: Rows, n_known_constants: int) -> tuple[list[int], int]:
        """The non-constant features in the order the splitter evaluates them, and the
        count of constant features for the children (features[:count] are constant there).
        Updates the shared feature bookkeeping exactly as scikit-learn's splitter does."""
        features, constants = self.features, self.constant_features
        n_features = len(features)
        f_i = n_features
        n_visited = n_found = n_drawn = 0
        n_total = n_known_constants
        order: list[int] = []
        # which features are constant in the node: all of them for one unit; else asked
        # when drawn (plain lists: the values of the node's units per feature)
        single = _count(rows) == 1
        is_constant = self.is_constant
        state = self.rng_state
        while f_i > n_total and (n_visited < n_features or n_visited <= n_found + n_drawn):
            n_visited += 1
            # scikit-learn's rand_int(n_drawn, f_i - n_found): one xorshift step, the draw
            # mod 2³¹, then mod the range (inline: it runs per feature and node)
            state ^= (state << 13) & 0xFFFFFFFF
            state ^= state >> 17
            state ^= (state << 5) & 0xFFFFFFFF
            f_j = n_drawn + (state & _RAND_R_MAX) % (f_i - n_found - n_drawn)
            if f_j < n_known_constants:  # a feature constant above: skip it, remember it
                features[n_drawn], features[f_j] = features[f_j], features[n_drawn]
                n_drawn += 1
                continue
            f_j += n_found
            feature = features[f_j]
            if single or is_constant(rows, feature):
                features[f_j], features[n_total] = features[n_total], features[f_j]
                n_found += 1
                n_total += 1
                continue
            f_i -= 1
            features[f_i], features[f_j] = features[f_j], features[f_i]
            order.append(feature)
        # the constants known above keep their order for siblings and children; the ones
        # found here are remembered after them
        if n_known_constants:
            features[:n_known_constants] = constants[:n_known_constants]
        if n_total > n_known_constants:
            constants[n_known_constants:n_total] = features[n_known_constants:n_total]
        self.rng_state = state
        return order, n_total

    def is_constant(self, rows: Rows, feature: int) -> bool:
        """max ≤ min + 1e-7 in float32 (scikit-learn's test for a constant feature)."""
        if isinstance(rows, list):
            column = self.x_list[feature]
            values = [column[r] for r in rows]
            low, high = min(values), max(values)
            return high <= self.same_up_to[feature][low]
        values32 = self.x[rows, feature]
        return bool(values32.max() <= values32.min() + _SAME_VALUE)

    def candidates(self, rows: Rows, feature: int) -> tuple[list[float], list[float], list[float]]:
        """Distinct values of the feature in the node (ascending) with the class weights of
        the rows at or below each."""
        if isinstance(rows, list):
            column, w0, w1 = self.x_list[feature], self.w0_list, self.w1_list
            sums: dict[float, list[float]] = {}
            for r in rows:
                pair = sums.get(column[r])
                if pair is None:
                    sums[column[r]] = [w0[r], w1[r]]
                else:
                    pair[0] += w0[r]
                    pair[1] += w1[r]
            distinct = sorted(sums)
            below0: list[float] = []
            below1: list[float] = []
            run0 = run1 = 0.0
            for value in distinct:
                pair = sums[value]
                run0 += pair[0]
                run1 += pair[1]
                below0.append(run0)
                below1.append(run1)
            return distinct, below0, below1
        distinct32, code = np.unique(self.x[rows, feature], return_inverse=True)
        size = distinct32.size
        cum0 = np.cumsum(np.bincount(code, weights=self.w0[rows], minlength=size))
        cum1 = np.cumsum(np.bincount(code, weights=self.w1[rows], minlength=size))
        return distinct32.astype(np.float64).tolist(), cum0.tolist(), cum1.tolist()

    def best_split(
        self, rows: Rows, totals: tuple[float, float], n_known_constants: int
    ) -> tuple[_Split | None, int]:
        """The split of maximal proxy −w_R·H_R − w_L·H_L, the first found on ties."""
        order, n_constants = self.visit_order(rows, n_known_constants)
        if isinstance(rows, list) and len(rows) == 2:
            return self.two_unit_split(rows, totals, order), n_constants
        total0, total1 = totals
        node_weight = total0 + total1
        entropy, min_weight = self.entropy, self.min_weight_leaf
        best: tuple[float, int, float, float] | None = None  # proxy, feature, cut, threshold
        best_below: tuple[float, float] = (0.0, 0.0)
        for feature in order:
            distinct, below0, below1 = self.candidates(rows, feature)
            same_up_to = self.same_up_to[feature]
            for k in range(1, len(distinct)):
                if distinct[k] <= same_up_to[distinct[k - 1]]:
                    continue  # one value for the splitter: no cut between them
                left0, left1 = below0[k - 1], below1[k - 1]
                weight_left = left0 + left1
                weight_right = node_weight - weight_left
                if weight_left < min_weight or weight_right < min_weight:
                    continue
                proxy = -weight_right * entropy(total0 - left0, total1 - left1) - (
                    weight_left * entropy(left0, left1)
                )
                if best is None or proxy > best[0]:
                    threshold = distinct[k - 1] / 2.0 + distinct[k] / 2.0
                    best = (proxy, feature, distinct[k - 1], threshold)
                    best_below = (left0, left1)
        if best is None:
            return None, n_constants
        _, feature, cut, threshold = best
        if isinstance(rows, list):
            column = self.x_list[feature]
            left_rows: Rows = [r for r in rows if column[r] <= cut]
            right_rows: Rows = [r for r in rows if column[r] > cut]
        else:
            goes_left = self.x[rows, feature] <= cut
            left_rows, right_rows = rows[goes_left], rows[~goes_left]
        left_rows, right_rows = _small_as_list(left_rows), _small_as_list(right_rows)
        return _Split(
            feature=feature,
            threshold=threshold,
            left_rows=left_rows,
            right_rows=right_rows,
            left_weights=best_below,
            right_weights=(total0 - best_below[0], total1 - best_below[1]),
        ), n_constants

    def two_unit_split(
        self, units: list[int], totals: tuple[float, float], order: list[int]
    ) -> _Split | None:
        """Two units: every non-constant feature cuts them apart, with the same proxy, so
        the first feature visited wins (unless a side is too light, for all alike)."""
        if not order:
            return None
        feature = order[0]
        column = self.x_list[feature]
        low, high = sorted(units, key=column.__getitem__)
        left = (self.w0_list[low], self.w1_list[low])
        if left[0] + left[1] < self.min_weight_leaf or (
            totals[0] + totals[1] - (left[0] + left[1]) < self.min_weight_leaf
        ):
            return None
        return _Split(
            feature=feature,
            threshold=column[low] / 2.0 + column[high] / 2.0,
            left_rows=[low],
            right_rows=[high],
            left_weights=left,
            right_weights=(totals[0] - left[0], totals[1] - left[1]),
        )

    def too_few_rows(self, units: Rows) -> bool:
        """Fewer than 2 rows (of non-zero weight) in the node (scikit-learn's
        ``n_node_samples < min_samples_split``); two units hold two rows at least."""
        count = _count(units)
        return count == 0 or (count == 1 and self.n_list[int(units[0])] < 2)

    def grow(self) -> GrownTree:
        left: list[int] = []
        right: list[int] = []
        feature: list[int] = []
        threshold: list[float] = []
        root = _small_as_list(np.arange(self.x.shape[0]))
        # (units, class weights, parent, is_left, constant features above)
        stack: list[tuple[Rows, tuple[float, float], int, bool, int]] = [
            (root, (float(self.w0.sum()), float(self.w1.sum())), -1, False, 0)
        ]
        while stack:
            rows, totals, parent, is_left, n_constants = stack.pop()
            node_weight = totals[0] + totals[1]
            impurity = self.entropy(*totals)
            is_leaf = (
                self.too_few_rows(rows)
                or node_weight < 2 * self.min_weight_leaf
                or impurity <= _EPSILON
            )
            split: _Split | None = None
            if not is_leaf:
                split, n_constants = self.best_split(rows, totals, n_constants)
                is_leaf = (
                    split is None
                    or self.improvement(
                        node_weight, impurity, split.left_weights, split.right_weights
                    )
                    + _EPSILON
                    < self.min_impurity_decrease
                )
            node = len(left)
            left.append(_LEAF)
            right.append(_LEAF)
            feature.append(-2)
            threshold.append(-2.0)
            if parent >= 0:
                (left if is_left else right)[parent] = node
            if not is_leaf and split is not None:
                feature[node] = split.feature
                threshold[node] = split.threshold
                stack.append((split.right_rows, split.right_weights, node, False, n_constants))
                stack.append((split.left_rows, split.left_weights, node, True, n_constants))
        return GrownTree(
            children_left=np.array(left, dtype=np.intp),
            children_right=np.array(right, dtype=np.intp),
            feature=np.array(feature, dtype=np.intp),
            threshold=np.array(threshold, dtype=np.float64),
        )


def _count(rows: Rows) -> int:
    return len(rows) if isinstance(rows, list) else int(rows.size)


def _small_as_list(rows: Rows) -> Rows:
    return rows.tolist() if isinstance(rows, np.ndarray) and rows.size <= _SMALL else rows


def grow_entropy_tree(
    x: np.ndarray[Any, Any],
    y: np.ndarray[Any, Any],
    sample_weight: np.ndarray[Any, Any],
    *,
    min_weight_leaf: float,
    min_impurity_decrease: float = 0.0,
    seed: int = 0,
) -> GrownTree | None:
    """The entropy tree of rows ``x`` (cast to float32), classes ``y`` ∈ {0, 1} and whole
    ``sample_weight`` (see the module docstring); None when fewer than two classes have
    weight (scikit-learn would fit a one-class model)."""
    values = np.asarray(x, dtype=np.float32)
    target = np.asarray(y)
    weight = np.asarray(sample_weight, dtype=np.float64)
    if values.ndim != 2 or target.shape != (values.shape[0],) or weight.shape != target.shape:
        raise ValueError("x must be rows × features, with one class and one weight per row")
    if not np.isin(target, (0, 1)).all():
        raise ValueError("classes must be 0 or 1")
    if (weight < 0).any() or (weight != np.round(weight)).any() or weight.sum() >= 2.0**53:
        raise ValueError("weights must be whole non-negative numbers (counts) below 2**53")
    if not np.isfinite(values).all():
        raise ValueError("x must be finite (no NaN or infinity, also after the float32 cast)")
    present = weight != 0
    if np.unique(target[present]).size < 2:
        return None
    grower = _Grower(
        values, target.astype(np.intp), weight, min_weight_leaf, min_impurity_decrease, seed
    )
    return grower.grow()
