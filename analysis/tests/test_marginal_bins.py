"""The points of a marginal view: tested levels, equal-count bins with rounded edges, the
most-rated texts and "other", missing values in no point (stats/marginal_bins.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from qoe_analysis.stats.marginal_bins import (
    MAX_LEVELS,
    factor_bins,
    factor_points,
    number_text,
    rater_values,
)


def numbers(values: list[float] | np.ndarray) -> pd.Series:
    return pd.Series(np.asarray(values, dtype=np.float64))


def test_few_numbers_are_their_tested_levels() -> None:
    bins = factor_bins([numbers([300, 0, 80, 0, 80.5])], numeric=True)
    assert bins.binning == "levels" and bins.n_levels == 4
    assert [p.label for p in bins.points] == ["0", "80", "80.5", "300"]
    assert [(p.level, p.low, p.high) for p in bins.points][1] == (80.0, 80.0, 80.0)
    assert bins.codes(numbers([0, 80.5, 300, np.nan, 7])).tolist() == [0, 2, 3, -1, -1]


def test_eight_levels_stay_levels_nine_are_binned() -> None:
    eight = factor_bins([numbers(list(range(MAX_LEVELS)))], numeric=True)
    nine = factor_bins([numbers(list(range(MAX_LEVELS + 1)))], numeric=True)
    assert (eight.binning, len(eight.points)) == ("levels", 8)
    assert nine.binning == "quantiles" and nine.n_levels == 9


def test_quantile_edges_by_hand() -> None:
    """0..99: quantiles 19.8, 39.6, 59.4, 79.2; range 99 -> step 10^(1 - 1) = 1 ->
    edges 0, 20, 40, 59, 79, 99; right-closed bins, the first holding its lower edge."""
    bins = factor_bins([numbers(np.arange(100))], numeric=True)
    assert bins.edges == (0, 20, 40, 59, 79, 99)
    assert [p.label for p in bins.points] == [
        "[0, 20]",
        "(20, 40]",
        "(40, 59]",
        "(59, 79]",
        "(79, 99]",
    ]
    codes = bins.codes(numbers(np.arange(100)))
    assert np.bincount(codes).tolist() == [21, 20, 19, 20, 20]
    assert [p.level for p in bins.points] == [None] * 5
    assert (bins.points[0].low, bins.points[0].high) == (0, 20)
    # as pandas.cut(right=True, include_lowest=True) with these edges
    cut = pd.cut(np.arange(100), list(bins.edges), right=True, include_lowest=True, labels=False)
    assert codes.tolist() == cut.tolist()


def test_edges_are_rounded_to_two_digits_of_the_range() -> None:
    """Loss 0..3 % on a 0.01 grid: range 3 -> step 0.1; delay 3..297 ms: range 294 ->
    step 10, the outer edges rounded outwards (0 and 300)."""
    loss = factor_bins([numbers(np.linspace(0, 3, 301))], numeric=True)
    assert loss.edges == (0.0, 0.6, 1.2, 1.8, 2.4, 3.0)
    delay = factor_bins([numbers(np.linspace(3, 297, 50))], numeric=True)
    assert delay.edges == (0, 60, 120, 180, 240, 300)
    # every value lies in a point, the maximum in the last bin
    assert (delay.codes(numbers(np.linspace(3, 297, 50))) >= 0).all()
    assert delay.codes(numbers([300.0, 300.5, -1.0, 0.0])).tolist() == [4, -1, -1, 0]


def test_a_minimum_with_a_fifth_of_the_ratings_is_a_point_of_its_own() -> None:
    """60 % of the ratings at 0 % loss: "0" alone, the 40 values above it (0.1..4) in four
    equal-count bins (their 25/50/75 % quantiles 1.075, 2.05, 3.025 -> 1.1, 2, 3)."""
    x = np.r_[np.zeros(60), np.linspace(0.1, 4, 40)]
    bins = factor_bins([numbers(x)], numeric=True)
    assert bins.edges == (0.0, 0.0, 1.1, 2.0, 3.0, 4.0)
    assert [p.label for p in bins.points] == ["0", "(0, 1.1]", "(1.1, 2]", "(2, 3]", "(3, 4]"]
    assert (bins.points[0].level, bins.points[0].low, bins.points[0].high) == (0.0, 0.0, 0.0)
    assert np.bincount(bins.codes(numbers(x))).tolist() == [60, 11, 9, 10, 10]
    # 19 % at the minimum: no point of its own (20 % quantile 0.139 -> 0.1)
    y = np.r_[np.zeros(19), np.linspace(0.1, 4, 81)]
    first = factor_bins([numbers(y)], numeric=True).points[0]
    assert (first.label, first.level) == ("[0, 0.1]", None)


@pytest.mark.parametrize("seed", range(40))
def test_every_bin_holds_ratings(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = np.round(rng.lognormal(0, 1.5, int(rng.integers(9, 60))), int(rng.integers(0, 3)))
    x[: int(rng.integers(0, 20))] = 0.0  # sometimes a tied minimum
    bins = factor_bins([numbers(x)], numeric=True)
    if bins.binning == "levels":
        return
    counts = np.bincount(bins.codes(numbers(x)), minlength=len(bins.points))
    assert (counts > 0).all() and counts.sum() == len(x)


def test_an_empty_bin_joins_the_one_before() -> None:
    """Range 3.5 -> step 0.1; rounded edges 0.1, 0.3, 0.4, 0.8, 1.6, 3.6 leave (0.3, 0.4]
    empty: the first bin becomes [0.1, 0.4]."""
    values = [0.1, 0.2, 0.2, 0.3, 0.3, 0.3, 0.3, 0.5, 0.6, 0.7, 0.9, 1.2, 1.5, 1.6, 2, 3.5, 3.6]
    bins = factor_bins([numbers(values)], numeric=True)
    assert bins.edges == (0.1, 0.4, 0.8, 1.6, 3.6)
    assert np.bincount(bins.codes(numbers(values))).tolist() == [7, 3, 4, 3]


def test_values_of_several_items_make_one_set_of_points() -> None:
    bins = factor_bins([numbers([0, 1, 2]), numbers([3, 4])], numeric=True)
    assert [p.level for p in bins.points] == [0, 1, 2, 3, 4]


def test_texts_few_and_many() -> None:
    few = factor_bins([pd.Series(["b", "a", None, "b"], dtype=object)], numeric=False)
    assert few.binning == "levels" and [p.label for p in few.points] == ["a", "b"]
    assert few.codes(pd.Series(["b", None, "zz"], dtype=object)).tolist() == [1, -1, -1]
    # ten texts: the seven most rated (ties by text) and "other"
    texts = [f"t{i}" for i in range(10) for _ in range(10 - i)] + ["t9"]  # t8 and t9 tie
    many = factor_bins([pd.Series(texts).astype("category")], numeric=False)
    assert many.binning == "top_levels" and many.n_levels == 10
    assert [p.label for p in many.points] == [f"t{i}" for i in range(7)] + ["other (3 levels)"]
    assert many.points[-1].level is None
    codes = many.codes(pd.Series(["t0", "t8", "t9", "t7", None]))
    assert codes.tolist() == [0, 7, 7, 7, -1]


def test_unused_categories_are_no_level() -> None:
    column = pd.Series(pd.Categorical(["a", "b"], categories=["a", "b", "c"]))
    bins = factor_bins([column], numeric=False)
    assert [p.label for p in bins.points] == ["a", "b"]


def test_number_text() -> None:
    assert [number_text(v) for v in (50.0, 0.25, -0.0, 1 / 3, 60000.0)] == [
        "50",
        "0.25",
        "0",
        "0.333333",
        "60000",
    ]


def test_rater_values_read_gaps_and_numbers_in_text() -> None:
    """A dataset's questionnaire column with gaps arrives as text with the level
    "(missing)": the gap is no value, and the answers are numbers again."""
    age = pd.Series(["31", "(missing)", "27", "31"]).astype("category")
    (values,), numeric = rater_values([age], ["(missing)"])
    assert numeric and values.tolist()[0] == 31.0 and np.isnan(values.tolist()[1])
    hours = pd.Series(["0-2", "(missing)", "3-10"], dtype=object)
    (texts,), numeric = rater_values([hours], ["(missing)"])
    assert not numeric and texts.isna().tolist() == [False, True, False]
    bins = factor_bins([texts], numeric=False)
    assert [p.label for p in bins.points] == ["0-2", "3-10"]
    skill = pd.Series(["low", "(missing)"]).astype("category")
    (cats,), _ = rater_values([skill], ["(missing)"])
    assert list(cats.cat.categories) == ["low"]
    # a number column as it is; booleans are text; without missing texts nothing changes
    (same,), numeric = rater_values([numbers([1.0, np.nan])])
    assert numeric and same is not None
    assert rater_values([pd.Series([True, False])])[1] is False
    assert rater_values([pd.Series(["1", "(missing)"])])[1] is False


@pytest.mark.parametrize("n_values", [5, 40])
def test_the_codes_of_factor_points_are_the_bins_codes(n_values: int) -> None:
    rng = np.random.default_rng(n_values)
    a = numbers(rng.integers(0, n_values, 50) * 12.5)
    b = numbers(np.r_[rng.integers(0, n_values, 30) * 12.5, np.nan])
    bins, codes = factor_points([a, b], numeric=True)
    assert bins.binning == ("levels" if n_values == 5 else "quantiles")
    assert codes[0].tolist() == bins.codes(a).tolist()
    assert codes[1].tolist() == bins.codes(b).tolist() and codes[1][-1] == -1


def test_values_a_rounding_error_off_the_grid_stay_in_the_outer_bins() -> None:
    # 0.1 + 0.2 - 0.2 is 0.09999999999999998: the grid's tolerance puts the bottom edge at
    # 0.1, above it; such a value must still land in the first bin, the largest in the last.
    levels = np.array([0.1 + 0.2 - 0.2, 0.3, 0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 1.7, 1.9 + 1e-12])
    x = np.tile(levels, 20)
    bins, (codes,) = factor_points([numbers(x)], True)
    assert bins.binning == "quantiles"
    assert int(np.min(codes)) == 0
    assert int(np.max(codes)) == len(bins.points) - 1
    assert int(np.bincount(codes).sum()) == x.size
