"""A test-only actuator for the user-mode lab: moves the game flow by rewriting host routes.

``move`` replaces the host route of the game client's address in the server namespace and
of the game server's address in the client namespace, both via the chosen path's router
(rtnetlink, :mod:`~qoe_steer.testing.rtroute`), so both directions of the flow change
path; ``confirm`` reads the kernel's route lookup back in both namespaces. A real
forwarding change without a switch: Level B is about the measurement and the decision,
Level A (Open vSwitch, Faucet, os-ken) about the controllers.
"""

from __future__ import annotations

from qoe_steer.actuators.base import ActuatorError
from qoe_steer.model import FlowSpec, PathSpec
from qoe_steer.testing import lab
from qoe_steer.testing.rtroute import RouteSocket


class RouteActuator:
    """Implements :class:`qoe_steer.actuators.base.Actuator`; ``PathSpec.port`` is the lab
    path id ("a" or "b")."""

    name = "uml-route"

    def __init__(self, deadline_s: float = 1.0, retries: int = 2) -> None:
        self.deadline_s = deadline_s
        self.retries = retries
        self.moves: list[tuple[str, str]] = []  # (flow, port) in the order asked
        self._sockets: dict[str, RouteSocket] = {}

    def _socket(self, ns: str) -> RouteSocket:
        if ns not in self._sockets:
            try:
                self._sockets[ns] = RouteSocket(ns)
            except OSError as exc:
                raise ActuatorError(f"namespace {ns}: {exc}") from exc
        return self._sockets[ns]

    def check(self) -> None:
        for ns, dst in ((lab.SERVER, lab.GAME_CLIENT_IP), (lab.CLIENT, lab.GAME_SERVER_IP)):
            try:
                self._socket(ns).gateway(dst)
            except OSError as exc:
                raise ActuatorError(f"route lookup in {ns}: {exc}") from exc

    def move(self, flow: FlowSpec, path: PathSpec) -> None:
        try:
            p = lab.path(path.port)
        except KeyError as exc:
            raise ActuatorError(str(exc)) from exc
        self.moves.append((flow.id, path.port))
        for ns, dst, via in (
            (lab.SERVER, lab.GAME_CLIENT_IP, p.router_server_ip),
            (lab.CLIENT, lab.GAME_SERVER_IP, p.router_client_ip),
        ):
            try:
                self._socket(ns).replace(dst, via)
            except OSError as exc:
                raise ActuatorError(f"route to {dst} via {via} in {ns}: {exc}") from exc

    def confirm(self, flow: FlowSpec, path: PathSpec) -> bool:
        return self.current(flow) == path.port

    def current(self, flow: FlowSpec) -> str | None:
        """The lab path both namespaces route the flow over, or None when they disagree."""
        try:
            down = self._socket(lab.SERVER).gateway(lab.GAME_CLIENT_IP)
            up = self._socket(lab.CLIENT).gateway(lab.GAME_SERVER_IP)
        except OSError as exc:
            raise ActuatorError(f"route lookup: {exc}") from exc
        for p in lab.PATHS:
            if down == p.router_server_ip and up == p.router_client_ip:
                return p.id
        return None
