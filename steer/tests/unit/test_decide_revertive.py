"""The decider's two fixes of the Level B run, on hand-made tables (issue 33).

* all paths violate: a move to the best path needs every path violating for ``dwell_s``
  *and* the best's worst ratio below the active one's × (1 − h) for ``dwell_s``; it would
  catch the flap of kernel run 2 (b → a → b in 0.6 s when a had been acceptable just
  before and counted as "best" all along);
* revertive mode (ITU-T G.8031 wait-to-restore): a flow off its home path goes back once
  the home path passes with the hysteresis margin for ``wait_to_restore_s``; it would
  catch a decider that never returns, returns inside the band, on a stale home path,
  before the wait, or with ``revertive = false``.

Bound of cloud-gaming.fast: 72.72 ms; with h = 0.2 a path passes inflated below 58.17 ms.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from qoe_steer.config import ConfigError, load_config
from qoe_steer.decide import Decider, DecideSettings
from qoe_steer.policy_source import LoadedPolicy

from .test_decide import BOUND, FLOW, m, meas, run


def on_b(
    policy: LoadedPolicy, dwell: float = 0.5, revertive: bool = True, wtr: float | None = None
) -> Decider:
    """A flow whose home is a, on b after leaving a for violating."""
    s = DecideSettings(dwell_s=dwell, hysteresis=0.2, revertive=revertive, wait_to_restore_s=wtr)
    dec = Decider(policy.document, [FLOW], s, initial={"game": "b"}, home={"game": "a"})
    dec.flows["game"].left = {"a"}
    return dec


def test_all_violate_after_a_was_acceptable_holds(policy: LoadedPolicy) -> None:
    """Kernel run 2: a acceptable (60 ms), b at 78 ms spikes to 100; then a reads 80 ms.
    The old rule moved to a at once (a 'best' all along); now every path must violate for
    the dwell and a must beat b × (1 − h): 80/72.7 = 1.10 is not < 1.375 × 0.8 = 1.10."""
    dec = on_b(policy)
    steps = [(t / 10, meas(a=60.0, b=78.0)) for t in range(0, 10)]
    steps += [(1.0, meas(a=60.0, b=100.0))]
    steps += [(1.1 + t / 10, meas(a=80.5, b=100.0)) for t in range(0, 10)]
    actions = run(dec, steps)
    assert set(actions) == {"stay", "hold_best"} and dec.flows["game"].active == "b"
    assert "all_paths_violate" in dec.alarms


def test_all_violate_moves_after_the_dwell_when_clearly_better(policy: LoadedPolicy) -> None:
    dec = on_b(policy)
    steps = [(t / 10, meas(a=60.0, b=78.0)) for t in range(0, 10)]  # a inside the band
    # from 1.0 both violate; a (1.10) < b (1.65) × 0.8: moves after 0.5 s of both
    steps += [(1.0 + t / 10, meas(a=80.0, b=120.0)) for t in range(0, 7)]
    actions = run(dec, steps)
    assert actions[:10] == ["stay"] * 10
    assert actions[10:] == ["hold_best"] * 5 + ["hold_best:a", "hold_best"]


def test_all_violate_margin_must_hold_for_the_dwell(policy: LoadedPolicy) -> None:
    """The clear margin is interrupted at 1.3 s (b 100: 1.10 vs 1.10): the timer restarts."""
    dec = on_b(policy)
    steps = [(1.0, meas(a=80.0, b=120.0)), (1.2, meas(a=80.0, b=120.0))]
    steps += [(1.3, meas(a=80.5, b=100.0))]
    steps += [(1.4 + t / 10, meas(a=80.0, b=120.0)) for t in range(0, 6)]
    assert run(dec, steps) == ["hold_best"] * 8 + ["hold_best:a"]


def test_revertive_returns_home_after_wait_to_restore(policy: LoadedPolicy) -> None:
    dec = on_b(policy)
    steps = [(1.0 + t / 10, meas(a=20.0, b=20.0)) for t in range(0, 7)]  # b acceptable too
    assert run(dec, steps) == ["stay"] * 5 + ["move:a", "stay"]
    assert dec.flows["game"].active == "a" and dec.flows["game"].left == {"b"}


def test_revertive_shows_the_wait_as_pending(policy: LoadedPolicy) -> None:
    dec = on_b(policy)
    run(dec, [(1.0, meas(a=20.0, b=20.0))])
    state = dec.flows["game"]
    assert (state.pending_to, state.pending_reason) == ("a", "wait to restore")
    run(dec, [(1.1, meas(a=65.0, b=20.0))])  # a back inside the band: no more waiting
    assert state.pending_to is None


def test_revertive_waits_the_configured_time(policy: LoadedPolicy) -> None:
    dec = on_b(policy, wtr=2.0)
    steps = [(t / 4, meas(a=20.0, b=20.0)) for t in range(0, 10)]  # 0 … 2.25 s
    assert run(dec, steps) == ["stay"] * 8 + ["move:a", "stay"]


def test_revertive_off_stays_on_the_protection_path(policy: LoadedPolicy) -> None:
    dec = on_b(policy, revertive=False)
    assert set(run(dec, [(t, meas(a=20.0, b=20.0)) for t in range(0, 5)])) == {"stay"}


def test_interrupted_recovery_restarts_the_wait(policy: LoadedPolicy) -> None:
    steps = [
        (0.0, meas(a=20.0, b=20.0)),
        (0.4, meas(a=60.0, b=20.0)),  # acceptable but inside the band: the wait restarts
        (0.5, meas(a=20.0, b=20.0)),
        (0.9, meas(a=20.0, b=20.0)),
        (1.0, meas(a=20.0, b=20.0)),
    ]
    assert run(on_b(policy), steps) == ["stay"] * 4 + ["move:a"]


def test_stale_home_never_brings_the_flow_back(policy: LoadedPolicy) -> None:
    dec = on_b(policy)
    steps = [(t / 10, {"a": m("a", 20.0, fresh=t % 2 == 0), "b": m("b", 20.0)}) for t in range(20)]
    assert set(run(dec, steps)) == {"stay"}


def test_a_flow_at_home_does_not_move(policy: LoadedPolicy) -> None:
    dec = Decider(policy.document, [FLOW], DecideSettings(), initial={"game": "a"})
    assert dec.flows["game"].home == "a"
    assert set(run(dec, [(t, meas(a=20.0, b=10.0)) for t in range(5)])) == {"stay"}


@settings(max_examples=20, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(BOUND * 0.8 + 0.01, BOUND), st.floats(0.01, 0.5)),
        min_size=1,
        max_size=25,
    ),
    st.floats(5.0, BOUND),
)
def test_property_home_in_the_band_never_reverts(
    policy: LoadedPolicy, steps: list[tuple[float, float]], delay_b: float
) -> None:
    """Home a oscillating in (b(1−h), b] never brings the flow back, b good or not."""
    dec = on_b(policy, dwell=0.3)
    now = 0.0
    for delay_a, dt in steps:
        now += dt
        for d in dec.step(now, meas(a=delay_a, b=delay_b)):
            assert d.to_path == d.from_path, (now, delay_a, d)


def test_config_decision_keys(write_config: Callable[..., Path]) -> None:
    default = load_config(write_config()).decision
    assert default.revertive is True and default.wait_to_restore_s == default.dwell_s == 0.2
    text = "dwell_s = 0.2\nrevertive = false\nwait_to_restore_s = 3.5"
    chosen = load_config(write_config({"dwell_s = 0.2": text})).decision
    assert chosen.revertive is False and chosen.wait_to_restore_s == 3.5


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("revertive = 1", "decision.revertive: 1 is not true or false"),
        ("wait_to_restore_s = -1", "decision.wait_to_restore_s: -1 is outside"),
        ("wait_to_restor_s = 1", "decision.wait_to_restor_s: unknown key"),
    ],
)
def test_config_decision_keys_refused(
    write_config: Callable[..., Path], line: str, message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(write_config({"dwell_s = 0.2": f"dwell_s = 0.2\n{line}"}))
    assert str(err.value).startswith(message)
