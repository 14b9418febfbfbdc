"""The daemon's TOML configuration, validated into frozen dataclasses.

Every problem is a :class:`ConfigError` whose one-line message starts with the key it is
about (``path[1].port: '2' is used by path 'a' too``). Actuator-specific keys are checked
by the validator the actuator kind registers in :mod:`qoe_steer.actuators.registry`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qoe_steer.config_values import ActuatorConfig, ConfigError, integer, number, text
from qoe_steer.model import FlowSpec, PathSpec

__all__ = [
    "ActuatorConfig",
    "ConfigError",
    "SteerConfig",
    "integer",
    "load_config",
    "number",
    "parse_config",
    "text",
]

PERCENTILES = ("p50", "p95", "p99")
_SECTIONS = {"policy", "probe", "decision", "actuator", "status", "path", "flow"}


@dataclass(frozen=True)
class PolicyConfig:
    source: str
    application: str = "cloud-gaming"
    token: str | None = None
    timeout_s: float = 5.0


@dataclass(frozen=True)
class ProbeConfig:
    interval_s: float = 0.02
    window_s: float = 1.0
    stale_after_s: float = 1.5
    min_samples: int = 20
    delay_percentile: str = "p95"


@dataclass(frozen=True)
class DecisionConfig:
    """``revertive``/``wait_to_restore_s``: back to the flow's initial (home) path once it
    passes with the hysteresis margin for that long (ITU-T G.8031 revertive mode)."""

    dwell_s: float = 0.5
    hysteresis: float = 0.2
    evaluate_every_s: float = 0.1
    revertive: bool = True
    wait_to_restore_s: float = 0.5


@dataclass(frozen=True)
class StatusConfig:
    host: str
    port: int
    token: str


@dataclass(frozen=True)
class FlowConfig:
    spec: FlowSpec
    initial_path: str


@dataclass(frozen=True)
class SteerConfig:
    policy: PolicyConfig
    probe: ProbeConfig
    decision: DecisionConfig
    actuator: ActuatorConfig
    status: StatusConfig
    paths: tuple[PathSpec, ...]
    flows: tuple[FlowConfig, ...]
    base_dir: Path = Path(".")

    def path(self, path_id: str) -> PathSpec:
        """The path with this id (KeyError when there is none)."""
        for p in self.paths:
            if p.id == path_id:
                return p
        raise KeyError(path_id)


def _table(data: Mapping[str, Any], key: str, allowed: set[str]) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{key}: must be a table")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise ConfigError(
            f"{key}.{unknown[0]}: unknown key (allowed: {', '.join(sorted(allowed))})"
        )
    return value


def _policy(data: Mapping[str, Any]) -> PolicyConfig:
    t = _table(data, "policy", {"source", "application", "token", "timeout_s"})
    token = t.get("token")
    if token is not None:
        token = text(t, "token", "policy")
    return PolicyConfig(
        source=text(t, "source", "policy"),
        application=text(t, "application", "policy", "cloud-gaming"),
        token=token,
        timeout_s=number(t, "timeout_s", "policy", 5.0, 0.1, 120.0),
    )


def _probe(data: Mapping[str, Any]) -> ProbeConfig:
    keys = {"interval_s", "window_s", "stale_after_s", "min_samples", "delay_percentile"}
    t = _table(data, "probe", keys)
    interval = number(t, "interval_s", "probe", 0.02, 0.001, 10.0)
    window = number(t, "window_s", "probe", 1.0, 0.05, 600.0)
    if window < interval:
        raise ConfigError(f"probe.window_s: {window:g} is shorter than probe.interval_s")
    percentile = text(t, "delay_percentile", "probe", "p95")
    if percentile not in PERCENTILES:
        raise ConfigError(f"probe.delay_percentile: {percentile!r} is not one of p50, p95, p99")
    return ProbeConfig(
        interval_s=interval,
        window_s=window,
        stale_after_s=number(t, "stale_after_s", "probe", 1.5, 0.01, 600.0),
        min_samples=integer(t, "min_samples", "probe", 20, 1, 1_000_000),
        delay_percentile=percentile,
    )


def _decision(data: Mapping[str, Any]) -> DecisionConfig:
    keys = {"dwell_s", "hysteresis", "evaluate_every_s", "revertive", "wait_to_restore_s"}
    t = _table(data, "decision", keys)
    dwell = number(t, "dwell_s", "decision", 0.5, 0.0, 3600.0)
    revertive = t.get("revertive", True)
    if not isinstance(revertive, bool):
        raise ConfigError(f"decision.revertive: {revertive!r} is not true or false")
    return DecisionConfig(
        dwell_s=dwell,
        hysteresis=number(t, "hysteresis", "decision", 0.2, 0.0, 0.9),
        evaluate_every_s=number(t, "evaluate_every_s", "decision", 0.1, 0.001, 60.0),
        revertive=revertive,
        wait_to_restore_s=number(t, "wait_to_restore_s", "decision", dwell, 0.0, 86400.0),
    )


def _actuator(data: Mapping[str, Any]) -> ActuatorConfig:
    from qoe_steer.actuators.registry import KINDS

    t = data.get("actuator")
    if not isinstance(t, dict):
        raise ConfigError("actuator: missing table [actuator]")
    kind = text(t, "kind", "actuator")
    if kind not in KINDS:
        raise ConfigError(f"actuator.kind: {kind!r} is not one of {', '.join(sorted(KINDS))}")
    options = {k: v for k, v in t.items() if k not in {"kind", "deadline_s", "retries"}}
    return ActuatorConfig(
        kind=kind,
        deadline_s=number(t, "deadline_s", "actuator", 1.0, 0.01, 600.0),
        retries=integer(t, "retries", "actuator", 2, 0, 100),
        options=KINDS[kind].validate(options),
    )


def _status(data: Mapping[str, Any]) -> StatusConfig:
    t = _table(data, "status", {"listen", "token"})
    listen = text(t, "listen", "status", "127.0.0.1:8790")
    host, sep, port = listen.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ConfigError(f"status.listen: {listen!r} is not HOST:PORT")
    token = text(t, "token", "status")
    if len(token) < 16:
        raise ConfigError("status.token: must be at least 16 characters")
    return StatusConfig(host=host.strip("[]"), port=int(port), token=token)


def _paths(data: Mapping[str, Any]) -> tuple[PathSpec, ...]:
    raw = data.get("path", [])
    if not isinstance(raw, list) or len(raw) < 2:
        raise ConfigError("path: at least two [[path]] tables are needed")
    paths: list[PathSpec] = []
    for i, t in enumerate(raw):
        where = f"path[{i}]"
        _table({where: t}, where, {"id", "probe_host", "probe_port", "port"})
        port = t.get("port")
        if isinstance(port, bool) or not isinstance(port, int | str) or str(port).strip() == "":
            raise ConfigError(f"{where}.port: missing or not a port number/name")
        spec = PathSpec(
            id=text(t, "id", where),
            probe_host=text(t, "probe_host", where),
            probe_port=integer(t, "probe_port", where, None, 1, 65535),
            port=str(port),
        )
        for other in paths:
            if other.id == spec.id:
                raise ConfigError(f"{where}.id: {spec.id!r} is used by path[{paths.index(other)}]")
            if other.port == spec.port:
                raise ConfigError(f"{where}.port: {spec.port!r} is used by path {other.id!r} too")
        paths.append(spec)
    return tuple(paths)


def _flows(data: Mapping[str, Any], paths: tuple[PathSpec, ...]) -> tuple[FlowConfig, ...]:
    raw = data.get("flow", [])
    if not isinstance(raw, list) or not raw:
        raise ConfigError("flow: at least one [[flow]] table is needed")
    ids = {p.id for p in paths}
    flows: list[FlowConfig] = []
    for i, t in enumerate(raw):
        where = f"flow[{i}]"
        _table({where: t}, where, {"id", "class", "match", "initial_path"})
        match = t.get("match")
        if not isinstance(match, dict) or not match:
            raise ConfigError(f"{where}.match: missing or empty table (e.g. {{udp_dst = 50000}})")
        initial = text(t, "initial_path", where)
        if initial not in ids:
            raise ConfigError(f"{where}.initial_path: {initial!r} is not a path id")
        spec = FlowSpec(id=text(t, "id", where), policy_class=text(t, "class", where), match=match)
        if any(f.spec.id == spec.id for f in flows):
            raise ConfigError(f"{where}.id: {spec.id!r} is used by another flow")
        flows.append(FlowConfig(spec=spec, initial_path=initial))
    return tuple(flows)


def parse_config(data: Mapping[str, Any], base_dir: Path = Path(".")) -> SteerConfig:
    """Validate a parsed TOML document (raises :class:`ConfigError`)."""
    unknown = sorted(set(data) - _SECTIONS)
    if unknown:
        raise ConfigError(
            f"{unknown[0]}: unknown section (allowed: {', '.join(sorted(_SECTIONS))})"
        )
    if "policy" not in data:
        raise ConfigError("policy: missing table [policy]")
    if "status" not in data:
        raise ConfigError("status: missing table [status]")
    paths = _paths(data)
    return SteerConfig(
        policy=_policy(data),
        probe=_probe(data),
        decision=_decision(data),
        actuator=_actuator(data),
        status=_status(data),
        paths=paths,
        flows=_flows(data, paths),
        base_dir=base_dir,
    )


def load_config(path: Path) -> SteerConfig:
    """Read and validate a TOML configuration file (raises :class:`ConfigError`)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    return parse_config(data, base_dir=path.resolve().parent)
