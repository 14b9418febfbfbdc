"""The decider: dwell, hysteresis, ranking, hold-best, staleness — tables and properties.

Bounds of class cloud-gaming.fast in the example policy: delay 72.72 ms, loss 0.364 % per
direction; with h = 0.2 a path left for violating comes back only below 58.17 ms.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_analysis.policy import evaluate_policy  # type: ignore[import-untyped]
from qoe_steer.decide import Decider, DecideSettings
from qoe_steer.evaluation import class_bounds, inflate, worst_ratio
from qoe_steer.model import DirectionStats, FlowSpec, PathMeasurement
from qoe_steer.policy_source import LoadedPolicy

BOUND = 72.7187177636298
FLOW = FlowSpec("game", "cloud-gaming.fast", {"udp_dst": 50000})


def m(path: str, delay: float, loss: float = 0.0, fresh: bool = True) -> PathMeasurement:
    d = DirectionStats(100, 100, loss, delay, delay, delay, None)
    return PathMeasurement(path, 0.0, 1.0, d, d, fresh, None if fresh else "test: stale")


def meas(**delays: float | None) -> dict[str, PathMeasurement | None]:
    return {p: None if v is None else m(p, v) for p, v in delays.items()}


def decider(policy: LoadedPolicy, active: str = "a", dwell: float = 0.5) -> Decider:
    return Decider(
        policy.document, [FLOW], DecideSettings(dwell_s=dwell, hysteresis=0.2), {"game": active}
    )


def run(dec: Decider, steps: list[tuple[float, Mapping[str, PathMeasurement | None]]]) -> list[str]:
    """Feed the steps; confirm every move at once; the actions taken, one per step."""
    out = []
    for now, ms in steps:
        (d,) = dec.step(now, ms)
        out.append(d.action if d.to_path == d.from_path else f"{d.action}:{d.to_path}")
        if d.to_path != d.from_path:
            dec.confirm_move(d.flow, d.to_path, now)
    return out


def test_the_decider_uses_the_policy_check_evaluator(policy: LoadedPolicy) -> None:
    dec = decider(policy)
    ms = meas(a=80.0, b=20.0)
    dec.step(0.0, ms)
    paths = [x.as_policy_path() for x in ms.values() if x is not None]
    assert dec.last_evaluation == evaluate_policy(policy.document, {"paths": paths})


def test_active_acceptable_stays(policy: LoadedPolicy) -> None:
    assert run(decider(policy), [(t, meas(a=60.0, b=10.0)) for t in (0, 1, 2)]) == ["stay"] * 3


def test_move_needs_violation_for_the_dwell_time(policy: LoadedPolicy) -> None:
    steps = [(t, meas(a=80.0, b=20.0)) for t in (0.0, 0.2, 0.4, 0.5, 0.6)]
    assert run(decider(policy), steps) == ["stay", "stay", "stay", "move:b", "stay"]


def test_interrupted_violation_restarts_the_dwell(policy: LoadedPolicy) -> None:
    steps = [
        (0.0, meas(a=80.0, b=20.0)),
        (0.3, meas(a=70.0, b=20.0)),  # back inside the bound: the timer restarts
        (0.4, meas(a=80.0, b=20.0)),
        (0.8, meas(a=80.0, b=20.0)),
        (0.9, meas(a=80.0, b=20.0)),
    ]
    assert run(decider(policy), steps) == ["stay", "stay", "stay", "stay", "move:b"]


def test_target_must_be_acceptable_for_the_dwell_time(policy: LoadedPolicy) -> None:
    steps = [
        (0.0, meas(a=80.0, b=90.0)),
        (0.5, meas(a=80.0, b=20.0)),  # b good only from 0.5
        (0.9, meas(a=80.0, b=20.0)),
        (1.0, meas(a=80.0, b=20.0)),
    ]
    dec = decider(policy)
    assert run(dec, steps) == ["hold_best", "stay", "stay", "move:b"]
    assert dec.flows["game"].active == "b" and dec.flows["game"].left == {"a"}


def test_hysteresis_keeps_a_left_path_until_it_is_clearly_good(policy: LoadedPolicy) -> None:
    dec = decider(policy, active="b")
    dec.flows["game"].left = {"a"}  # the flow left a for violating
    band = [(t / 10, meas(a=65.0, b=80.0)) for t in range(0, 20)]  # a in (58.2, 72.7]
    actions = run(dec, band)
    assert set(actions) == {"stay"}
    assert dec.flows["game"].pending_reason == "a is inside the hysteresis band"
    clear = [(2.0 + t / 10, meas(a=55.0, b=80.0)) for t in range(0, 7)]
    assert run(dec, clear) == ["stay"] * 5 + ["move:a", "stay"]
    assert dec.flows["game"].left == {"b"}


def test_preferred_path_is_the_evaluators_first(policy: LoadedPolicy) -> None:
    steps = [(t, meas(a=90.0, b=60.0, c=15.0)) for t in (0.0, 0.5)]
    assert run(decider(policy), steps) == ["stay", "move:c"]


def test_all_paths_violate_keeps_the_best_and_alarms(policy: LoadedPolicy) -> None:
    dec = decider(policy)
    # a: 120 ms (ratio 1.65), b: 90 ms (1.24): b is the better of two bad paths
    actions = run(dec, [(t, meas(a=120.0, b=90.0)) for t in (0.0, 0.3, 0.5, 0.6)])
    assert actions == ["hold_best", "hold_best", "hold_best:b", "hold_best"]
    assert "all_paths_violate" in dec.alarms
    assert run(dec, [(1.0, meas(a=120.0, b=60.0))]) == ["stay"]
    assert dec.alarms == {}


def test_stale_active_path_never_moves(policy: LoadedPolicy) -> None:
    dec = decider(policy)
    stale = {"a": m("a", 200.0, fresh=False), "b": m("b", 10.0)}
    (d,) = dec.step(0.0, stale)
    (d,) = dec.step(5.0, stale)
    assert d.action == "stay" and d.to_path == "a" and d.evidence["stale_active"]
    assert d.evidence["stale"] == ["a"]


def test_stale_or_missing_target_is_no_candidate(policy: LoadedPolicy) -> None:
    steps = [(t, {"a": m("a", 80.0), "b": None}) for t in (0.0, 1.0)]
    assert run(decider(policy), steps) == ["hold_best", "hold_best"]


def test_every_path_stale_raises_probes_lost(policy: LoadedPolicy) -> None:
    dec = decider(policy)
    (d,) = dec.step(0.0, {"a": None, "b": m("b", 10.0, fresh=False)})
    assert d.action == "stay" and d.to_path == "a"
    assert dec.alarms.keys() == {"probes_lost"}


def test_staleness_resets_the_target_timer(policy: LoadedPolicy) -> None:
    """b stale at 0.4 restarts its dwell: fresh again at 0.5, it is taken at 1.0, not
    before (and not a window later: stalls are the window's business, not the decider's)."""
    steps = [
        (0.0, meas(a=80.0, b=20.0)),
        (0.4, {"a": m("a", 80.0), "b": m("b", 20.0, fresh=False)}),
        (0.5, meas(a=80.0, b=20.0)),
        (0.9, meas(a=80.0, b=20.0)),
        (1.0, meas(a=80.0, b=20.0)),
    ]
    expected = ["stay", "hold_best", "stay", "stay", "move:b"]
    assert run(decider(policy), steps) == expected


def test_probes_lost_lasts_exactly_while_every_path_is_stale(policy: LoadedPolicy) -> None:
    """A stale active path holds the flow; every path stale raises probes_lost, cleared by
    the next fresh reading; a never goes to b while a's readings are stale."""
    dec = decider(policy)
    steps = [(0.0, meas(a=62.0, b=10.0))]
    steps += [(0.1 + t / 10, {"a": m("a", 90.0, fresh=False), "b": m("b", 10.0)}) for t in range(9)]
    assert set(run(dec, steps)) == {"stay"}
    dec.step(1.2, {"a": m("a", 20.0, fresh=False), "b": m("b", 10.0, fresh=False)})
    assert "probes_lost" in dec.alarms
    dec.step(1.3, meas(a=20.0, b=10.0))
    assert dec.alarms == {}


def test_helpers(policy: LoadedPolicy) -> None:
    bounds = class_bounds(policy.class_("cloud-gaming.fast"))
    assert bounds["upstream"]["delay_ms"] == pytest.approx(BOUND)
    assert bounds["downstream"]["jitter_ms"] is None
    path = {
        "id": "a",
        "upstream": {"delay_ms": 40.0, "loss_pct": 90.0},
        "downstream": {"delay_ms": 8.0, "loss_pct": 0.2, "jitter_ms": 2.0},
    }
    up = inflate(path, 0.2)
    assert up["upstream"] == {"delay_ms": 50.0, "loss_pct": 100.0}
    assert up["downstream"]["jitter_ms"] == pytest.approx(2.5)
    row = {"acceptable": False, "violations": [{"measured": 90.0, "bound": 60.0}]}
    assert worst_ratio(row) == 1.5
    assert worst_ratio(
        {"acceptable": False, "violations": [{"measured": 1, "bound": None}]}
    ) == float("inf")


STEP = st.tuples(
    st.floats(5.0, 150.0),
    st.booleans(),
    st.floats(5.0, 150.0),
    st.booleans(),
    st.floats(0.01, 0.4),
)


@settings(max_examples=15, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=20))
def test_property_no_move_on_or_off_a_stale_path(policy: LoadedPolicy, steps: list) -> None:
    dec = decider(policy, dwell=0.2)
    now = 0.0
    for delay_a, fresh_a, delay_b, fresh_b, dt in steps:
        now += dt
        ms = {"a": m("a", delay_a, fresh=fresh_a), "b": m("b", delay_b, fresh=fresh_b)}
        for d in dec.step(now, ms):
            if d.to_path != d.from_path:
                assert d.from_path is not None and ms[d.from_path].fresh  # type: ignore[union-attr]
                assert ms[d.to_path].fresh  # type: ignore[union-attr]
                dec.confirm_move(d.flow, d.to_path, now)


@settings(max_examples=15, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(BOUND * 0.8 + 0.01, BOUND), st.floats(0.01, 0.5)),
        min_size=1,
        max_size=20,
    ),
    st.booleans(),
)
def test_property_oscillation_inside_the_band_never_moves(
    policy: LoadedPolicy, steps: list[tuple[float, float]], left_a: bool
) -> None:
    """Left path a in (b(1−h), b] never comes back; an active a there is never left."""
    dec = decider(policy, active="b" if left_a else "a", dwell=0.3)
    if left_a:
        dec.flows["game"].left = {"a"}
    now = 0.0
    for delay_a, dt in steps:
        now += dt
        other = 100.0 if left_a else 10.0  # b violates (flow on b) or is excellent (flow on a)
        for d in dec.step(now, meas(a=delay_a, b=other)):
            assert d.to_path == d.from_path, (now, delay_a, d)
