"""``qoe-steer decide``: one evaluation of ``policy check`` measurements, with state.

The measurements are ``policy check``'s (``{"paths": [{id, upstream, downstream}]}``),
taken as fresh; the dwell time is 0 (one evaluation has no history). The state carries
what hysteresis needs between calls::

    {"flows": [{"flow", "class", "active_path": id | null, "left": [ids]}]}

Without a state every class of the policy's application is one flow (named after the
class) with no active path. The output's ``state`` assumes every move was carried out,
so it can be passed to the next call.
"""

from __future__ import annotations

from typing import Any

from qoe_analysis.policy.schema import validate_against

from qoe_steer.decide import Decider, DecideSettings
from qoe_steer.model import FlowSpec, PathMeasurement
from qoe_steer.policy_source import LoadedPolicy, check_flow_classes
from qoe_steer.sources import direction_stats


def _flows(policy: LoadedPolicy, state: Any) -> list[dict[str, Any]]:
    if state is None:
        return [
            {"flow": c["id"], "class": c["id"], "active_path": None, "left": []}
            for c in policy.document["classes"]
            if c.get("application") == policy.application
        ]
    if not isinstance(state, dict) or not isinstance(state.get("flows"), list):
        raise ValueError("state: needs an object with a list 'flows'")
    flows = []
    for i, f in enumerate(state["flows"]):
        where = f"state.flows[{i}]"
        if not isinstance(f, dict) or not isinstance(f.get("flow"), str):
            raise ValueError(f"{where}.flow: missing")
        if not isinstance(f.get("class"), str):
            raise ValueError(f"{where}.class: missing")
        active, left = f.get("active_path"), f.get("left", [])
        if active is not None and not isinstance(active, str):
            raise ValueError(f"{where}.active_path: {active!r} is not a path id or null")
        if not isinstance(left, list) or not all(isinstance(x, str) for x in left):
            raise ValueError(f"{where}.left: must be a list of path ids")
        flows.append({"flow": f["flow"], "class": f["class"], "active_path": active, "left": left})
    check_flow_classes(
        policy, [(f"state.flows[{i}].class", f["class"]) for i, f in enumerate(flows)]
    )
    return flows


def decide_once(
    policy: LoadedPolicy, measurements: Any, state: Any | None, *, hysteresis: float
) -> dict[str, Any]:
    """Evaluation, decisions and the next state (ValueError on bad input, one line)."""
    validate_against(measurements, "measurements", "invalid measurements")
    flows = _flows(policy, state)
    path_ids = {p["id"] for p in measurements["paths"]}
    for i, f in enumerate(flows):
        if f["active_path"] is not None and f["active_path"] not in path_ids:
            raise ValueError(
                f"state.flows[{i}].active_path: {f['active_path']!r} is not in the measurements"
            )
    specs = [FlowSpec(f["flow"], f["class"], {}) for f in flows]
    decider = Decider(
        policy.document,
        specs,
        DecideSettings(dwell_s=0.0, hysteresis=hysteresis),
        initial={f["flow"]: f["active_path"] for f in flows},
    )
    for f in flows:
        decider.flows[f["flow"]].left = set(f["left"])
    current = {
        p["id"]: PathMeasurement(
            p["id"],
            0.0,
            0.0,
            direction_stats(p["upstream"], 100, f"{p['id']}.upstream"),
            direction_stats(p["downstream"], 100, f"{p['id']}.downstream"),
            True,
        )
        for p in measurements["paths"]
    }
    decisions = decider.step(0.0, current)
    for d in decisions:
        if d.to_path != d.from_path and d.action in ("move", "hold_best"):
            decider.confirm_move(d.flow, d.to_path, 0.0)
    return {
        "evaluation": decider.last_evaluation,
        "hysteresis": hysteresis,
        "decisions": [
            {
                "flow": d.flow,
                "class": d.policy_class,
                "from_path": d.from_path,
                "to_path": d.to_path,
                "action": d.action,
                "reason": d.reason,
            }
            for d in decisions
        ],
        "alarms": [{"code": c, "message": m} for c, m in decider.alarms.items()],
        "state": {
            "flows": [
                {
                    "flow": s.spec.id,
                    "class": s.spec.policy_class,
                    "active_path": s.active,
                    "left": sorted(s.left),
                }
                for s in decider.flows.values()
            ]
        },
    }
