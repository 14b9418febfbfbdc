"""Fast tests (no kernel) of the Level B oracle and judge; each can fail:

* the oracle must follow the evaluator and the hysteresis rule (a wrong band would expect
  moves in the oscillation, or none at 80 ms);
* the judge must flag a missed crossing, a flap, and packets left on the old path.
"""

from __future__ import annotations

import json
from typing import Any

from qoe_steer.testing import steer_lab
from qoe_steer.testing.judge import judge, percentile
from qoe_steer.testing.scenario import Step, expected_paths, repetition


def _policy() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(steer_lab.POLICY.read_text())
    return document


def test_oracle_moves_at_the_bounds_with_hysteresis() -> None:
    steps = repetition()
    paths = expected_paths(steps, _policy(), steer_lab.POLICY_CLASS, 0.2)
    labelled = list(zip([s.label for s in steps], paths, strict=True))
    changes = [lab for (lab, p), (_, q) in zip(labelled[1:], labelled, strict=False) if p != q]
    assert paths[0] == "a"
    assert changes == [
        "a delay 80 ms",
        "a delay 20 ms",  # revertive: home a passes inflated (25 ms)
        "a loss 1.0 %",
        "a loss 0.0 %",
        "a delay 85 ms",
        "a delay 20 ms, b 78",
    ]


def test_oracle_without_hysteresis_flaps_in_the_band() -> None:
    paths = expected_paths(repetition(), _policy(), steer_lab.POLICY_CLASS, 0.0)
    assert sum(1 for p, q in zip(paths[1:], paths, strict=False) if p != q) == 18


def test_oracle_all_violate_needs_the_hysteresis_margin() -> None:
    """Both violate: b (1.07) is left for a only when a's ratio < 1.07 × (1 − h)."""
    policy, cls = _policy(), steer_lab.POLICY_CLASS
    steps = [Step("a 85", (85, 0.0), (10, 0.0), 1), Step("b 78, a 76", (76, 0.0), (78, 0.0), 1)]
    assert expected_paths(steps, policy, cls, 0.2) == ["b", "b"]  # 1.05 ≥ 1.07 × 0.8
    assert expected_paths(steps, policy, cls, 0.0) == ["b", "a"]


def test_oracle_reverts_home_only_outside_the_band() -> None:
    policy, cls = _policy(), steer_lab.POLICY_CLASS
    steps = [Step("a 85", (85, 0.0), (10, 0.0), 1), Step("a 60", (60, 0.0), (10, 0.0), 1)]
    steps.append(Step("a 50", (50, 0.0), (10, 0.0), 1))
    assert expected_paths(steps, policy, cls, 0.2) == ["b", "b", "a"]  # 60 × 1.25 > 72.7


def test_oracle_without_hysteresis_takes_back_a_path_in_the_band() -> None:
    steps = [
        Step("a 85", (85, 0.0), (10, 0.0), 1),
        Step("a 60, b 100", (60, 0.0), (100, 0.0), 1),
    ]
    policy, cls = _policy(), steer_lab.POLICY_CLASS
    assert expected_paths(steps, policy, cls, 0.2) == ["b", "b"]  # 60 × 1.25 = 75 > 72.7
    assert expected_paths(steps, policy, cls, 0.0) == ["b", "a"]


def _step(label: str, start: float, end: float) -> dict[str, Any]:
    return {"label": label, "applied_unix": start, "end_unix": end}


RUN: dict[str, Any] = {
    "steps": [_step("20", 0, 10), _step("80", 10, 20), _step("20", 20, 30)],
    "expected": ["a", "b", "a"],
    "moves": [{"at_unix": 10.7, "from": "a", "to": "b"}, {"at_unix": 21.5, "from": "b", "to": "a"}],
    "traffic": {
        "downstream": [[0.5, "a"], [10.8, "b"], [21.6, "a"]],
        "upstream": [[0.5, "a"], [10.9, "b"], [21.7, "a"]],
    },
}


def test_judge_accepts_a_clean_run_and_times_it() -> None:
    result = judge(RUN)
    assert result["problems"] == []
    assert [c["time_to_move_s"] for c in result["crossings"]] == [0.9, 1.7]
    assert result["summary"]["p95_s"] == 1.7


def test_judge_flags_a_flap_a_miss_and_stray_packets() -> None:
    flap = dict(RUN, moves=[*RUN["moves"], {"at_unix": 25.0, "from": "a", "to": "b"}])
    assert judge(flap)["extra_moves"] == 1
    missed = dict(RUN, moves=RUN["moves"][:1])
    assert any("no move to a" in p for p in judge(missed)["problems"])
    early = dict(
        RUN, traffic={**RUN["traffic"], "downstream": [[0.5, "a"], [9.0, "b"], [21.6, "a"]]}
    )
    assert any("moved early" in p for p in judge(early)["problems"])
    stray = dict(
        RUN, traffic={**RUN["traffic"], "upstream": [[0.5, "a"], [10.9, "b"], [15.0, "a"]]}
    )
    assert any("upstream packets on a" in p for p in judge(stray)["problems"])


def test_percentile_is_nearest_rank() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.0
    assert percentile(list(range(1, 21)), 95) == 19
