"""The per-scenario MOS of item_correlations: summed on codes, the text grouping's result."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.stats.item_correlations import _mos_by_text

NAN = float("nan")


def _reference(scenarios: pd.Series, ratings: pd.Series) -> pd.Series:
    return ratings.groupby(scenarios.astype(str)).mean()


@pytest.mark.parametrize(
    ("scenarios", "ratings"),
    [
        (["B", "D1", "B", "L2"], [5, 4, 3, 1]),
        (["B", "D1", "B", "L2"], [5.0, NAN, 3.0, 1.0]),  # NaN skipped
        (["B", "D1", "D1"], [5.0, NAN, NAN]),  # a scenario with no rating: NaN
        ([1, "1", 2], [1.0, 3.0, 5.0]),  # one text, two values: one group
        (["10", "9", "a"], [2.0, 4.0, 3.0]),  # sorted as text
    ],
)
def test_hand_cases_equal_the_text_grouping(scenarios: list[object], ratings: list[float]) -> None:
    s, r = pd.Series(scenarios, name="scenario"), pd.Series(ratings, name="rating")
    expected = _reference(s, r)
    for column in (s, s.astype("category") if s.map(type).nunique() == 1 else s):
        got = _mos_by_text(column, r)
        assert got.index.tolist() == expected.index.tolist()
        np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy())


def test_random_tables_equal_the_text_grouping() -> None:
    rng = np.random.default_rng(11)
    for _ in range(50):
        n = int(rng.integers(1, 400))
        s = pd.Series(rng.choice(["B", "D1", "D2", "L1", "M2"], n), name="scenario")
        whole = pd.Series(rng.integers(1, 6, n).astype(float), name="rating")
        # whole-number ratings: exactly equal; fractional ones: within rounding
        np.testing.assert_array_equal(_mos_by_text(s, whole), _reference(s, whole))
        fractional = pd.Series(rng.uniform(0, 100, n), name="rating")
        np.testing.assert_allclose(
            _mos_by_text(s.astype("category"), fractional),
            _reference(s, fractional),
            rtol=1e-13,
        )
