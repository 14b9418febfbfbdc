"""The QoE policy document: a study's thresholds as per-class, per-direction SLO bounds.

:func:`build_policy` turns the analysis document of :func:`qoe_analysis.analyze` into the
versioned policy JSON described by ``schemas/qoe-policy.schema.json`` and
``docs/policy.md``. It is pure (no I/O); ``generated_at`` may be passed for reproducible
output.

How a bound is chosen, per pace class p, direction d (downstream = server→client,
upstream = client→server) and metric (delay, loss) — the ``basis`` field says which rule
applied:

1. ``tree_split``: the REP tree places a split on this direction's factor (the first
   split where P(acceptable) drops below ½). Its ``tested_bracket`` says between which
   tested levels the true threshold lies.
2. ``tree_tested_maximum``: the tree finds every tested level acceptable and the design
   varied this direction alone, so the bound is the largest tested level (all that the
   data supports; the true threshold lies beyond it).
3. ``symmetric_logistic`` / ``symmetric_tree`` / ``symmetric_tested_maximum``: otherwise
   — typically the table-4.1 design, where no condition varies one direction alone (A1/A2
   change delay *and* loss of one direction together) and the per-direction logistic
   threshold is not identifiable — the "both directions" estimate is applied to this
   direction alone (logistic if its Fieller CI is bounded, else the tree). Under monotone
   impairment this is conservative: a path with this value on one direction only is no
   worse than one with it on both.
4. ``not_acceptable_at_zero``: the class is not acceptable even without impairment; the
   bound is null.

Each bound carries an ``interval`` from the same estimator as the bound: for a tree bound
the bracket of tested levels around its split (or "beyond the largest tested level"), for
a logistic bound its Fieller 95 % CI, which is also ``ci95`` (null for tree bounds). The
other estimator's value and CI stay in ``estimates``, with their own basis. Intervals are
clipped to the physical range and marked ``extrapolated`` when they reach beyond the
tested levels. Bounds are *marginal*:
each holds with every other network factor at 0; the evaluator checks combinations.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping
from typing import Any, Final

from qoe_analysis import __version__
from qoe_analysis.policy.schema import PolicyError, validate_policy
from qoe_analysis.policy.standards import dscp_mapping, select_5qi, select_y1541

__all__ = [
    "DEFAULT_HEADROOM",
    "DEFAULT_STREAM_KBPS",
    "POLICY_SCHEMA_ID",
    "POLICY_VERSION",
    "FlowMatch",
    "build_policy",
]

POLICY_VERSION: Final = "1.0"
POLICY_SCHEMA_ID: Final = "urn:qoe-lab:schema:qoe-policy:1.0"
APPLICATION: Final = "cloud-gaming"
ALL_PACES: Final = "all"
DEFAULT_STREAM_KBPS: Final = 3000
DEFAULT_HEADROOM: Final = 0.25
BURST_SECONDS: Final = 0.1
DIRECTIONS: Final = {
    "downstream": ("server", "client"),
    "upstream": ("client", "server"),
}
METRICS: Final = (
    # (threshold key, metric type, unit)
    ("max_delay_ms", "one-way-delay-maximum", "milliseconds"),
    ("max_loss_pct", "one-way-packet-loss", "percent"),
)
NETWORK_COLUMNS: Final = {
    "downstream": ("ds_delay_ms", "ds_loss_pct"),
    "upstream": ("us_delay_ms", "us_loss_pct"),
}

FlowMatch = Mapping[str, Any]
PLACEHOLDER_SERVER_IP: Final = "192.0.2.10/32"
DEFAULT_FLOWS: Final[Mapping[str, FlowMatch]] = {
    APPLICATION: {
        "server_ip": PLACEHOLDER_SERVER_IP,
        "protocol": "udp",
        "server_port": None,
        "placeholder": True,
        "note": "placeholder: RFC 5737 documentation address; pass the game server's address",
    }
}


def _finite(value: Any) -> float | None:
    if value is None:
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def _ci(entry: Mapping[str, Any], source: str) -> dict[str, Any] | None:
    low, high = _finite(entry.get("ci95_low")), _finite(entry.get("ci95_high"))
    if entry.get("logistic_status") != "ok" or low is None or high is None:
        return None
    return {"low": low, "high": high, "source": source}


def _ci_pair(entry: Mapping[str, Any]) -> list[float] | None:
    ci = _ci(entry, "")
    return [ci["low"], ci["high"]] if ci else None


def _interval(
    low: float | None, high: float | None, kind: str, estimator: str, extrapolated: bool
) -> dict[str, Any]:
    return {
        "low": _finite(low),
        "high": _finite(high),
        "kind": kind,
        "estimator": estimator,
        "extrapolated": bool(extrapolated),
    }


def _metric_bound(
    entry: Mapping[str, Any], symmetric: Mapping[str, Any], metric_type: str, unit: str
) -> dict[str, Any]:
    """One metric bound from the direction's and the symmetric threshold entries.

    The bound and its ``interval`` always come from one estimator: a tree bound carries
    the bracket of tested levels around its split (or "beyond the largest tested level"),
    a logistic bound its own Fieller 95 % CI (also in ``ci95``). The other estimator's
    value and CI are listed in ``estimates`` with their own basis, never as the bound's CI.
    """
    notes: list[str] = []
    tested = [float(v) for v in entry.get("tested_levels") or []]
    sym_tested = [float(v) for v in symmetric.get("tested_levels") or []]
    bound: float | None
    ci: dict[str, Any] | None = None
    interval: dict[str, Any] | None = None
    bracket = entry.get("tree_tested_bracket")
    status = entry.get("tree_status")
    alone = bool(entry.get("varied_alone_in_design", False))
    if status == "split" and entry.get("tree") is not None:
        bound, basis = float(entry["tree"]), "tree_split"
        if not alone:
            notes.append(
                "no tested condition varies this direction alone; the tree split extrapolates "
                "from conditions where it changes together with other factors"
            )
        lo, hi = bracket if bracket else (None, None)
        interval = _interval(lo, hi, "tested_bracket", "tree", not alone)
    elif status == "acceptable_at_all_tested_levels" and alone:
        bound, basis, bracket = max(tested), "tree_tested_maximum", None
        notes.append("acceptable at every tested level: the threshold lies beyond this bound")
        interval = _interval(bound, None, "beyond_tested_range", "tree", False)
    elif status == "not_acceptable_at_zero":
        bound, basis, bracket = None, "not_acceptable_at_zero", None
        notes.append("not acceptable even without impairment: no bound keeps the flow acceptable")
    else:
        bracket = None
        if symmetric.get("logistic_status") == "ok" and _finite(symmetric.get("logistic")):
            bound, basis = _finite(symmetric.get("logistic")), "symmetric_logistic"
            ci = _ci(symmetric, "logistic_symmetric")
            if ci is not None:
                interval = _interval(
                    ci["low"],
                    ci["high"],
                    "fieller_95",
                    "logistic",
                    bool(symmetric.get("logistic_extrapolated", False)),
                )
        elif symmetric.get("tree_status") == "split" and symmetric.get("tree") is not None:
            bound, basis = float(symmetric["tree"]), "symmetric_tree"
            bracket = symmetric.get("tree_tested_bracket")
            if bracket:
                interval = _interval(bracket[0], bracket[1], "tested_bracket", "tree", True)
        elif symmetric.get("tree_status") == "acceptable_at_all_tested_levels" and sym_tested:
            bound, basis = max(sym_tested), "symmetric_tested_maximum"
            interval = _interval(bound, None, "beyond_tested_range", "tree", False)
        else:
            bound, basis = None, "not_acceptable_at_zero"
        notes.append(
            "this direction's own threshold is not estimable from the design ("
            f"tree: {status}, logistic: {entry.get('logistic_status')}); the estimate for the "
            "same value on both directions is applied to this direction alone, which is "
            "conservative under monotone impairment"
        )
    if interval is not None and interval["extrapolated"]:
        notes.append("the interval extrapolates beyond what the design tested")
    if ci is None and basis != "not_acceptable_at_zero":
        alternative = _ci(entry, "logistic_direction") or _ci(symmetric, "logistic_symmetric")
        if alternative is None:
            notes.append("no bounded logistic 95 % CI for this quantity")
        else:
            notes.append(
                f"the logistic estimate has its own 95 % CI [{alternative['low']:.4g}, "
                f"{alternative['high']:.4g}] ({alternative['source']}, see estimates); it is "
                "not an interval around this tree bound"
            )
    return {
        "metric_type": metric_type,
        "metric_unit": unit,
        "bound": bound,
        "basis": basis,
        "ci95": ci,
        "interval": interval,
        "tested_bracket": [_finite(v) for v in bracket] if bracket else None,
        "estimates": {
            "tree": _finite(entry.get("tree")),
            "tree_status": status,
            "tree_tested_bracket": entry.get("tree_tested_bracket"),
            "logistic": _finite(entry.get("logistic")),
            "logistic_status": entry.get("logistic_status"),
            "logistic_ci95": _ci_pair(entry),
            "symmetric_tree": _finite(symmetric.get("tree")),
            "symmetric_tree_status": symmetric.get("tree_status"),
            "symmetric_logistic": _finite(symmetric.get("logistic")),
            "symmetric_logistic_status": symmetric.get("logistic_status"),
            "symmetric_logistic_ci95": _ci_pair(symmetric),
            "varied_alone_in_design": alone,
            "tested_levels": tested,
        },
        "note": "; ".join(notes),
    }


def _tested_conditions(
    conditions: list[Mapping[str, Any]], games: list[str], pace: str
) -> list[dict[str, Any]]:
    wanted = {"all"} if pace == ALL_PACES else set(games)
    rows = []
    for c in conditions:
        if str(c.get("game")) not in wanted or _finite(c.get("mos")) is None:
            continue
        rows.append(
            {
                "scenario": str(c["scenario"]),
                "game": str(c["game"]),
                "n": int(c["n"]),
                "mos": _finite(c["mos"]),
                "ci95_low": _finite(c.get("ci95_low")),
                "ci95_high": _finite(c.get("ci95_high")),
                **{
                    k: float(c[k])
                    for k in ("ds_delay_ms", "us_delay_ms", "ds_loss_pct", "us_loss_pct")
                },
            }
        )
    rows.sort(key=lambda r: (r["game"], r["scenario"]))
    return rows


def _mos_rule_disagreements(
    conditions: list[Mapping[str, Any]], acceptable_from: int
) -> list[dict[str, Any]]:
    """Tested conditions where 'MOS >= target' and 'share of ratings >= target >= 50 %'
    give different answers."""
    out = []
    for c in conditions:
        mos, dist = _finite(c.get("mos")), c.get("distribution")
        if mos is None or not isinstance(dist, Mapping) or str(c.get("game")) == "all":
            continue
        total = sum(int(v) for v in dist.values())
        share = sum(int(v) for k, v in dist.items() if int(k) >= acceptable_from) / total
        if total and (mos >= acceptable_from) != (share >= 0.5):
            out.append(
                {"scenario": str(c["scenario"]), "game": str(c["game"]), "mos": mos, "share": share}
            )
    return sorted(out, key=lambda r: (r["game"], r["scenario"]))


def _min_bound(directions: Mapping[str, Any], metric_type: str) -> float | None:
    values = []
    for direction in directions.values():
        for b in direction["metric_bounds"]:
            if b["metric_type"] == metric_type:
                if b["bound"] is None:
                    return None
                values.append(float(b["bound"]))
    return min(values) if values else None


def _flow_match(flow: FlowMatch) -> dict[str, Any]:
    import ipaddress

    try:
        network = ipaddress.ip_network(str(flow["server_ip"]), strict=False)
    except (KeyError, ValueError) as exc:
        raise PolicyError(f"flow match needs a valid server_ip: {exc}") from None
    protocol = str(flow.get("protocol", "udp")).lower()
    if protocol not in ("udp", "tcp"):
        raise PolicyError(f"flow protocol must be udp or tcp, not {protocol!r}")
    port = flow.get("server_port")
    if port is not None and not (isinstance(port, int) and 1 <= port <= 65535):
        raise PolicyError(f"server_port must be an integer in 1..65535, not {port!r}")
    return {
        "ip_version": network.version,
        "server_ip": str(network),
        "protocol": protocol,
        "server_port": port,
        "placeholder": bool(flow.get("placeholder", False)),
        "note": str(flow.get("note", "")),
    }


def build_policy(
    analysis_document: Mapping[str, Any],
    *,
    provenance: Mapping[str, Any],
    stream_kbps: float = DEFAULT_STREAM_KBPS,
    headroom: float = DEFAULT_HEADROOM,
    dscp: int = 32,
    flows: Mapping[str, FlowMatch] | None = None,
    generated_at: str | None = None,
) -> dict[str, Any]:
    """The policy document of a study (see module docstring and docs/policy.md).

    ``analysis_document`` is the output of :func:`qoe_analysis.analyze`. ``provenance``
    describes the study: optional keys ``study_id``, ``study_title``, ``study_version``,
    ``source`` (e.g. the ratings file or API URL). ``flows`` maps class ids
    (``"cloud-gaming"``, ``"cloud-gaming.fast"``, …) to a traffic selector
    ``{"server_ip": "198.51.100.7/32", "protocol": "udp", "server_port": 5004}``; only
    classes with a selector are written into controller configurations. The default
    (``None``) is a *placeholder* selector on ``"cloud-gaming"`` (``192.0.2.10/32``, RFC
    5737, marked ``placeholder: true``); ``flows={}`` sets none. Raises
    :class:`PolicyError` on an unusable analysis document.
    """
    try:
        meta = analysis_document["meta"]
        thresholds = analysis_document["thresholds"]
        by_pace = thresholds["by_pace"]
        weights = analysis_document["weights"]
        tree = analysis_document["tree"]
    except (KeyError, TypeError) as exc:
        raise PolicyError(f"not an analysis document (missing {exc})") from None
    if not stream_kbps > 0 or not 0 <= headroom <= 10:
        raise PolicyError("stream_kbps must be > 0 and headroom in 0..10")
    flows = dict(DEFAULT_FLOWS if flows is None else flows)
    games_by_pace: dict[str, list[str]] = {}
    for game, pace in sorted(meta.get("games", {}).items()):
        games_by_pace.setdefault(str(pace), []).append(str(game))
    meter_kbps = math.ceil(stream_kbps * (1.0 + headroom))

    classes = []
    order = [p for p in ("fast", "medium", "slow") if p in by_pace]
    order += sorted(p for p in by_pace if p not in order and p != ALL_PACES)
    order += [ALL_PACES] if ALL_PACES in by_pace else []
    for pace in order:
        per_direction = by_pace[pace]
        class_id = APPLICATION if pace == ALL_PACES else f"{APPLICATION}.{pace}"
        directions: dict[str, Any] = {}
        for direction, (src, dst) in DIRECTIONS.items():
            bounds = [
                _metric_bound(per_direction[direction][key], per_direction["both"][key], mt, u)
                for key, mt, u in METRICS
            ]
            directions[direction] = {"from": src, "to": dst, "metric_bounds": bounds}
        delay = _min_bound(directions, "one-way-delay-maximum")
        loss = _min_bound(directions, "one-way-packet-loss")
        games = (
            sorted(g for gs in games_by_pace.values() for g in gs)
            if pace == ALL_PACES
            else games_by_pace.get(pace, [])
        )
        feasible = all(
            b["bound"] is not None for d in directions.values() for b in d["metric_bounds"]
        )
        classes.append(
            {
                "id": class_id,
                "application": APPLICATION,
                "pace": pace,
                "games": games,
                "status": "ok" if feasible else "not_acceptable_at_zero",
                "directions": directions,
                "mapping": {
                    "dscp": dscp_mapping(dscp),
                    "5qi": select_5qi(delay, loss),
                    "y1541": select_y1541(delay, loss),
                },
                "flow_match": _flow_match(flows.pop(class_id)) if class_id in flows else None,
                "tested_conditions": _tested_conditions(
                    analysis_document.get("conditions", []), games, pace
                ),
            }
        )
    if flows:
        raise PolicyError(f"flows name unknown classes: {', '.join(sorted(flows))}")

    when = generated_at or _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace(
        "+00:00", "Z"
    )
    acceptable_from = int(thresholds.get("acceptable_from", meta.get("acceptable_from", 3)))
    policy: dict[str, Any] = {
        "$schema": POLICY_SCHEMA_ID,
        "policy_version": POLICY_VERSION,
        "kind": "qoe-lab-policy",
        "target": {
            "acceptable_from": acceptable_from,
            "label": f"share of ratings >= {acceptable_from} is >= 50 %",
            "criterion": thresholds.get("criterion"),
            "note": "a bound is the largest value at which P(rating >= acceptable_from) >= 0.5 "
            "with every other network factor at 0 (the median rating reaches the target); "
            f"this is not the rule 'MOS >= {acceptable_from}' (a mean), and the two disagree "
            "on the tested conditions listed in mos_rule_disagreements",
            "mos_rule_disagreements": _mos_rule_disagreements(
                analysis_document.get("conditions", []), acceptable_from
            ),
        },
        "provenance": {
            "study": {
                "id": provenance.get("study_id"),
                "title": provenance.get("study_title"),
                "version": provenance.get("study_version"),
            },
            "source": provenance.get("source"),
            "n_raters": int(meta["n_raters"]),
            "n_ratings": int(meta["n_ratings"]),
            "n_ratings_analysed": int(meta.get("n_ratings_analysed", meta["n_ratings"])),
            "n_sessions": int(meta.get("n_sessions", 0)),
            "reliable_only": bool(meta.get("reliable_only", False)),
            "reliability_cutoff": _finite(meta.get("reliability_cutoff")),
            "seed": meta.get("seed"),
            "analysis_version": meta.get("qoe_analysis_version"),
            "tool": {"name": "qoe-analysis", "version": __version__},
            "generated_at": when,
        },
        "traffic": {
            "stream_kbps": float(stream_kbps),
            "headroom": float(headroom),
            "meter_rate_kbps": meter_kbps,
            "meter_burst_kbits": math.ceil(meter_kbps * BURST_SECONDS),
            "queue_min_rate_bps": round(stream_kbps * 1000),
            "queue_max_rate_bps": meter_kbps * 1000,
            "basis": "the study has no bandwidth factor: the rate is the cloud-gaming stream "
            f"of the reference study (3 Mbit/s video at 3/4 of 720p) unless set "
            f"(--rate-kbps), plus {headroom:.0%} headroom for audio, input and bursts; "
            f"meter burst = {BURST_SECONDS:g} s at the meter rate",
        },
        "attribute_weights": {
            "weka_info_gain_bits": weights.get("weka", {}),
            "rapidminer": weights.get("rapidminer", {}),
            "conventions": weights.get("conventions", {}),
        },
        "tree": {
            "method": tree.get("method"),
            "training_accuracy": _finite(tree.get("training_accuracy")),
            "rules": [
                {
                    "conditions": r["conditions"],
                    "prediction": r["prediction"],
                    "n": float(r["n"]),
                    "p_acceptable": _finite(r.get("p_acceptable")),
                    "text": r["text"],
                }
                for r in tree.get("rules", [])
            ],
        },
        "classes": classes,
    }
    validate_policy(policy)
    return policy
