"""Which path each flow should use: the policy's evaluator, with dwell and hysteresis.

Every step calls :func:`qoe_analysis.policy.evaluate.evaluate_policy` (the evaluator of
``qoe-analysis policy check``) on the fresh paths as measured and with delay, loss and
jitter inflated by 1/(1 − h) (h = hysteresis; :mod:`qoe_steer.evaluation`). The rules:

* a flow leaves its active path only when the evaluator has found that path not acceptable
  continuously for ``dwell_s`` and the target acceptable continuously for ``dwell_s``;
* a path the flow left for violating is taken back only when its *inflated* measurements
  are acceptable (continuously for ``dwell_s``): a path oscillating between b(1 − h) and
  the bound b never brings the flow back;
* among the qualifying targets the evaluator's ranking (``acceptable_paths``) decides;
* when no fresh path is acceptable the flow is kept on its path and alarm
  ``all_paths_violate`` is raised; it moves to the best path (smallest worst violation
  ratio r = measured/bound) only when, continuously for ``dwell_s``, (i) every fresh path
  has violated and (ii) r(best) < r(active) × (1 − h) — the same hysteresis, so a path
  that was acceptable a moment ago is no better "all along";
* revertive operation (ITU-T G.8031/Y.1342 linear protection switching, revertive mode
  with its wait-to-restore timer): each flow's ``initial_path`` is its home (working)
  path; with ``revertive`` on, a flow off its home path moves back once the home path's
  inflated measurements have been acceptable continuously for ``wait_to_restore_s``
  (default ``dwell_s``), even while the path it is on is acceptable;
* a stale or missing measurement resets its path's timers and never causes a move; the
  active path stale ⇒ stay; every path stale ⇒ alarm ``probes_lost``. (Probes sent
  across a stall of the prober are excluded by the window itself:
  :func:`qoe_steer.window.summarize`.)

The decider is pure: the clock is the ``now`` argument; the active path changes only when
the daemon calls :meth:`Decider.confirm_move` (the controller confirmed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from qoe_steer.evaluation import class_bounds, evaluate_with_hysteresis, worst_ratio
from qoe_steer.model import Decision, FlowSpec, PathMeasurement

__all__ = [
    "DecideSettings",
    "Decider",
    "FlowState",
    "class_bounds",
    "worst_ratio",
]


@dataclass(frozen=True)
class DecideSettings:
    """``wait_to_restore_s`` None means ``dwell_s``."""

    dwell_s: float = 0.5
    hysteresis: float = 0.2
    delay_key: str = "delay_ms_p95"
    revertive: bool = True
    wait_to_restore_s: float | None = None

    @property
    def wtr_s(self) -> float:
        """The wait-to-restore time in effect."""
        return self.dwell_s if self.wait_to_restore_s is None else self.wait_to_restore_s


@dataclass
class FlowState:
    spec: FlowSpec
    active: str | None
    since: float | None = None
    left: set[str] = field(default_factory=set)
    pending_to: str | None = None
    pending_since: float | None = None
    pending_reason: str | None = None
    home: str | None = None
    better_to: str | None = None  # all paths violate: the path clearly better than active
    better_since: float | None = None


@dataclass
class _Track:
    ok_since: float | None = None
    ok_h_since: float | None = None
    bad_since: float | None = None


def _since(current: float | None, condition: bool, now: float) -> float | None:
    if not condition:
        return None
    return now if current is None else current


def _elapsed(since: float | None, now: float) -> float:
    return 0.0 if since is None else now - since


class Decider:
    """Keeps each flow on a path that the policy finds acceptable (see the module doc)."""

    def __init__(
        self,
        policy: Mapping[str, Any],
        flows: Sequence[FlowSpec],
        settings: DecideSettings,
        initial: Mapping[str, str | None] | None = None,
        home: Mapping[str, str | None] | None = None,
    ) -> None:
        """``initial``: each flow's active path; ``home``: its home path (default: initial)."""
        self.policy = policy
        self.settings = settings
        start = initial or {}
        homes = start if home is None else home
        self.flows = {f.id: FlowState(f, start.get(f.id), home=homes.get(f.id)) for f in flows}
        self._tracks: dict[tuple[str, str], _Track] = {}
        self._all_bad_since: dict[str, float] = {}
        self.alarms: dict[str, str] = {}
        self.last_evaluation: dict[str, Any] | None = None

    def _track(self, cls: str, path: str) -> _Track:
        return self._tracks.setdefault((cls, path), _Track())

    def confirm_move(self, flow: str, path: str, now: float) -> None:
        """The controller confirmed: ``path`` is the flow's active path from ``now``."""
        state = self.flows[flow]
        if state.active is not None and state.active != path:
            state.left.add(state.active)
        state.left.discard(path)
        state.active, state.since = path, now
        state.pending_to = state.pending_since = state.pending_reason = None
        state.better_to = state.better_since = None

    def step(
        self, now: float, measurements: Mapping[str, PathMeasurement | None]
    ) -> list[Decision]:
        """One evaluation of every flow against the measurements taken at ``now``."""
        fresh = {p: m for p, m in measurements.items() if m is not None and m.fresh}
        stale = sorted(p for p in measurements if p not in fresh)
        self.alarms = {}
        for (_cls, path), track in self._tracks.items():
            if path not in fresh:
                track.ok_since = track.ok_h_since = track.bad_since = None
        if not fresh:
            self.alarms["probes_lost"] = f"no fresh measurement on any path ({', '.join(stale)})"
            self.last_evaluation = None
            self._all_bad_since.clear()
            return [
                self._stay(s, "no fresh measurement on any path: no move", {"stale": stale})
                for s in self.flows.values()
                if s.active is not None
            ]
        paths = [fresh[p].as_policy_path(self.settings.delay_key) for p in sorted(fresh)]
        plain, held_rows = evaluate_with_hysteresis(self.policy, paths, self.settings.hysteresis)
        self.last_evaluation = plain
        rows = {c["class"]: c for c in plain["classes"]}
        violating: list[str] = []
        for cls, result in rows.items():
            if result["acceptable_paths"]:
                self._all_bad_since.pop(cls, None)
            else:
                self._all_bad_since.setdefault(cls, now)
            for r in result["paths"]:
                t = self._track(cls, r["path"])
                t.ok_since = _since(t.ok_since, r["acceptable"], now)
                t.ok_h_since = _since(t.ok_h_since, held_rows[cls][r["path"]]["acceptable"], now)
                t.bad_since = _since(t.bad_since, not r["acceptable"], now)
        decisions = []
        for state in self.flows.values():
            result = rows[state.spec.policy_class]
            if not result["acceptable_paths"]:
                violating.append(state.spec.policy_class)
            decision = self._decide(state, result, now, stale)
            if decision is not None:
                decisions.append(decision)
        if violating:
            self.alarms["all_paths_violate"] = (
                f"no fresh path is acceptable for class {', '.join(sorted(set(violating)))}: "
                "the flow is kept on the best path"
            )
        return decisions

    def _stay(self, state: FlowState, reason: str, evidence: dict[str, Any]) -> Decision:
        return Decision(
            state.spec.id,
            state.spec.policy_class,
            state.active,
            state.active or "",
            "stay",
            reason,
            evidence,
        )

    def _move(
        self,
        state: FlowState,
        to: str,
        action: Literal["move", "hold_best"],
        reason: str,
        evidence: dict[str, Any],
    ) -> Decision:
        return Decision(
            state.spec.id, state.spec.policy_class, state.active, to, action, reason, evidence
        )

    def _qualifies(self, state: FlowState, path: str, now: float) -> bool:
        t = self._track(state.spec.policy_class, path)
        since = t.ok_h_since if path in state.left else t.ok_since
        return since is not None and now - since >= self.settings.dwell_s

    def _decide(
        self, state: FlowState, result: Mapping[str, Any], now: float, stale: list[str]
    ) -> Decision | None:
        cls, dwell = state.spec.policy_class, self.settings.dwell_s
        rows = {r["path"]: r for r in result["paths"]}
        ranked: list[str] = list(result["acceptable_paths"])
        ratios = {p: worst_ratio(r) for p, r in rows.items()}
        evidence: dict[str, Any] = {"acceptable_paths": ranked, "stale": stale, "ratios": ratios}
        a = state.active
        if a is None:  # nothing to hold: take the evaluator's choice (or the best) now
            target = ranked[0] if ranked else min(sorted(ratios), key=lambda p: ratios[p])
            if ranked:
                return self._move(state, target, "move", "no active path", evidence)
            return self._move(state, target, "hold_best", "no path", evidence)
        if ranked or a not in rows:
            state.better_to = state.better_since = None
        if a not in rows:
            state.pending_to = state.pending_since = state.pending_reason = None
            evidence["stale_active"] = True
            return self._stay(state, f"active path {a} has no fresh measurement: no move", evidence)
        evidence["violations"] = rows[a]["violations"]
        if rows[a]["acceptable"]:
            back = self._revert(state, now, evidence)
            if back is not None:
                return back
            return self._stay(state, f"active path {a} is acceptable", evidence)
        bad_for = _elapsed(self._track(cls, a).bad_since, now)
        if ranked:
            targets = [p for p in ranked if p != a and self._qualifies(state, p, now)]
            if targets and bad_for >= dwell:
                reason = (
                    f"{a} not acceptable for {bad_for:.2f} s (dwell {dwell:g} s); "
                    f"{targets[0]} acceptable for ≥ {dwell:g} s"
                )
                return self._move(state, targets[0], "move", reason, evidence)
            pending = targets[0] if targets else ranked[0]
            why = (
                "waiting for the dwell time"
                if targets or pending not in state.left
                else f"{pending} is inside the hysteresis band"
            )
            self._pend(state, pending, now, why)
            return self._stay(state, f"{a} not acceptable; {why}", evidence)
        return self._hold_best(state, ratios, now, evidence)

    def _revert(self, state: FlowState, now: float, evidence: dict[str, Any]) -> Decision | None:
        """Revertive mode: back to the home path after its wait-to-restore time (else the
        flow's pending move is the wait, or cleared)."""
        home, wtr = state.home, self.settings.wtr_s
        since = None
        if self.settings.revertive and home is not None and home != state.active:
            since = self._track(state.spec.policy_class, home).ok_h_since
        if home is None or since is None:  # off, at home, stale, or inside the band
            state.pending_to = state.pending_since = state.pending_reason = None
            return None
        if now - since >= wtr:
            reason = (
                f"revertive: home path {home} acceptable with hysteresis for "
                f"{now - since:.2f} s (wait to restore {wtr:g} s)"
            )
            return self._move(state, home, "move", reason, evidence)
        self._pend(state, home, now, "wait to restore")
        return None

    def _hold_best(
        self, state: FlowState, ratios: dict[str, float], now: float, evidence: dict[str, Any]
    ) -> Decision:
        """Every fresh path violates: stay unless the best is clearly better for dwell_s."""
        a, cls, dwell = str(state.active), state.spec.policy_class, self.settings.dwell_s
        h = self.settings.hysteresis
        best = min(sorted(ratios), key=lambda p: (ratios[p], p != a))
        clearly = best != a and ratios[best] < ratios[a] * (1.0 - h)
        if not clearly:
            state.better_to = state.better_since = None
        elif state.better_to != best:
            state.better_to, state.better_since = best, now
        all_bad_for = _elapsed(self._all_bad_since.get(cls), now)
        better_for = _elapsed(state.better_since, now)
        evidence["all_violate_for_s"] = round(all_bad_for, 3)
        if clearly and all_bad_for >= dwell and better_for >= dwell:
            reason = (
                f"every fresh path violates for {all_bad_for:.2f} s; {best} violates least "
                f"(ratio {ratios[best]:.3g} < {ratios[a]:.3g} × (1 − {h:g})) for "
                f"{better_for:.2f} s"
            )
            return self._move(state, best, "hold_best", reason, evidence)
        if clearly:
            self._pend(state, best, now, "every path violates; waiting for the dwell time")
        else:
            state.pending_to = state.pending_since = state.pending_reason = None
        return self._move(
            state, a, "hold_best", "every fresh path violates: kept on the best path", evidence
        )

    def _pend(self, state: FlowState, path: str, now: float, reason: str) -> None:
        if state.pending_to != path:
            state.pending_to, state.pending_since = path, now
        state.pending_reason = reason
