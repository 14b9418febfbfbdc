"""Judge a Level B run: every crossing moved the flow, nothing else did, and how fast.

A *crossing* is a step after which the flow must be on another path than before
(:func:`qoe_steer.testing.scenario.expected_paths`). Its time to move is measured from the
agent's verified apply of the step (the 200 of ``PUT /v1/profile``, sent after the kernel
read-back) to the flow's first game packet on the new path, the later of the two
directions (the game receivers note each packet's ingress interface). Percentiles are
nearest-rank (the smallest value with at least q % of the samples at or below it).
"""

from __future__ import annotations

import math
from typing import Any

#: after a move, packets already on their way over the old path still arrive for up to
#: the old path's delay (≤ 120 ms here) plus scheduling slack
SETTLE_S = 0.3


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile of ``values`` (non-empty)."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q / 100 * len(s)) - 1))]


def path_at(switches: list[list[Any]], t: float) -> str | None:
    """The path of the last packet that arrived at or before ``t`` (``switches``: the times
    at which the arriving packets changed path, ``[t_unix, path]`` in time order)."""
    current = None
    for at, p in switches:
        if at > t:
            break
        current = p
    return current


def first_on(switches: list[list[Any]], target: str, since: float) -> float | None:
    """When the packets changed over to ``target`` at or after ``since`` (None if they did
    not, or were on it already)."""
    for at, p in switches:
        if at >= since and p == target:
            return float(at)
    return None


def _wrong_packets(
    switches: list[list[Any]], want: str, start: float, end: float
) -> tuple[float, str] | None:
    """The first packet in [start, end) that arrived over another path than ``want``."""
    current = path_at(switches, start)
    if current not in (want, None):
        return start, str(current)
    for at, p in switches:
        if start < at < end and p != want:
            return float(at), str(p)
    return None


def judge(run: dict[str, Any]) -> dict[str, Any]:
    """``run``: ``steps`` (with ``applied_unix`` and ``end_unix``), ``expected`` (path per
    step), ``moves`` (the steering service's confirmed moves: ``at_unix``, ``from``,
    ``to``) and ``traffic`` (``downstream``/``upstream`` switch lists). Returns the
    crossings with their times, the problems found and the summary."""
    steps, expected, traffic = run["steps"], run["expected"], run["traffic"]
    moves = sorted(run["moves"], key=lambda m: float(m["at_unix"]))
    problems: list[str] = []
    problem_steps: set[int] = set()

    def flag(i: int, text: str) -> None:
        problems.append(f"step {i} ({steps[i]['label']}): {text}")
        problem_steps.add(i)

    crossings: list[dict[str, Any]] = []
    matched: set[int] = set()
    before = "a"
    for i, (step, want) in enumerate(zip(steps, expected, strict=True)):
        start, end = float(step["applied_unix"]), float(step["end_unix"])
        inside = [
            j
            for j, m in enumerate(moves)
            if start <= float(m["at_unix"]) < end and j not in matched
        ]
        settle_from = start + SETTLE_S
        if want != before:
            hit = [j for j in inside if moves[j]["to"] == want]
            effects = [first_on(traffic[d], want, start) for d in ("downstream", "upstream")]
            effect = None if None in effects else max(e for e in effects if e is not None)
            effect = None if effect is None or effect >= end else effect
            crossing: dict[str, Any] = {
                "step": i,
                "label": step["label"],
                "from": before,
                "to": want,
                "applied_unix": start,
                "moved_unix": float(moves[hit[0]]["at_unix"]) if hit else None,
                "effect_unix": effect,
                "time_to_move_s": None if effect is None else round(effect - start, 4),
            }
            crossings.append(crossing)
            if not hit:
                flag(i, f"no move to {want}")
            else:
                matched.add(hit[0])
            early = [d for d in ("downstream", "upstream") if path_at(traffic[d], start) == want]
            if early:
                flag(i, f"flow already on {want} (moved early)")
            elif effect is None:
                flag(i, f"no packets on {want} in the step")
            else:
                settle_from = effect + SETTLE_S
        for d in ("downstream", "upstream"):
            wrong = _wrong_packets(traffic[d], want, settle_from, end)
            if wrong is not None:
                flag(i, f"{d} packets on {wrong[1]} at {wrong[0] - start:+.2f} s, expected {want}")
        before = want
    extra = [m for j, m in enumerate(moves) if j not in matched]
    for m in extra:
        problems.append(f"move {m['from']} → {m['to']} at {m['at_unix']:.2f} without a crossing")
        problem_steps.update(
            i
            for i, st in enumerate(steps)
            if float(st["applied_unix"]) <= float(m["at_unix"]) < float(st["end_unix"])
        )
    times = [c["time_to_move_s"] for c in crossings if c["time_to_move_s"] is not None]
    return {
        "crossings": crossings,
        "problems": problems,
        "problem_steps": sorted(problem_steps),
        "extra_moves": len(extra),
        "summary": {
            "crossings": len(crossings),
            "moves": len(moves),
            "measured": len(times),
            "median_s": percentile(times, 50) if times else None,
            "p95_s": percentile(times, 95) if times else None,
            "max_s": max(times) if times else None,
        },
    }
