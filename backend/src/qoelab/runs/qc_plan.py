"""Quality-control slots in a session's order (ITU-T P.808; settings:
:mod:`qoelab.studies.quality_control`).

Two kinds of slot join the order built by :func:`qoelab.runs.ordering.build_order`:

* ``{"qc": "hidden_reference", ...}`` — the chosen scenario (default: the baseline) played
  and rated a second time, unannounced, inserted before test slot k with k drawn uniformly
  from the second half (⌈n/2⌉ … n of the n test slots; k = n: after the last);
* ``{"qc": "trap", "trap": i, "value": v, "text": {"en", "de"}, ...}`` — a rating screen
  without a new play, right after the played test slot number ``after`` (1-based over the
  played test slots, the hidden reference included; past the end: after the last; null:
  drawn uniformly, distinct places for several random traps). Its ``scenario`` is the
  slot's just played, whose impairment is still installed.

The draws use ``random.Random(seed)`` after the order's own, so one seed gives one plan.
Training slots never get a check.
"""

from __future__ import annotations

import math
import random
from typing import Any

from qoelab.studies.models import Scenario

TRAP = "trap"
HIDDEN_REFERENCE = "hidden_reference"


def is_trap(entry: dict[str, Any] | None) -> bool:
    """A trap slot: rated without a new play."""
    return bool(entry and entry.get("qc") == TRAP)


def rating_kind(entry: dict[str, Any]) -> str:
    """The kind a rating of ``entry`` is stored with (``Rating.kind``)."""
    return str(entry.get("qc") or "scenario")


def _reference(scenarios: list[Scenario], code: str | None) -> Scenario:
    by_code = {s.code: s for s in scenarios}
    if code is not None and code in by_code:
        return by_code[code]
    return next(s for s in scenarios if s.is_baseline)


def with_quality_control(
    order: list[dict[str, Any]],
    qc: dict[str, Any] | None,
    scenarios: list[Scenario],
    *,
    seed: int,
) -> list[dict[str, Any]]:
    """``order`` with the study's checks inserted (module doc); unchanged without any."""
    if not qc or not (qc.get("traps") or qc.get("hidden_reference")):
        return order
    rng = random.Random(f"quality-control:{seed}")
    trained = sum(1 for entry in order if entry.get("training"))
    training, test = order[:trained], list(order[trained:])
    reference = qc.get("hidden_reference")
    if reference is not None and test:
        scenario = _reference(scenarios, reference.get("scenario"))
        k = rng.randint(math.ceil(len(test) / 2), len(test))
        repeat = {"scenario": scenario.pk, "code": scenario.code, "round": 1}
        test.insert(k, {**repeat, "qc": HIDDEN_REFERENCE})
    traps = qc.get("traps") or []
    played = len(test)
    free = [n for n in range(1, played + 1) if n not in {t.get("after") for t in traps}]
    places: list[int] = []
    for trap in traps:
        after = trap.get("after")
        if after is None:
            pool = [n for n in free if n not in places] or list(range(1, played + 1))
            after = rng.choice(pool)
        places.append(min(after, played))
    planned: list[dict[str, Any]] = []
    for n, entry in enumerate(test, start=1):
        planned.append(entry)
        for i, (trap, place) in enumerate(zip(traps, places, strict=True), start=1):
            if place == n:
                planned.append(
                    {
                        "scenario": entry["scenario"],
                        "code": entry["code"],
                        "round": entry.get("round", 1),
                        "qc": TRAP,
                        "trap": i,
                        "value": trap["value"],
                        "text": dict(trap["text"]),
                    }
                )
    return training + planned
