"""Connected parts of a rating design: raters and conditions linked by shared ratings.

The subject model (:mod:`qoe_analysis.stats.subject_model_mle`) identifies the offset
between two conditions only when a chain of raters links them; each connected part of the
bipartite rater–condition graph is fitted on its own scale.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Array", "Blocks", "IntArray", "connected_parts", "design_blocks"]

Array = np.ndarray[Any, np.dtype[np.float64]]
IntArray = np.ndarray[Any, np.dtype[np.int64]]
#: (block of each rater, block of each condition, number of blocks)
Blocks = tuple[IntArray, IntArray, int]


def connected_parts(u: IntArray, v: IntArray, n_nodes: int) -> tuple[int, IntArray]:
    """Connected components of the undirected graph with edges u[i]–v[i] on nodes 0…n−1:
    (count, label per node), labels numbered by each part's smallest node, as
    ``scipy.sparse.csgraph.connected_components(directed=False)`` numbers them.

    Min-label hooking with pointer jumping (Shiloach–Vishkin style): every edge between two
    trees hangs the larger root under the smaller one, then each node jumps to its root; a
    part's root ends as its smallest node. NumPy only: importing ``csgraph`` costs more
    than this takes for a study's ratings.
    """
    parent = np.arange(n_nodes)
    while True:
        pu, pv = parent[u], parent[v]
        differ = pu != pv
        if not differ.any():
            break
        np.minimum.at(parent, np.maximum(pu, pv)[differ], np.minimum(pu, pv)[differ])
        while True:  # jump to the root
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
    roots, label = np.unique(parent, return_inverse=True)
    return int(roots.size), label.astype(np.int64)


def design_blocks(
    r: IntArray, c: IntArray, n_r: int, n_c: int, weight: Array | None = None
) -> Blocks:
    """Connected parts of the bipartite rater–condition graph of the observations (r, c),
    numbered by ratings, 0 = most (each rater's counted ``weight`` times, see
    :func:`qoe_analysis.stats.subject_model_ascent.maximise_likelihood`)."""
    n, label = connected_parts(r, n_r + c, n_r + n_c)
    ratings = np.bincount(label[r], None if weight is None else weight[r], n)
    order = np.argsort(-ratings, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    label = rank[label]
    return label[:n_r], label[n_r:], int(n)
