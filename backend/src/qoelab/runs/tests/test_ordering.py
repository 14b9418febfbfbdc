"""Scenario orders: baseline first, seeded random, balanced Latin square, retest round."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest

from qoelab.runs.ordering import (
    balanced_latin_square_row,
    build_order,
    impairment_size,
    training_scenarios,
)
from qoelab.studies.models import OrderPolicy, Study


@pytest.mark.parametrize("n", [2, 3, 4, 5, 9])
def test_balanced_latin_square_is_a_latin_square_with_balanced_adjacency(n: int) -> None:
    rows = [balanced_latin_square_row(n, r) for r in range(n if n % 2 == 0 else 2 * n)]
    for row in rows:
        assert sorted(row) == list(range(n))
    for column in range(n):
        counts = Counter(row[column] for row in rows)
        assert len(set(counts.values())) == 1 and len(counts) == n
    pairs = Counter(pair for row in rows for pair in pairwise(row))
    assert len(pairs) == n * (n - 1) and len(set(pairs.values())) == 1


@pytest.mark.django_db
def test_orders_start_with_the_baseline_and_are_reproducible(example_study: Study) -> None:
    scenarios = list(example_study.active_scenarios())
    first = build_order(
        scenarios, policy=OrderPolicy.RANDOM, seed=7, latin_square_row=None, retest_round=False
    )
    again = build_order(
        scenarios, policy=OrderPolicy.RANDOM, seed=7, latin_square_row=None, retest_round=False
    )
    other = build_order(
        scenarios, policy=OrderPolicy.RANDOM, seed=8, latin_square_row=None, retest_round=False
    )
    assert first == again and first != other
    assert first[0]["code"] == "B" and len({e["code"] for e in first}) == 10
    retest = build_order(
        scenarios, policy=OrderPolicy.LATIN_SQUARE, seed=1, latin_square_row=3, retest_round=True
    )
    assert [e["round"] for e in retest] == [1] * 10 + [2] * 9
    assert sorted(e["code"] for e in retest[10:]) == sorted(e["code"] for e in retest[1:10])
    assert "B" not in {e["code"] for e in retest[10:]}


@pytest.mark.django_db
def test_training_anchors_lead_the_order(example_study: Study) -> None:
    """Default anchors: the baseline and the most impaired scenario (delay + 10 × loss over
    both directions: D3 = 2 × 300 = 600 beats M2 = 360 + 10 × 0.6 = 366)."""
    scenarios = list(example_study.active_scenarios())
    anchors = training_scenarios(scenarios, [])
    assert [s.code for s in anchors] == ["B", "D3"]
    assert [s.code for s in training_scenarios(scenarios, ["M2", "L1"])] == ["M2", "L1"]
    order = build_order(
        scenarios,
        policy=OrderPolicy.RANDOM,
        seed=1,
        latin_square_row=None,
        retest_round=False,
        training=anchors,
    )
    assert order[:3] == [
        {"scenario": anchors[0].pk, "code": "B", "round": 0, "training": True},
        {"scenario": anchors[1].pk, "code": "D3", "round": 0, "training": True},
        {"scenario": anchors[0].pk, "code": "B", "round": 1},
    ]
    assert len(order) == 12 and not any(e.get("training") for e in order[2:])


def test_impairment_ties_go_to_the_first_code() -> None:
    from qoelab.studies.models import Scenario

    a = Scenario(code="X2", us_delay_ms=100.0)
    b = Scenario(code="X1", ds_loss_pct=10.0)
    base = Scenario(code="B", is_baseline=True)
    assert impairment_size(a) == impairment_size(b) == 100.0
    assert [s.code for s in training_scenarios([base, a, b], [])] == ["B", "X1"]
