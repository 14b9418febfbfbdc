"""The Level B script: what the netem agents do to paths a and b, which moves must follow.

Each path's router runs a netem agent; one repetition (a and b: delay ms / loss %, the
same in both directions; hold 4 s, the oscillation steps 2 s; a is the flow's home)::

    a 20 → 40 → 60 → 80 → 100 → 120 → 20 (b 10)         a → b at 80, back b → a at 20
    b 100, then b 10                                       no move (b is not in use)
    a loss 1 → 2 → 0 %                                     a → b at 1 %, back at 0 %
    a 59 ↔ 62 twice (active, in the band below the bound)  no move
    a 85, then a 60 ↔ 85 three times (b 10)                a → b at 85, then no move
    b 78, a 95 (both violate, b least), a 60 ↔ 95 × 3      no move (60 × 1.25 = 75 fails;
                                                           at 95 b violates least)
    a 20 (b 78), then b 10                                 back b → a

The loss step is the issue's "loss 0 → 2 %" as 0 → 1 → 2 %: it crosses the 0.36 % bound
at 1 %, where 200 probes/s per path see a loss within 0.25 s on average (docs/steering.md,
"Choosing the probe rate").

The decider's rules (docs/steering.md): the active path is left only when it violates
and the other qualifies; a path left for violating qualifies only when its values inflated
by 1/(1-h) pass; revertive: the flow goes home (a) once a's inflated values pass; when
both violate, the flow goes to the other path only if its worst violation ratio
(measured / bound) is below the active one's × (1 − h). Without hysteresis (h = 0) the
60 ↔ 95 oscillation flaps. The expected path per step is computed from the configured
values with THE evaluator (``evaluate_policy``), not from a second comparison of bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qoe_analysis.policy.evaluate import evaluate_policy

LONG_S, SHORT_S = 4.0, 2.0
B_GOOD_MS, B_MILD_MS, B_BAD_MS = 10.0, 78.0, 100.0


@dataclass(frozen=True)
class Step:
    label: str
    a: tuple[float, float]  # (delay ms, loss %) of path a
    b: tuple[float, float]
    hold_s: float

    def profile(self, path: str) -> dict[str, Any]:
        """The path's netem agent profile: the same impairment in both directions."""
        delay, loss = self.a if path == "a" else self.b
        entry = {"delay_ms": delay, "loss_pct": loss}
        return {"upstream": dict(entry), "downstream": dict(entry)}


def repetition(long_s: float = LONG_S, short_s: float = SHORT_S) -> list[Step]:
    good, bad = (B_GOOD_MS, 0.0), (B_BAD_MS, 0.0)
    steps = [
        Step(f"a delay {d} ms", (d, 0.0), good, long_s) for d in (20, 40, 60, 80, 100, 120, 20)
    ]
    steps += [
        Step("b delay 100 ms", (20, 0.0), bad, long_s),
        Step("b delay 10 ms", (20, 0.0), good, long_s),
    ]
    steps += [Step(f"a loss {x} %", (20, x), good, long_s) for x in (1.0, 2.0, 0.0)]
    steps += [Step(f"a oscillate {d} ms", (d, 0.0), good, short_s) for d in (59, 62, 59, 62)]
    steps.append(Step("a delay 85 ms", (85, 0.0), good, long_s))
    steps += [Step(f"a oscillate {d} ms", (d, 0.0), good, short_s) for d in (60, 85) * 3]
    mild = (B_MILD_MS, 0.0)
    steps.append(Step("b delay 78 ms, a 95", (95, 0.0), mild, long_s))
    steps += [Step(f"a oscillate {d} ms, b 78", (d, 0.0), mild, short_s) for d in (60, 95) * 3]
    steps.append(Step("a delay 20 ms, b 78", (20, 0.0), mild, long_s))
    steps.append(Step("b delay 10 ms", (20, 0.0), good, long_s))
    return steps


def script(repetitions: int = 2, long_s: float = LONG_S, short_s: float = SHORT_S) -> list[Step]:
    """``repetitions`` copies of :func:`repetition`, back to back."""
    return [s for _ in range(repetitions) for s in repetition(long_s, short_s)]


def _path(path_id: str, delay_ms: float, loss_pct: float, scale: float) -> dict[str, Any]:
    entry = {"delay_ms": delay_ms * scale, "loss_pct": loss_pct * scale}
    return {"id": path_id, "upstream": dict(entry), "downstream": dict(entry)}


def verdict(
    policy: dict[str, Any], policy_class: str, values: tuple[float, float], scale: float
) -> tuple[bool, float]:
    """``evaluate_policy``'s verdict on a path with these values times ``scale``: acceptable,
    and the worst violation ratio measured / bound (0 without violations)."""
    result = evaluate_policy(policy, {"paths": [_path("x", *values, scale)]})
    for entry in result["classes"]:
        if entry["class"] == policy_class:
            row = next(r for r in entry["paths"] if r["path"] == "x")
            ratios = [float(v["measured"]) / float(v["bound"]) for v in row["violations"]]
            return bool(row["acceptable"]), max(ratios, default=0.0)
    raise KeyError(f"class {policy_class!r} not in the policy")


def expected_paths(
    steps: list[Step], policy: dict[str, Any], policy_class: str, hysteresis: float
) -> list[str]:
    """The path the flow must be on during each step (after its move, if it causes one),
    starting on a, its home path (revertive)."""
    active, left = "a", set[str]()
    inflate = 1.0 / (1.0 - hysteresis)
    out = []
    for step in steps:
        values = {"a": step.a, "b": step.b}
        other = "b" if active == "a" else "a"
        ok, ratio = verdict(policy, policy_class, values[active], 1.0)
        held = verdict(policy, policy_class, values[other], inflate)[0]
        if not ok:
            other_ok, other_ratio = verdict(policy, policy_class, values[other], 1.0)
            qualifies = held if other in left else other_ok
            clearly_better = not other_ok and other_ratio < ratio * (1.0 - hysteresis)
            move = qualifies or clearly_better
        else:
            move = other == "a" and held  # revertive: home once it passes inflated
        if move:
            left.add(active)
            left.discard(other)
            active = other
        out.append(active)
    return out
