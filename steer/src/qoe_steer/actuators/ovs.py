"""The Open vSwitch actuator: one high-priority OpenFlow rule per steered flow, by ``ovs-ofctl``.

``move`` = ``ovs-ofctl add-flow`` of ``cookie=<flow cookie>,priority=P,<match>,
actions=output:<port>``; an OpenFlow ADD with the same match and priority replaces the
rule in one step (OpenFlow 1.3 §6.4), so the flow is never without a rule. ``confirm`` reads
the rule back by its cookie (``dump-flows cookie=C/-1``) and checks its output port;
``check`` = ``ovs-ofctl show`` answers (and gives the port name → number map).
Every call has a timeout; every failure is an :class:`ActuatorError` of one line.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from qoe_steer.actuators.base import ActuatorError
from qoe_steer.actuators.flowmatch import ovs_match
from qoe_steer.model import FlowSpec, PathSpec

if TYPE_CHECKING:
    from qoe_steer.config_values import ActuatorConfig

COOKIE_TAG = 0x5157  # "QW": the top 16 bits of every cookie this service installs
_OUTPUT = re.compile(r"actions=output:(\S+?)(?:,|$|\s)")
_SHOW_PORT = re.compile(r"^\s*(\d+)\((.+?)\):", re.MULTILINE)


def flow_cookie(flow_id: str) -> int:
    """A stable 64-bit cookie per flow: the tag, then 48 bits of SHA-256 of the flow id."""
    digest = int.from_bytes(hashlib.sha256(flow_id.encode()).digest()[:6], "big")
    return (COOKIE_TAG << 48) | digest


def one_line(text: str, limit: int = 300) -> str:
    """Whitespace collapsed, cut at ``limit`` characters (for ActuatorError messages)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class OvsActuator:
    """Steers flows on one OVS bridge with ``ovs-ofctl`` (no controller needed)."""

    name = "ovs"

    def __init__(
        self,
        bridge: str,
        *,
        ofctl: str = "ovs-ofctl",
        protocols: str = "OpenFlow13",
        env: Mapping[str, str] | None = None,
        priority: int = 40000,
        deadline_s: float = 1.0,
        retries: int = 2,
        timeout_s: float = 5.0,
    ) -> None:
        self.bridge = bridge
        self.ofctl = ofctl
        self.protocols = protocols
        self.env = dict(env) if env is not None else None
        self.priority = priority
        self.deadline_s = deadline_s
        self.retries = retries
        self.timeout_s = timeout_s
        self._ports: dict[str, str] = {}

    def _run(self, *args: str) -> str:
        argv: Sequence[str] = [self.ofctl, "-O", self.protocols, *args]
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, env=self.env, timeout=self.timeout_s
            )
        except subprocess.TimeoutExpired:
            raise ActuatorError(f"ovs: {args[0]} {self.bridge} timed out") from None
        except OSError as exc:
            raise ActuatorError(f"ovs: cannot run {self.ofctl}: {exc.strerror}") from None
        if done.returncode != 0:
            raise ActuatorError(f"ovs: {args[0]} {self.bridge}: {one_line(done.stderr)}")
        return done.stdout

    def check(self) -> None:
        """``ovs-ofctl show`` answers; remembers the bridge's port names and numbers."""
        shown = self._run("show", self.bridge)
        self._ports = {name: number for number, name in _SHOW_PORT.findall(shown)}

    def port_number(self, port: str) -> str:
        """An OpenFlow port number for ``port`` (a number, or a name ``show`` listed)."""
        if port.isdigit():
            return port
        if port not in self._ports:
            self.check()
        if port not in self._ports:
            raise ActuatorError(f"ovs: bridge {self.bridge} has no port named {port!r}")
        return self._ports[port]

    def rule(self, flow: FlowSpec, path: PathSpec) -> str:
        """The flow rule ``move`` installs."""
        cookie = flow_cookie(flow.id)
        return (
            f"cookie={cookie:#x},priority={self.priority},{ovs_match(flow.match)},"
            f"actions=output:{self.port_number(path.port)}"
        )

    def move(self, flow: FlowSpec, path: PathSpec) -> None:
        self._run("add-flow", self.bridge, self.rule(flow, path))

    def current(self, flow: FlowSpec) -> str | None:
        """The output port number of the flow's rule (from ``dump-flows``), None if none."""
        dumped = self._run(
            "--no-names", "dump-flows", self.bridge, f"cookie={flow_cookie(flow.id):#x}/-1"
        )
        ports = {m.group(1) for m in _OUTPUT.finditer(dumped)}
        if len(ports) > 1:
            raise ActuatorError(f"ovs: flow {flow.id} has rules to ports {sorted(ports)}")
        return ports.pop() if ports else None

    def confirm(self, flow: FlowSpec, path: PathSpec) -> bool:
        return self.current(flow) == self.port_number(path.port)


_OPTIONS = {"bridge", "ofctl", "protocols", "priority", "timeout_s", "ovs_rundir"}


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``bridge`` (required), ``ofctl``, ``protocols``, ``priority`` 1..65535,
    ``timeout_s``, ``ovs_rundir`` (OVS_RUNDIR for ovs-ofctl, e.g. a sandbox's)."""
    from qoe_steer.config_values import ConfigError, integer, number, text

    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise ConfigError(f"actuator.{unknown[0]}: unknown key for kind 'ovs'")
    out: dict[str, Any] = {
        "bridge": text(options, "bridge", "actuator"),
        "ofctl": text(options, "ofctl", "actuator", "ovs-ofctl"),
        "protocols": text(options, "protocols", "actuator", "OpenFlow13"),
        "priority": integer(options, "priority", "actuator", 40000, 1, 65535),
        "timeout_s": number(options, "timeout_s", "actuator", 5.0, 0.1, 60.0),
    }
    if "ovs_rundir" in options:
        out["ovs_rundir"] = text(options, "ovs_rundir", "actuator")
    return out


def create(
    config: ActuatorConfig, paths: Sequence[PathSpec], flows: Sequence[FlowSpec]
) -> OvsActuator:
    """The OVS actuator of a validated ``[actuator]`` table; every flow's match is checked."""
    for flow in flows:
        try:
            ovs_match(flow.match)
        except ActuatorError as exc:
            raise ActuatorError(f"flow {flow.id}: {exc}") from None
    o = config.options
    env = {**os.environ, "OVS_RUNDIR": str(o["ovs_rundir"])} if "ovs_rundir" in o else None
    return OvsActuator(
        str(o["bridge"]), ofctl=str(o.get("ofctl", "ovs-ofctl")),
        protocols=str(o.get("protocols", "OpenFlow13")), env=env,
        priority=int(o.get("priority", 40000)), deadline_s=config.deadline_s,
        retries=config.retries, timeout_s=float(o.get("timeout_s", 5.0)),
    )  # fmt: skip
