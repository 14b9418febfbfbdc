"""The os-ken actuator: talks to :mod:`qoe_steer.actuators.osken_app` over its Unix socket.

``move`` = ``POST /steer`` (the app sends the flow mod and a barrier, answers with a change
number); ``confirm`` = ``GET /flows`` shows that change for the flow with its barrier reply
received and the wanted port; ``check`` = the app answers and a switch is connected.
"""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from qoe_steer.actuators.base import ActuatorError
from qoe_steer.actuators.flowmatch import oxm_match
from qoe_steer.actuators.ovs import flow_cookie, one_line
from qoe_steer.model import FlowSpec, PathSpec

if TYPE_CHECKING:
    from qoe_steer.config_values import ActuatorConfig


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.socket_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        sock.connect(self.socket_path)
        self.sock = sock


class OskenActuator:
    """Steers flows through the os-ken steering app (see the module docstring)."""

    name = "osken"

    def __init__(
        self,
        socket_path: str,
        *,
        priority: int = 40000,
        deadline_s: float = 1.0,
        retries: int = 2,
        timeout_s: float = 2.0,
    ) -> None:
        self.socket_path = socket_path
        self.priority = priority
        self.deadline_s = deadline_s
        self.retries = retries
        self.timeout_s = timeout_s
        self._changes: dict[str, int] = {}

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        connection = _UnixConnection(self.socket_path, self.timeout_s)
        try:
            data = json.dumps(body).encode() if body is not None else None
            headers = {"Content-Type": "application/json"} if data is not None else {}
            connection.request(method, path, body=data, headers=headers)
            answer = connection.getresponse()
            raw = answer.read()
        except (OSError, http.client.HTTPException) as exc:
            raise ActuatorError(f"osken: {self.socket_path}: {exc}") from None
        finally:
            connection.close()
        try:
            payload = json.loads(raw)
        except ValueError:
            raise ActuatorError(f"osken: {method} {path}: not JSON ({answer.status})") from None
        if answer.status >= 400:
            error = payload.get("error") if isinstance(payload, dict) else payload
            raise ActuatorError(f"osken: {method} {path}: {answer.status} {one_line(str(error))}")
        return payload

    def check(self) -> None:
        if self._call("GET", "/flows").get("datapath") is None:
            raise ActuatorError("osken: the app answers but no switch is connected")

    def move(self, flow: FlowSpec, path: PathSpec) -> None:
        if not path.port.isdigit():
            raise ActuatorError(f"osken: port {path.port!r} must be an OpenFlow port number")
        answer = self._call("POST", "/steer", {
            "flow": flow.id, "match": oxm_match(flow.match), "port": int(path.port),
            "cookie": flow_cookie(flow.id), "priority": self.priority,
        })  # fmt: skip
        self._changes[flow.id] = int(answer["change"])

    def _entry(self, flow: FlowSpec) -> dict[str, Any] | None:
        entry = self._call("GET", "/flows").get("flows", {}).get(flow.id)
        return entry if isinstance(entry, dict) else None

    def confirm(self, flow: FlowSpec, path: PathSpec) -> bool:
        entry = self._entry(flow)
        if entry is None or entry.get("change") != self._changes.get(flow.id):
            return False
        if entry.get("error"):
            raise ActuatorError(f"osken: the switch refused flow {flow.id}: {entry['error']}")
        return bool(entry.get("confirmed")) and str(entry.get("port")) == path.port

    def current(self, flow: FlowSpec) -> str | None:
        """The port of the flow's last change the switch confirmed (None: none confirmed)."""
        entry = self._entry(flow)
        if entry is None or not entry.get("confirmed"):
            return None
        return str(entry["port"])


_OPTIONS = {"socket", "priority", "timeout_s"}


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``socket`` (the app's Unix socket, required), ``priority`` 1..65535, ``timeout_s``."""
    from qoe_steer.config_values import ConfigError, integer, number, text

    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise ConfigError(f"actuator.{unknown[0]}: unknown key for kind 'osken'")
    return {
        "socket": text(options, "socket", "actuator"),
        "priority": integer(options, "priority", "actuator", 40000, 1, 65535),
        "timeout_s": number(options, "timeout_s", "actuator", 2.0, 0.1, 60.0),
    }


def create(
    config: ActuatorConfig, paths: Sequence[PathSpec], flows: Sequence[FlowSpec]
) -> OskenActuator:
    """The os-ken actuator; refuses a flow match os-ken cannot take or a non-numeric port."""
    for flow in flows:
        try:
            oxm_match(flow.match)
        except ActuatorError as exc:
            raise ActuatorError(f"flow {flow.id}: {exc}") from None
    for path in paths:
        if not path.port.isdigit():
            raise ActuatorError(f"path {path.id}: port {path.port!r} must be an OpenFlow number")
    o = config.options
    return OskenActuator(
        str(o["socket"]), priority=int(o.get("priority", 40000)),
        deadline_s=config.deadline_s, retries=config.retries,
        timeout_s=float(o.get("timeout_s", 2.0)),
    )  # fmt: skip
