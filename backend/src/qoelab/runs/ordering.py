"""Scenario orders: training anchors, the baseline, then random or balanced-Latin-square
order, plus a retest round."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from qoelab.studies.models import OrderPolicy, Scenario


def balanced_latin_square_row(n: int, row: int) -> list[int]:
    """Row ``row`` of a balanced Latin square (Williams design) over ``n`` treatments.

    Every treatment appears once per row and once per column position, and every ordered
    pair of treatments is adjacent equally often across the square (n rows for even n; for
    odd n the square is completed by the mirrored rows, 2n rows).
    """
    if n <= 0:
        return []
    base = [0]
    low, high = 1, n - 1
    for i in range(1, n):
        if i % 2 == 1:
            base.append(low)
            low += 1
        else:
            base.append(high)
            high -= 1
    rows = n if n % 2 == 0 else 2 * n
    r = row % rows
    sequence = [(value + r) % n for value in base]
    if n % 2 == 1 and r >= n:
        sequence.reverse()
    return sequence


def impairment_size(scenario: Scenario) -> float:
    """How impaired a scenario is: delay ms + 10 × loss % summed over both directions."""
    return float(
        scenario.us_delay_ms
        + scenario.ds_delay_ms
        + 10 * (scenario.us_loss_pct + scenario.ds_loss_pct)
    )


def training_scenarios(scenarios: list[Scenario], codes: list[str]) -> list[Scenario]:
    """The training anchors: ``codes`` in their order, or by default the baseline and the
    most impaired scenario (largest :func:`impairment_size`, ties by code)."""
    if codes:
        by_code = {s.code: s for s in scenarios}
        return [by_code[code] for code in codes if code in by_code]
    baseline = [s for s in scenarios if s.is_baseline]
    others = [s for s in scenarios if not s.is_baseline]
    worst = sorted(others, key=lambda s: (-impairment_size(s), s.code))[:1]
    return baseline + worst


def build_order(
    scenarios: list[Scenario],
    *,
    policy: str,
    seed: int,
    latin_square_row: int | None,
    retest_round: bool,
    training: Sequence[Scenario] = (),
) -> list[dict[str, Any]]:
    """The session's order: ``[{"scenario": id, "code": ..., "round": 1|2}, ...]``.

    ``training`` scenarios come first as ``{..., "round": 0, "training": true}`` slots.
    """
    baseline = [s for s in scenarios if s.is_baseline]
    others = sorted((s for s in scenarios if not s.is_baseline), key=lambda s: (s.position, s.pk))
    if len(baseline) != 1:
        raise ValueError("the study needs exactly one baseline scenario")
    rng = random.Random(seed)
    if policy == OrderPolicy.LATIN_SQUARE:
        indices = balanced_latin_square_row(len(others), latin_square_row or 0)
        first_round = [others[i] for i in indices]
    else:
        first_round = list(others)
        rng.shuffle(first_round)
    order: list[dict[str, Any]] = [
        {"scenario": s.pk, "code": s.code, "round": 0, "training": True} for s in training
    ]
    order.append({"scenario": baseline[0].pk, "code": baseline[0].code, "round": 1})
    order += [{"scenario": s.pk, "code": s.code, "round": 1} for s in first_round]
    if retest_round:
        second = list(others)
        rng.shuffle(second)
        order += [{"scenario": s.pk, "code": s.code, "round": 2} for s in second]
    return order
