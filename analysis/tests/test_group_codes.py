"""``tabular.group_codes`` against pandas' own grouping: a group number per row in order of
first appearance (``groupby(..., sort=False, dropna=False).ngroup()``) and the table of the
distinct combinations (``drop_duplicates``), for rows in runs (a rater's rows one after
another) and rows in no order."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_analysis.tabular import group_codes


def same_as_pandas(frame: pd.DataFrame, columns: list[str]) -> None:
    codes, table = group_codes(frame, columns)
    want = frame.groupby(columns, sort=False, dropna=False, observed=True).ngroup()
    np.testing.assert_array_equal(codes, want.to_numpy())
    expected = frame[columns].drop_duplicates().reset_index(drop=True)
    pd.testing.assert_frame_equal(table, expected)


def test_by_hand_runs_and_repeats() -> None:
    frame = pd.DataFrame(
        {
            "rater": pd.Categorical(["p1", "p1", "p1", "p2", "p2", "p1", "p3"]),
            "game": ["rpg", "rpg", "fps", "fps", "fps", "rpg", "rpg"],
        }
    )
    codes, table = group_codes(frame, ["rater", "game"])
    assert codes.tolist() == [0, 0, 1, 2, 2, 0, 3]
    assert table.astype(str).values.tolist() == [
        ["p1", "rpg"],
        ["p1", "fps"],
        ["p2", "fps"],
        ["p3", "rpg"],
    ]
    assert isinstance(table["rater"].dtype, pd.CategoricalDtype)
    same_as_pandas(frame, ["rater", "game"])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 2), st.integers(1, 12)),
        min_size=1,
        max_size=40,
    ),
    st.booleans(),
)
def test_equals_pandas_grouping(runs: list[tuple[str, int, int]], shuffled: bool) -> None:
    rows = [(rater, level) for rater, level, length in runs for _ in range(length)]
    if shuffled:
        rows = [rows[i] for i in np.random.default_rng(len(rows)).permutation(len(rows))]
    frame = pd.DataFrame(rows, columns=["rater", "level"])
    frame["rater"] = frame["rater"].astype("category")
    same_as_pandas(frame, ["rater", "level"])


def test_one_condition_grouping_serves_the_item_statistics() -> None:
    """``item_stats`` groups the ratings by scenario × game once; the P.913 screening, the
    condition table and the subject model given that grouping give what they give when
    they group the table themselves."""
    from qoe_analysis import validate_ratings
    from qoe_analysis.stats.conditions import condition_table
    from qoe_analysis.stats.p913 import p913_iterated_screening
    from qoe_analysis.stats.subject_model import fit_subject_model
    from qoe_analysis.synthetic import generate_study

    ratings, _ = generate_study(40, 55, seed=5)
    table = validate_ratings(ratings)
    shared = group_codes(table, ["scenario", "game"])
    own, given_ = p913_iterated_screening(table), p913_iterated_screening(table, conditions=shared)
    pd.testing.assert_frame_equal(own[0], given_[0])
    assert own[1] == given_[1]
    pd.testing.assert_frame_equal(condition_table(table), condition_table(table, conditions=shared))
    plain, reused = fit_subject_model(table), fit_subject_model(table, conditions=shared)
    pd.testing.assert_frame_equal(plain.conditions, reused.conditions)
    pd.testing.assert_frame_equal(plain.raters, reused.raters)
    # a grouping of other rows is used as given: the argument is not ignored
    other = group_codes(table.iloc[::-1].reset_index(drop=True), ["scenario", "game"])
    assert not condition_table(table, conditions=other).equals(condition_table(table))
