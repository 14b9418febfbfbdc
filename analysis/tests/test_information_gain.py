"""Information gain (Weka and RapidMiner conventions) and Fayyad–Irani MDL discretisation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from qoe_analysis.models.information_gain import (
    best_binary_split_gain,
    class_weighted_profiles,
    info_gain_from_table,
    minmax_normalise,
    rapidminer_weights,
    weka_info_gain,
    weka_weights,
)
from qoe_analysis.models.mdl_discretize import entropy_bits, mdl_cut_points
from qoe_analysis.report import factor_frame
from qoe_analysis.tabular import group_codes
from sklearn.metrics import mutual_info_score


def read_weka(weka_dir: Path, k: int) -> dict[str, tuple[float, list[float]]]:
    out = {}
    for line in (weka_dir / f"infogain_acc{k}.tsv").read_text().splitlines():
        name, merit, cuts = [*line.split("\t"), ""][:3]
        out[name] = (float(merit), [float(c) for c in cuts.split()])
    return out


@pytest.mark.parametrize("k", [3, 4])
def test_weka_mode_agrees_with_weka_infogainattributeeval(
    study: pd.DataFrame, weka_dir: Path, k: int
) -> None:
    """Reference numbers from Weka 3.6.14 (fixtures/datasets/weka_reference/make_reference.sh)."""
    reference = read_weka(weka_dir, k)
    factors = factor_frame(study)
    gains, cuts = weka_weights(factors, (study["rating"].to_numpy() >= k).astype(int))
    assert set(gains) == set(reference)
    for name, (merit, weka_cuts) in reference.items():
        assert gains[name] == pytest.approx(merit, abs=1e-6), name
        assert cuts.get(name, []) == pytest.approx(weka_cuts), name


def test_hand_computed_entropy_and_gain() -> None:
    assert float(entropy_bits(np.array([2.0, 2.0]))) == pytest.approx(1.0)
    assert float(entropy_bits(np.array([3.0, 1.0]))) == pytest.approx(0.8112781244591328)
    assert info_gain_from_table(np.array([[2, 0], [0, 2]])) == pytest.approx(1.0)
    assert info_gain_from_table(np.array([[1, 1], [1, 1]])) == pytest.approx(0.0)
    # H(C) = H(3,3) = 1; rows (3,1) and (0,2): H(C|A) = 4/6 * 0.811278 = 0.540852
    assert info_gain_from_table(np.array([[3, 1], [0, 2]])) == pytest.approx(1 - 0.5408520829727552)


def test_mdl_hand_cases() -> None:
    # clean separation of 10 values: gain 1 bit > (log2 9 + log2 7 - 2) / 10 = 0.3977
    x = np.arange(1, 11, dtype=float)
    assert mdl_cut_points(x, (x > 5).astype(int)).tolist() == [5.5]
    # 4 values: 1 > (log2 3 + log2 7 - 2) / 4 = 0.598 -> accepted
    assert mdl_cut_points(np.array([1.0, 2, 3, 4]), np.array([0, 0, 1, 1])).tolist() == [2.5]
    # alternating classes: the best cut gains 0.311 bits < 0.598 -> rejected
    assert mdl_cut_points(np.array([1.0, 2, 3, 4]), np.array([0, 1, 0, 1])).size == 0
    # a single value or a pure class never gets a cut
    assert mdl_cut_points(np.ones(8), np.array([0, 1] * 4)).size == 0
    assert mdl_cut_points(x, np.zeros(10, int)).size == 0


def test_weights_equal_unit_replication() -> None:
    """Counts as weights give the same result as repeated rows (used on aggregated data)."""
    x = np.array([0.0, 0.0, 80.0, 200.0, 300.0])
    y = np.array([1, 0, 1, 0, 0])
    w = np.array([7.0, 1.0, 5.0, 6.0, 9.0])
    gain_w, cuts_w = weka_info_gain(x, y, numeric=True, weights=w)
    gain_r, cuts_r = weka_info_gain(
        np.repeat(x, w.astype(int)), np.repeat(y, w.astype(int)), numeric=True
    )
    assert gain_w == pytest.approx(gain_r) and cuts_w == cuts_r


def test_best_binary_split_matches_sklearn_mutual_information() -> None:
    rng = np.random.default_rng(5)
    x = rng.choice([0.0, 40, 80, 120, 200, 300], 300)
    y = (rng.random(300) < 1 / (1 + np.exp((x - 150) / 50))).astype(int)
    gain, threshold = best_binary_split_gain(x, y)
    best = max(
        mutual_info_score(x <= t, y) / np.log(2) for t in (np.unique(x)[:-1] + np.unique(x)[1:]) / 2
    )
    assert gain == pytest.approx(best)
    assert threshold in {20.0, 60.0, 100.0, 160.0, 250.0}


def test_nominal_gain_matches_sklearn_mutual_information() -> None:
    rng = np.random.default_rng(6)
    x = rng.choice(["fast", "medium", "slow"], 500)
    y = (rng.random(500) < np.where(x == "slow", 0.8, 0.4)).astype(int)
    gain, _ = weka_info_gain(pd.Series(x), y, numeric=False)
    assert gain == pytest.approx(mutual_info_score(x, y) / np.log(2))


def test_minmax_normalise_hand_case_and_degenerate() -> None:
    assert minmax_normalise({"a": 0.2, "b": 0.1, "c": 0.05}) == pytest.approx(
        {"a": 1.0, "b": 1 / 3, "c": 0.0}
    )
    assert minmax_normalise({"a": 0.3, "b": 0.3}) == {"a": 1.0, "b": 1.0}
    assert minmax_normalise({"a": 0.0, "b": 0.0}) == {"a": 0.0, "b": 0.0}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, 0.3, 1.0, 1.5]),
            st.sampled_from(["a", "b", "c"]),
            st.integers(18, 40),
            st.booleans(),
        ),
        min_size=4,
        max_size=80,
    )
)
def test_weight_invariants(rows: list[tuple[float, str, int, bool]]) -> None:
    frame = pd.DataFrame(rows, columns=["loss", "game", "age", "y"])
    y = frame.pop("y").to_numpy().astype(int)
    normalised, raw = rapidminer_weights(frame.astype({"age": float}), y)
    weka, _ = weka_weights(frame.astype({"age": float}), y)
    class_entropy = float(entropy_bits(np.bincount(y, minlength=2).astype(float)))
    for gains in (raw, weka):
        assert all(-1e-12 <= g <= class_entropy + 1e-12 for g in gains.values())
    assert all(0.0 <= w <= 1.0 for w in normalised.values())
    assume(max(raw.values()) - min(raw.values()) > 1e-12)
    assert max(normalised.values()) == pytest.approx(1.0)
    assert min(normalised.values()) == pytest.approx(0.0)


@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, -0.0, 0.3, 1.0, 1.5]),
            st.sampled_from(["b", "a", "c"]),
            st.integers(18, 40),
            st.booleans(),
        ),
        min_size=1,
        max_size=80,
    ),
    st.booleans(),
)
def test_gains_from_class_weighted_profiles_are_the_rows_gains(
    rows: list[tuple[float, str, int, bool]], categorical: bool
) -> None:
    """The report computes the weights on the distinct profiles with their class counts:
    exactly (==) the gains and cut points of the rows themselves."""
    frame = pd.DataFrame(rows, columns=["loss", "game", "age", "y"]).astype({"age": float})
    y = frame.pop("y").to_numpy().astype(int)
    if categorical:
        frame["game"] = frame["game"].astype("category")
    weighted = class_weighted_profiles(*group_codes(frame, list(frame.columns)), y)
    assert float(weighted[2].sum()) == len(frame)
    assert weka_weights(*weighted) == weka_weights(frame, y)
    assert rapidminer_weights(*weighted) == rapidminer_weights(frame, y)
