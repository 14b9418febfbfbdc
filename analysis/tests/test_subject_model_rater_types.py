"""Raters with the same observations fitted once (``stats.rater_types``): the
grouping by hand, and the fit equal to the one with every rater written out (the plain
path), including sureal on a design with repeated raters."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_analysis.stats import subject_model_mle
from qoe_analysis.stats.rater_types import rater_types
from qoe_analysis.stats.subject_model_mle import fit_subject_model_arrays
from test_subject_model import _sureal_fit


def ints(*values: int) -> np.ndarray[Any, Any]:
    return np.array(values, dtype=np.int64)


def test_types_by_hand() -> None:
    # raters 0 and 1 rated the same two conditions alike (in another order); rater 2 gave
    # condition 1 a 5; rater 3 rated once; rater 4 did not rate
    r = ints(0, 0, 1, 1, 2, 2, 3)
    c = ints(0, 1, 1, 0, 0, 1, 0)
    u = np.array([3.0, 4.0, 4.0, 3.0, 3.0, 5.0, 2.0])
    types = rater_types(r, c, u, 5)
    assert types is not None
    assert types.of_rater.tolist() == [0, 0, 1, 2, -1]
    assert types.first_rater.tolist() == [0, 2, 3]
    assert types.weight.tolist() == [2.0, 1.0, 1.0]
    # the observations of raters 0, 2 and 3, as written, under their types' numbers
    assert types.r.tolist() == [0, 0, 1, 1, 2]
    assert types.c.tolist() == [0, 1, 0, 1, 0]
    assert types.u.tolist() == [3.0, 4.0, 3.0, 5.0, 2.0]
    assert np.isnan(types.expand(np.array([1.0, 2.0, 3.0]))).tolist() == [
        False,
        False,
        False,
        False,
        True,
    ]
    assert types.expand(np.array([1.0, 2.0, 3.0]))[:4].tolist() == [1.0, 1.0, 2.0, 3.0]


def test_unsorted_rows_and_repeated_ratings() -> None:
    # rater 0: (0, 3) twice and (1, 4); rater 1: (0, 3) and (1, 4) twice - not the same;
    # rater 2 equals rater 0, its rows interleaved with the others
    r = ints(0, 1, 2, 0, 1, 2, 0, 1, 2)
    c = ints(0, 0, 1, 0, 1, 0, 1, 1, 0)
    u = np.array([3.0, 3.0, 4.0, 3.0, 4.0, 3.0, 4.0, 4.0, 3.0])
    types = rater_types(r, c, u, 3)
    assert types is not None
    assert types.of_rater.tolist() == [0, 1, 0] and types.weight.tolist() == [2.0, 1.0]


def test_no_types_when_every_rater_differs_or_rows_are_too_wide() -> None:
    assert rater_types(ints(0, 0, 1, 1), ints(0, 1, 0, 1), np.array([1.0, 2, 2, 1]), 2) is None
    # one rater with 40 ratings among raters of 2: a padded row per rater would not pay
    r = np.concatenate([np.zeros(40, np.int64), np.repeat(np.arange(1, 5), 2)])
    c = np.concatenate([np.arange(40), np.tile([0, 1], 4)])
    u = np.ones(r.size)
    assert rater_types(r, c, u, 5) is None


def _both_paths(
    monkeypatch: pytest.MonkeyPatch, r: Any, c: Any, u: Any, n_r: int, n_c: int
) -> tuple[Any, Any]:
    grouped = fit_subject_model_arrays(r, c, u, n_r, n_c)
    with monkeypatch.context() as patch:
        patch.setattr(subject_model_mle, "rater_types", lambda *args: None)
        plain = fit_subject_model_arrays(r, c, u, n_r, n_c)
    return grouped, plain


def _assert_same_fit(grouped: Any, plain: Any) -> None:
    assert grouped.status == plain.status
    assert grouped.issues == plain.issues
    for name in ("rater_fitted", "condition_fitted", "rater_block", "condition_block"):
        np.testing.assert_array_equal(getattr(grouped, name), getattr(plain, name))
    for name in ("quality", "quality_se", "bias", "bias_se", "inconsistency", "inconsistency_se"):
        np.testing.assert_allclose(
            getattr(grouped, name), getattr(plain, name), rtol=1e-9, atol=1e-12, err_msg=name
        )
    assert grouped.n_ratings_used == plain.n_ratings_used
    if plain.log_likelihood is None:
        assert grouped.log_likelihood is None
    else:
        assert grouped.log_likelihood == pytest.approx(plain.log_likelihood, rel=1e-12)
    # the last step's size is a difference of nearly equal numbers: one iteration more or
    # less is possible when it lands next to the tolerance
    assert abs(grouped.total_iterations - plain.total_iterations) <= 1


@st.composite
def designs(draw: st.DrawFn) -> tuple[Any, Any, Any, int, int]:
    """Integer ratings of a few patterns, each rated by one or more raters, with raters of a
    single condition, raters who agree with everybody and a second block of conditions."""
    n_c = draw(st.integers(2, 6))
    n_patterns = draw(st.integers(2, 8))
    rows: list[tuple[int, int, float]] = []
    rater = 0
    for _ in range(n_patterns):
        conditions = draw(st.lists(st.integers(0, n_c - 1), min_size=1, max_size=2 * n_c))
        ratings = draw(
            st.lists(st.integers(1, 5), min_size=len(conditions), max_size=len(conditions))
        )
        for _copy in range(draw(st.integers(1, 4))):
            rows += [(rater, j, float(x)) for j, x in zip(conditions, ratings, strict=True)]
            rater += 1
    if draw(st.booleans()):  # two raters on two conditions of their own: a second block
        rows += [(rater + k, n_c + j, float(1 + k + 2 * j)) for k in (0, 1) for j in (0, 1)]
        rater, n_c = rater + 2, n_c + 2
    order = np.asarray(draw(st.permutations(range(len(rows)))), dtype=np.int64)
    table = np.array(rows, dtype=np.float64)[order]
    return (table[:, 0].astype(np.int64), table[:, 1].astype(np.int64), table[:, 2], rater, n_c)


@settings(max_examples=150, deadline=None)
@given(designs())
def test_grouped_fit_equals_the_plain_fit(design: Any) -> None:
    r, c, u, n_r, n_c = design
    with pytest.MonkeyPatch.context() as monkeypatch:
        grouped, plain = _both_paths(monkeypatch, r, c, u, n_r, n_c)
    _assert_same_fit(grouped, plain)


def test_grouped_fit_on_a_lab_sized_study(monkeypatch: pytest.MonkeyPatch) -> None:
    # 600 raters of 5 conditions each (one session) on ACR-5: many share their ratings
    rng = np.random.default_rng(7)
    n_r, n_c = 600, 5
    quality = rng.uniform(1.5, 4.5, n_c)
    r = np.repeat(np.arange(n_r), n_c)
    c = np.concatenate([rng.permutation(n_c) for _ in range(n_r)])
    u = np.clip(np.rint(quality[c] + rng.normal(0, 0.6, r.size)), 1, 5)
    types = rater_types(r, c, u, n_r)
    assert types is not None and types.first_rater.size < n_r
    grouped, plain = _both_paths(monkeypatch, r, c, u, n_r, n_c)
    _assert_same_fit(grouped, plain)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # sureal's own regex literals
def test_grouped_fit_matches_sureal() -> None:
    # 30 raters in 10 identical triples, integer ratings: the grouped path, against sureal
    rng = np.random.default_rng(11)
    quality = rng.uniform(1.5, 4.5, 8)
    base = np.clip(np.rint(quality[None, :] + rng.normal(0, 0.8, (10, 8))), 1, 5)
    u = np.repeat(base, 3, axis=0)
    observed = np.ones_like(u, dtype=bool)
    i, j = np.nonzero(observed)
    assert rater_types(i, j, u[i, j], 30) is not None
    fit = fit_subject_model_arrays(i, j, u[i, j], 30, 8)
    ref = _sureal_fit(u, observed)
    assert np.abs(fit.quality - np.asarray(ref["quality_scores"])).max() <= 0.01
    assert np.abs(fit.bias - np.asarray(ref["observer_bias"])).max() <= 0.01
    ref_v = np.asarray(ref["observer_inconsistency"])
    assert np.abs(fit.inconsistency - ref_v).max() <= 0.01
    # raters of a triple get the same estimates
    assert np.ptp(fit.bias.reshape(10, 3), axis=1).max() == 0.0


def test_grouped_fit_with_exactly_fitted_raters(monkeypatch: pytest.MonkeyPatch) -> None:
    # few conditions, continuous ratings, every rater three times: the refits after leaving
    # out the raters the model fits exactly run on the grouped path, with the floor of υ²
    # from every rating as on the plain path
    rng = np.random.default_rng(4)
    quality = rng.uniform(1, 5, 6)
    u = quality[None, :] + rng.normal(0, 0.5, (10, 1)) + rng.normal(0, 0.4, (10, 6))
    u[0] = quality + 0.3  # rater 0 agrees with the qualities up to a bias: fitted exactly
    u = np.repeat(u, 3, axis=0)
    i, j = np.nonzero(np.ones_like(u, dtype=bool))
    assert rater_types(i, j, u[i, j], 30) is not None
    grouped, plain = _both_paths(monkeypatch, i, j, u[i, j], 30, 6)
    assert {issue["kind"] for issue in plain.issues} == {"fitted_exactly"}
    _assert_same_fit(grouped, plain)
