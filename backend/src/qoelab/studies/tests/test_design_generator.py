"""The design generator's rules, without Django: grids, one factor at a time, codes, limits."""

from __future__ import annotations

import re

import pytest

from qoelab.studies.design_generator import (
    CODE_PATTERN,
    RATING_ALLOWANCE_SECONDS,
    DesignError,
    DesignFactor,
    design_size,
    generate_design,
    session_minutes,
)

DELAY = DesignFactor("delay_ms", "downstream", (0, 100, 200))
LOSS = DesignFactor("loss_pct", "upstream", (0, 1, 3))
JITTER_EACH_WAY = {"upstream": {"jitter_ms": 10}, "downstream": {"jitter_ms": 10}}


def test_a_3x3_grid_makes_9_scenarios_with_baseline_b_and_the_base_everywhere() -> None:
    scenarios = generate_design("grid", [DELAY, LOSS], JITTER_EACH_WAY, max_scenarios=100)
    assert [s.code for s in scenarios] == [
        "B",
        "L1",
        "L2",
        "D1",
        "D1L1",
        "D1L2",
        "D2",
        "D2L1",
        "D2L2",
    ]
    assert [s.is_baseline for s in scenarios] == [True] + [False] * 8
    cells = {(s.downstream["delay_ms"], s.upstream["loss_pct"]) for s in scenarios}
    assert cells == {(d, loss) for d in (0.0, 100.0, 200.0) for loss in (0.0, 1.0, 3.0)}
    for s in scenarios:
        # the base applies to every scenario, the factors only to their direction
        assert s.upstream["jitter_ms"] == s.downstream["jitter_ms"] == 10.0
        assert s.upstream["delay_ms"] == 0.0 and s.downstream["loss_pct"] == 0.0
        assert "queue_limit_packets" not in s.upstream  # a station setting
    d1l2 = next(s for s in scenarios if s.code == "D1L2")
    assert d1l2.label == "downstream delay 100 ms, upstream loss 3 %"
    assert d1l2.level_indices == (1, 2)
    assert scenarios[0].label == "Baseline: downstream delay 0 ms, upstream loss 0 %"


def test_one_factor_at_a_time_is_the_baseline_plus_each_other_level_alone() -> None:
    jitter = DesignFactor("jitter_ms", "both", (0, 20))
    factors = [DELAY, LOSS, jitter]
    scenarios = generate_design("one_at_a_time", factors, max_scenarios=100)
    assert design_size("one_at_a_time", factors) == 1 + 2 + 2 + 1 == len(scenarios)
    assert [s.code for s in scenarios] == ["B", "D1", "D2", "L1", "L2", "J1"]
    for s in scenarios[1:]:
        assert sum(1 for level in s.level_indices if level) == 1  # one factor off baseline
    j1 = scenarios[-1]
    assert j1.upstream["jitter_ms"] == j1.downstream["jitter_ms"] == 20.0
    assert j1.downstream["delay_ms"] == 0.0 and j1.upstream["loss_pct"] == 0.0
    assert j1.label == "jitter 20 ms each way (others at baseline)"
    assert design_size("grid", factors) == 18


def test_gilbert_elliott_factors_build_the_burst_loss_object() -> None:
    p = DesignFactor("ge_p_pct", "downstream", (1, 5))
    r = DesignFactor("ge_r_pct", "downstream", (50, 25))
    scenarios = generate_design("grid", [p, r], max_scenarios=100)
    assert [s.code for s in scenarios] == ["B", "GR1", "GP1", "GP1GR1"]
    chains = [s.downstream["gilbert_elliott"] for s in scenarios]
    assert chains == [
        {"p_pct": 1.0, "r_pct": 50.0, "loss_bad_pct": 100.0, "loss_good_pct": 0.0},
        {"p_pct": 1.0, "r_pct": 25.0, "loss_bad_pct": 100.0, "loss_good_pct": 0.0},
        {"p_pct": 5.0, "r_pct": 50.0, "loss_bad_pct": 100.0, "loss_good_pct": 0.0},
        {"p_pct": 5.0, "r_pct": 25.0, "loss_bad_pct": 100.0, "loss_good_pct": 0.0},
    ]
    assert all(s.upstream["gilbert_elliott"] is None for s in scenarios)
    assert scenarios[3].label == (
        "downstream burst loss p (good→bad) 5 %, downstream burst loss r (bad→good) 25 %"
    )


def test_a_burst_loss_level_without_effect_is_refused() -> None:
    # p = 0 is the chain that never enters the bad state: r then changes nothing, and the
    # design would hold two scenarios with the same impairment under different codes.
    p = DesignFactor("ge_p_pct", "downstream", (0, 5))
    r = DesignFactor("ge_r_pct", "downstream", (50, 25))
    with pytest.raises(DesignError, match="scenarios B and GR1 would have the same impairment"):
        generate_design("grid", [p, r], max_scenarios=100)
    # With a burst-loss base, varying r alone is meaningful.
    base = {"downstream": {"gilbert_elliott": {"p_pct": 5, "r_pct": 50}}}
    scenarios = generate_design("one_at_a_time", [r], base, max_scenarios=100)
    assert [s.downstream["gilbert_elliott"]["r_pct"] for s in scenarios] == [50.0, 25.0]


def test_one_loss_model_per_direction_as_the_agent_demands() -> None:
    burst = DesignFactor("ge_p_pct", "upstream", (0, 5))
    with pytest.raises(DesignError, match=r"scenario L1GP1: upstream.gilbert_elliott: .*either"):
        generate_design("grid", [LOSS, burst], max_scenarios=100)


def test_codes_are_unique_and_valid_also_for_one_key_in_two_directions() -> None:
    down = DesignFactor("delay_ms", "downstream", (0, 50, 100))
    up = DesignFactor("delay_ms", "upstream", (0, 50))
    codes = [s.code for s in generate_design("grid", [down, up], max_scenarios=100)]
    assert codes == ["B", "UD1", "DD1", "DD1UD1", "DD2", "DD2UD1"]
    # Many factors: tokens would exceed 8 characters, so the whole design is numbered.
    many = [
        DesignFactor(key, "both", (0, 1))
        for key in ("delay_ms", "jitter_ms", "duplicate_pct", "corrupt_pct", "ge_p_pct")
    ]
    scenarios = generate_design("grid", many, max_scenarios=100)
    codes = [s.code for s in scenarios]
    assert codes[0] == "B" and codes[1:] == [f"S{n}" for n in range(1, 32)]
    for design in ([down, up], many, [DELAY, LOSS]):
        codes = [s.code for s in generate_design("grid", design, max_scenarios=100)]
        assert len(set(codes)) == len(codes)
        assert all(re.fullmatch(CODE_PATTERN, code) for code in codes)


def test_more_than_the_maximum_is_refused_with_the_count_before_generating() -> None:
    delay = DesignFactor("delay_ms", "downstream", tuple(range(0, 250, 50)))  # 5 levels
    loss = DesignFactor("loss_pct", "upstream", (0, 1, 2, 3, 4))
    jitter = DesignFactor("jitter_ms", "both", (0, 5, 10, 20, 40))
    with pytest.raises(DesignError) as refused:
        generate_design("grid", [delay, loss, jitter], max_scenarios=100)
    assert str(refused.value) == (
        "The design makes 125 scenarios; a study may have at most 100 (QOELAB_MAX_SCENARIOS)."
    )
    # the same factors one at a time are 13 scenarios
    assert len(generate_design("one_at_a_time", [delay, loss, jitter], max_scenarios=13)) == 13
    with pytest.raises(DesignError, match="makes 13 scenarios; a study may have at most 12"):
        generate_design("one_at_a_time", [delay, loss, jitter], max_scenarios=12)


@pytest.mark.parametrize(
    ("factor", "message"),
    [
        (
            DesignFactor("delay_ms", "downstream", (0, 70000)),
            r"factors\[0\].levels\[1\]: 70000 is greater than the maximum of 60000 ms",
        ),
        (
            DesignFactor("loss_pct", "both", (0, -1)),
            r"factors\[0\].levels\[1\]: -1 is less than the minimum of 0 %",
        ),
        (
            DesignFactor("rate_kbit", "upstream", (0, 2.5)),
            r"factors\[0\].levels\[1\]: 2.5 is not a whole number",
        ),
        (
            DesignFactor("jitter_distribution", "upstream", ("normal", "uniform")),
            r"'uniform' is not one of \['normal', 'pareto', 'paretonormal'\]",
        ),
        (DesignFactor("delay_ms", "downstream", (0, 100, 100)), r"levels\[2\]: 100 appears twice"),
        (DesignFactor("delay_ms", "sideways", (0, 1)), r"direction: 'sideways' is not one of"),
        (DesignFactor("bandwidth", "both", (0, 1)), r"key: 'bandwidth' is not an impairment"),
        (DesignFactor("delay_ms", "both", ()), r"needs at least one level"),
        (DesignFactor("delay_ms", "both", (0, True)), r"True is not a number"),
        (DesignFactor("delay_ms", "both", (0, 10**400)), r"levels\[1\]: 1000.* is not a number"),
        (DesignFactor("delay_ms", "both", (0, float("nan"))), r"levels\[1\]: nan is not a number"),
        (
            DesignFactor("jitter_ms", "both", (0, 3000)),
            r"scenario J1: upstream.jitter_ms: .*at most 2147 ms of jitter",
        ),
    ],
)
def test_levels_outside_the_agents_limits_are_refused_naming_the_limit(
    factor: DesignFactor, message: str
) -> None:
    with pytest.raises(DesignError, match=message):
        generate_design("grid", [factor], max_scenarios=100)


def test_conflicting_factors_and_a_bad_base_are_refused() -> None:
    with pytest.raises(DesignError, match=r"factors\[1\]: delay_ms upstream is already set by"):
        generate_design(
            "grid",
            [
                DesignFactor("delay_ms", "both", (0, 5)),
                DesignFactor("delay_ms", "upstream", (0, 9)),
            ],
            max_scenarios=100,
        )
    with pytest.raises(DesignError, match="at least one factor"):
        generate_design("grid", [], max_scenarios=100)
    with pytest.raises(DesignError, match=r"base.downstream.loss_pct: 150 is greater"):
        generate_design("grid", [DELAY], {"downstream": {"loss_pct": 150}}, max_scenarios=100)
    with pytest.raises(DesignError, match="kind: 'latin'"):
        generate_design("latin", [DELAY], max_scenarios=100)


def test_labels_say_values_in_words_with_units() -> None:
    rate = DesignFactor("rate_kbit", "both", (0, 2000))
    dist = DesignFactor("jitter_distribution", "downstream", ("normal", "pareto"))
    base = {"downstream": {"jitter_ms": 5}}
    labels = [s.label for s in generate_design("grid", [rate, dist], base, max_scenarios=100)]
    assert labels == [
        "Baseline: rate limit none each way, downstream jitter distribution normal",
        "rate limit none each way, downstream jitter distribution pareto",
        "rate limit 2000 kbit/s each way, downstream jitter distribution normal",
        "rate limit 2000 kbit/s each way, downstream jitter distribution pareto",
    ]
    half = generate_design(
        "grid", [DesignFactor("loss_pct", "upstream", (0, 0.5))], max_scenarios=100
    )
    assert half[1].label == "upstream loss 0.5 %"


def test_session_minutes_formula() -> None:
    assert RATING_ALLOWANCE_SECONDS == 20
    # 10 + 9 × (60 + 20) / 60 = 22 minutes
    assert (
        session_minutes(9, seconds_per_scenario=60, free_play_minutes=10, retest_round=False)
        == 22.0
    )
    # the retest round repeats the 8 non-baseline scenarios: 10 + 17 × 80 / 60 = 32.7
    assert (
        session_minutes(9, seconds_per_scenario=60, free_play_minutes=10, retest_round=True) == 32.7
    )
    assert (
        session_minutes(0, seconds_per_scenario=60, free_play_minutes=5, retest_round=True) == 5.0
    )
