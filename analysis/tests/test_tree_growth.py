"""grow_entropy_tree: a hand-computed tree, and node-for-node equality with scikit-learn's
DecisionTreeClassifier(criterion="entropy") on many inputs full of ties."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from qoe_analysis.models.tree_growth import GrownTree, grow_entropy_tree


def _reach(tree: GrownTree, x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """nodes × rows: True where the row's path passes through the node (scikit-learn's
    ``decision_path``, transposed): in preorder, node i's subtree is i … subtree_end[i] − 1."""
    leaf = tree.apply(x)
    first = np.arange(tree.node_count)[:, None]
    return (leaf[None, :] >= first) & (leaf[None, :] < tree.subtree_end()[:, None])


def test_hand_computed_split_and_leaves() -> None:
    # x0 = 1..4 with classes 0 0 1 1 (root H = 1 bit); x1 alternates 0 1 0 1.
    # Proxy −w_L·H_L − w_R·H_R of every cut: x0 ≤ 1.5: −(0 + 3·h(1/3)) = −2.75;
    # x0 ≤ 2.5: −(0 + 0) = 0 (pure children, best); x0 ≤ 3.5: −2.75; x1 ≤ 0.5: −(2 + 2) = −4.
    x = np.array([[1, 0], [2, 1], [3, 0], [4, 1]], dtype=float)
    y = np.array([0, 0, 1, 1])
    tree = grow_entropy_tree(x, y, np.ones(4), min_weight_leaf=0.0, seed=0)
    assert tree is not None
    assert tree.children_left.tolist() == [1, -1, -1]
    assert tree.children_right.tolist() == [2, -1, -1]
    assert tree.feature[0] == 0 and tree.threshold[0] == 2.5
    assert _reach(tree, x).tolist() == [
        [True] * 4,
        [True, True, False, False],
        [False, False, True, True],
    ]
    # improvement (4/4)·(1 − 0 − 0) = 1 ≥ min_impurity_decrease 1 − ε: still split
    assert (
        grow_entropy_tree(
            x, y, np.ones(4), min_weight_leaf=0.0, min_impurity_decrease=1.0
        ).node_count
        == 3
    )  # type: ignore[union-attr]
    # weights 1 1 1 3, each side ≥ 3: only x0 ≤ 3.5 (3 | 3) is allowed, not the pure 2 | 4
    weighted = grow_entropy_tree(x, y, np.array([1.0, 1.0, 1.0, 3.0]), min_weight_leaf=3.0)
    assert weighted is not None and weighted.feature[0] == 0 and weighted.threshold[0] == 3.5
    h = -(1 / 3) * math.log2(1 / 3) - (2 / 3) * math.log2(2 / 3)
    assert 3 * h == pytest.approx(2.7549, abs=1e-4)


def test_one_class_and_bad_input() -> None:
    x = np.zeros((3, 1))
    assert (
        grow_entropy_tree(x, np.array([1, 1, 0]), np.array([1.0, 2.0, 0.0]), min_weight_leaf=0.0)
        is None
    )
    with pytest.raises(ValueError, match="whole"):
        grow_entropy_tree(x, np.array([1, 0, 1]), np.array([1.0, 0.5, 1.0]), min_weight_leaf=0.0)
    with pytest.raises(ValueError, match="0 or 1"):
        grow_entropy_tree(x, np.array([1, 2, 1]), np.ones(3), min_weight_leaf=0.0)
    with pytest.raises(ValueError, match="finite"):
        grow_entropy_tree(
            np.full((3, 1), np.nan), np.array([1, 0, 1]), np.ones(3), min_weight_leaf=0.0
        )


def _sklearn_tree(x, y, w, fraction, seed):  # type: ignore[no-untyped-def]
    from sklearn.tree import DecisionTreeClassifier

    clf = DecisionTreeClassifier(
        criterion="entropy",
        min_weight_fraction_leaf=fraction,
        min_impurity_decrease=1e-12,
        random_state=seed,
    )
    clf.fit(x, y, sample_weight=w)
    return clf


def _random_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_rows = int(rng.integers(2, 40))
    n_features = int(rng.integers(1, 9))
    columns = []
    for _ in range(n_features):
        kind = rng.integers(4)
        if kind == 0:  # one-hot like
            columns.append(rng.integers(0, 2, n_rows).astype(float))
        elif kind == 1:  # a few levels (delays)
            columns.append(rng.choice([0.0, 25.0, 50.0, 100.0, 300.0], n_rows))
        elif kind == 2:  # a constant column
            columns.append(np.full(n_rows, float(rng.integers(3))))
        else:  # values closer than float32 resolution / the 1e-7 rule
            columns.append(rng.choice([0.1, 0.1 + 1e-8, 0.2, 1e6, 1e6 + 0.01], n_rows))
    x = np.column_stack(columns)
    # profile × class rows with whole weights, as fit_rep_tree passes them
    x = np.repeat(x, 2, axis=0)
    y = np.tile([0, 1], n_rows)
    w = rng.integers(0, 6, 2 * n_rows).astype(float)
    return x, y, w


def _same_tree(ours: GrownTree, clf) -> bool:  # type: ignore[no-untyped-def]
    t = clf.tree_
    inner = t.children_left != -1
    return bool(
        np.array_equal(ours.children_left, t.children_left)
        and np.array_equal(ours.children_right, t.children_right)
        and np.array_equal(ours.feature[inner], t.feature[inner])
        and np.array_equal(ours.threshold[inner], t.threshold[inner])
    )


@pytest.mark.parametrize("block", range(4))
def test_same_tree_as_sklearn(block: int) -> None:
    rng = np.random.default_rng(1000 + block)
    compared = 0
    for case in range(250):
        x, y, w = _random_case(rng)
        keep = w > 0
        x, y, w = x[keep], y[keep], w[keep]
        if len(np.unique(y)) < 2:
            assert grow_entropy_tree(x, y, w, min_weight_leaf=0.0) is None
            continue
        total = float(w.sum())
        min_leaf = float(rng.choice([1.0, 2.0, 5.0]))
        fraction = min(0.5, (min_leaf - 1e-9) / total)
        seed = int(rng.integers(0, 50))
        clf = _sklearn_tree(x, y, w, fraction, seed)
        ours = grow_entropy_tree(
            x,
            y,
            w,
            min_weight_leaf=fraction * float(np.sum(w)),
            min_impurity_decrease=1e-12,
            seed=seed,
        )
        assert ours is not None
        assert _same_tree(ours, clf), f"block {block} case {case}"
        path = clf.decision_path(x.astype(np.float32)).toarray().T.astype(bool)
        assert np.array_equal(_reach(ours, x), path)
        compared += 1
    assert compared > 200
