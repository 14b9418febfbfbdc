"""The QoE policy document: a study's thresholds as per-class, per-direction SLO bounds.

:func:`build_policy` turns the analysis document of :func:`qoe_analysis.analyze` into the
versioned policy JSON described by ``schemas/qoe-policy.schema.json`` and
``docs/policy.md``. It is pure (no I/O); ``generated_at`` may be passed for reproducible
output.

Policy 2.0: each class's bounds, per direction and metric, are the corner of the joint
acceptability model (:mod:`qoe_analysis.policy.joint`: every bound reached at once keeps
the lower 95 % bound of the predicted P(acceptable) at the target); the marginal
estimates of 1.0 (:func:`qoe_analysis.policy.bounds.metric_bound`) are kept under each
bound's ``estimates.marginal``. A policy learnt mostly from dry-run ratings is refused
unless ``allow_dry_run``.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping
from typing import Any, Final

from qoe_analysis import __version__
from qoe_analysis.policy.bounds import finite
from qoe_analysis.policy.joint import check_dry_run, class_joint, direction_bounds, dry_run_share
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

POLICY_VERSION: Final = "2.0"
POLICY_SCHEMA_ID: Final = "urn:qoe-lab:schema:qoe-policy:2.0"
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
    # (threshold key, metric type, unit); a metric is bounded only where the study varied
    # its factor (the analysis gives no threshold otherwise). Jitter is the one-way delay
    # variation of RFC 9543 / the IETF slice model.
    ("max_delay_ms", "one-way-delay-maximum", "milliseconds"),
    ("max_loss_pct", "one-way-packet-loss", "percent"),
    ("max_jitter_ms", "one-way-delay-variation-maximum", "milliseconds"),
)
#: The condition columns of the reference design, used when the analysis document
#: predates ``meta.factor_info``.
NETWORK_COLUMNS: Final = ("ds_delay_ms", "us_delay_ms", "ds_loss_pct", "us_loss_pct")

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


def _factor_value(value: Any) -> float | str | None:
    if isinstance(value, str) or value is None:
        return value
    return float(value)


def _tested_conditions(
    conditions: list[Mapping[str, Any]], games: list[str], pace: str, columns: list[str]
) -> list[dict[str, Any]]:
    """The tested conditions of a class with every factor column of the study."""
    wanted = {"all"} if pace == ALL_PACES else set(games)
    rows = []
    for c in conditions:
        if str(c.get("game")) not in wanted or finite(c.get("mos")) is None:
            continue
        rows.append(
            {
                "scenario": str(c["scenario"]),
                "game": str(c["game"]),
                "n": int(c["n"]),
                "mos": finite(c["mos"]),
                "ci95_low": finite(c.get("ci95_low")),
                "ci95_high": finite(c.get("ci95_high")),
                **{k: _factor_value(c.get(k)) for k in columns},
            }
        )
    rows.sort(key=lambda r: (r["game"], r["scenario"]))
    return rows


def _mos_rule_disagreements(
    conditions: list[Mapping[str, Any]], acceptable_from: float
) -> list[dict[str, Any]]:
    """Tested conditions where 'MOS >= target' and 'share of ratings >= target >= 50 %'
    give different answers."""
    out = []
    for c in conditions:
        mos, dist = finite(c.get("mos")), c.get("distribution")
        if mos is None or not isinstance(dist, Mapping) or str(c.get("game")) == "all":
            continue
        total = sum(int(v) for v in dist.values())
        share = sum(int(v) for k, v in dist.items() if float(k) >= acceptable_from) / total
        if total and (mos >= acceptable_from) != (share >= 0.5):
            out.append(
                {"scenario": str(c["scenario"]), "game": str(c["game"]), "mos": mos, "share": share}
            )
    return sorted(out, key=lambda r: (r["game"], r["scenario"]))


_ACR5_SCALE: dict[str, Any] = {"kind": "acr5", "min": 1, "max": 5}


def _item_scale(analysis_document: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The scale (kind, min, max) of rating item ``key``; ACR-5 for a document without items."""
    for item in analysis_document.get("items") or []:
        if item.get("key") == key:
            scale = item["scale"]
            return {"kind": scale["kind"], "min": scale["min"], "max": scale["max"]}
    return dict(_ACR5_SCALE)


def _target(
    analysis_document: Mapping[str, Any], thresholds: Mapping[str, Any], meta: Mapping[str, Any]
) -> dict[str, Any]:
    """What "acceptable" means: the acceptance item, its scale and cut (ITU-T P.809 items).

    The tested conditions' MOS is the primary item's (``mos_item``). The comparison with the
    rule "MOS >= cut" is only meaningful when the cut is on that same item.
    """
    cut = thresholds.get("acceptable_from", meta.get("acceptable_from", 3))
    cut = int(cut) if float(cut).is_integer() else float(cut)
    primary = str(meta.get("primary_item", "overall"))
    item = str((meta.get("acceptance") or {}).get("item", primary))
    scale = _item_scale(analysis_document, item)
    binary = scale["kind"] == "binary"
    joint = "the bounds of a class are the corner of the joint model: with every bound "
    joint += "reached at once, the lower 95 % bound of the predicted "
    if binary:
        label = f"share of '{item} = yes' is >= 50 %"
        note = joint + f"P({item} = yes) is >= 0.5"
    else:
        named = "" if item == "overall" and scale["kind"] == "acr5" else f"{item} "
        label = f"share of {named}ratings >= {cut} is >= 50 %"
        note = joint + "P(rating >= acceptable_from) is >= 0.5 (the median rating reaches "
        note += "the target)"
    same_item = item == primary and not binary
    if same_item:
        note += (
            f"; this is not the rule 'MOS >= {cut}' (a mean), and the two disagree "
            "on the tested conditions listed in mos_rule_disagreements"
        )
    return {
        "acceptable_from": cut,
        "item": item,
        "scale": scale,
        "mos_item": primary,
        "mos_scale": _item_scale(analysis_document, primary),
        "label": label,
        "criterion": thresholds.get("criterion"),
        "note": note,
        "mos_rule_disagreements": _mos_rule_disagreements(
            analysis_document.get("conditions", []), cut
        )
        if same_item
        else [],
    }


def _bounded_factors(
    meta: Mapping[str, Any], per_direction: Mapping[str, Any], joint: Mapping[str, Any]
) -> set[str]:
    """The factor columns a bound can refer to: the joint model's, the document's varying
    factors, and (a document without them) those the marginal thresholds name."""
    factors = set(joint.get("tested_max") or {}) | set(meta.get("network_factors") or [])
    for direction, prefix in (("downstream", "ds"), ("upstream", "us")):
        factors |= {f"{prefix}_{key[4:]}" for key in per_direction.get(direction) or {}}
    return factors


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
    allow_dry_run: bool = False,
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
    :class:`PolicyError` on an unusable analysis document, and when more than half of the
    ratings were taken on a dry-run agent unless ``allow_dry_run``.
    """
    try:
        meta = analysis_document["meta"]
        thresholds = analysis_document["thresholds"]
        by_pace = thresholds["by_pace"]
        weights = analysis_document["weights"]
        tree = analysis_document["tree"]
    except (KeyError, TypeError) as exc:
        raise PolicyError(f"not an analysis document (missing {exc})") from None
    if not by_pace:
        why = (analysis_document.get("notes") or {}).get("thresholds", "no KPI threshold")
        raise PolicyError(f"no policy yet: the analysis has no thresholds to bound ({why})")
    check_dry_run(meta, allow_dry_run)
    if not stream_kbps > 0 or not 0 <= headroom <= 10:
        raise PolicyError("stream_kbps must be > 0 and headroom in 0..10")
    flows = dict(DEFAULT_FLOWS if flows is None else flows)
    games_by_pace: dict[str, list[str]] = {}
    for game, pace in sorted(meta.get("games", {}).items()):
        games_by_pace.setdefault(str(pace), []).append(str(game))
    meter_kbps = math.ceil(stream_kbps * (1.0 + headroom))
    columns = list(meta.get("factor_info") or NETWORK_COLUMNS)

    classes = []
    order = [p for p in ("fast", "medium", "slow") if p in by_pace]
    order += sorted(p for p in by_pace if p not in order and p != ALL_PACES)
    order += [ALL_PACES] if ALL_PACES in by_pace else []
    for pace in order:
        per_direction = by_pace[pace]
        class_id = APPLICATION if pace == ALL_PACES else f"{APPLICATION}.{pace}"
        joint = class_joint(analysis_document, pace)
        factors = _bounded_factors(meta, per_direction, joint)
        directions: dict[str, Any] = {}
        for direction, (src, dst) in DIRECTIONS.items():
            bounds = direction_bounds(joint, per_direction, direction, factors, METRICS)
            directions[direction] = {"from": src, "to": dst, "metric_bounds": bounds}
        delay = _min_bound(directions, "one-way-delay-maximum")
        loss = _min_bound(directions, "one-way-packet-loss")
        games = (
            sorted(g for gs in games_by_pace.values() for g in gs)
            if pace == ALL_PACES
            else games_by_pace.get(pace, [])
        )
        classes.append(
            {
                "id": class_id,
                "application": APPLICATION,
                "pace": pace,
                "games": games,
                "status": joint["status"],
                "joint": joint,
                "directions": directions,
                "mapping": {
                    "dscp": dscp_mapping(dscp),
                    "5qi": select_5qi(delay, loss),
                    "y1541": select_y1541(delay, loss),
                },
                "flow_match": _flow_match(flows.pop(class_id)) if class_id in flows else None,
                "tested_conditions": _tested_conditions(
                    analysis_document.get("conditions", []), games, pace, columns
                ),
            }
        )
    if flows:
        raise PolicyError(f"flows name unknown classes: {', '.join(sorted(flows))}")

    when = generated_at or _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat().replace(
        "+00:00", "Z"
    )
    policy: dict[str, Any] = {
        "$schema": POLICY_SCHEMA_ID,
        "policy_version": POLICY_VERSION,
        "kind": "qoe-lab-policy",
        "target": _target(analysis_document, thresholds, meta),
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
            # how many ratings were taken on a dry-run agent (no impairment reached a kernel)
            "n_ratings_dry_run": meta.get("n_ratings_dry_run"),
            "dry_run_share": dry_run_share(meta),
            "agent_backends": meta.get("agent_backends"),
            "reliable_only": bool(meta.get("reliable_only", False)),
            "reliability_cutoff": finite(meta.get("reliability_cutoff")),
            "seed": meta.get("seed"),
            "analysis_version": meta.get("qoe_analysis_version"),
            "tool": {"name": "qoe-analysis", "version": __version__},
            "generated_at": when,
            # the analysis document's warnings (what its numbers cannot support)
            "warnings": [
                {"code": str(w["code"]), "message": str(w["message"]), "where": str(w["where"])}
                for w in analysis_document.get("warnings") or []
            ],
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
            "training_accuracy": finite(tree.get("training_accuracy")),
            "rules": [
                {
                    "conditions": r["conditions"],
                    "prediction": r["prediction"],
                    "n": float(r["n"]),
                    "p_acceptable": finite(r.get("p_acceptable")),
                    "text": r["text"],
                }
                for r in tree.get("rules", [])
            ],
        },
        "classes": classes,
    }
    validate_policy(policy)
    return policy
