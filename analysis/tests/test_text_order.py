"""sort_by_text / text_order against DataFrame.sort_values(kind="stable")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.text_order import sort_by_text, text_order


def test_text_order_by_hand() -> None:
    # code point order ("B" < "a" < "ä"), ties keep their positions
    assert text_order(["b", "a", "B", "ä", "a", ""]).tolist() == [5, 2, 1, 4, 0, 3]


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("dtype", [object, "str"])
@pytest.mark.parametrize("order", ["any", "ascending", "descending"])
def test_sort_by_text_is_stable_sort_values(seed: int, dtype: object, order: str) -> None:
    """Any order, rows already in order (ties included: left in place) and reversed."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 300))
    alphabet = list("abAB019_-é€ ")
    names = ["".join(rng.choice(alphabet, int(rng.integers(0, 5)))) for _ in range(n)]
    if order != "any":
        names.sort(reverse=order == "descending")
    frame = pd.DataFrame(
        {"x": rng.normal(size=n), "rater_id": pd.Series(names, dtype=dtype), "k": np.arange(n)}
    )
    frame.index = rng.permutation(n)
    expected = frame.sort_values("rater_id", kind="stable").reset_index(drop=True)
    pd.testing.assert_frame_equal(sort_by_text(frame, "rater_id"), expected)


def test_sort_by_text_leaves_other_cells_to_sort_values() -> None:
    # numbers (and missing cells) are sorted by sort_values itself
    for ids in ([3, 1, 2, 1], ["b", None, "a", "b"]):
        frame = pd.DataFrame({"rater_id": ids, "k": [0, 1, 2, 3]})
        expected = frame.sort_values("rater_id", kind="stable").reset_index(drop=True)
        pd.testing.assert_frame_equal(sort_by_text(frame, "rater_id"), expected)
