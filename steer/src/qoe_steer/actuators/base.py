"""The actuator interface every controller binding implements.

``move`` asks the controller to send the flow's packets to the path's port and returns
without waiting; ``confirm`` reads back whether the controller now does so (the flow
table, Faucet's config hash, the os-ken app's answer). The daemon calls ``confirm`` until
it is true or the actuator's ``deadline_s`` passes, then retries ``move`` up to
``retries`` times and raises an alarm (the flow keeps whatever the controller has).
"""

from __future__ import annotations

from typing import Protocol

from qoe_steer.model import FlowSpec, PathSpec


class ActuatorError(RuntimeError):
    """The controller refused or could not be reached; the message is one line."""


class Actuator(Protocol):
    name: str
    deadline_s: float
    retries: int

    def check(self) -> None:
        """Raise :class:`ActuatorError` when the controller is unusable (at start)."""

    def move(self, flow: FlowSpec, path: PathSpec) -> None:
        """Ask the controller to forward ``flow`` over ``path``; raise :class:`ActuatorError`."""

    def confirm(self, flow: FlowSpec, path: PathSpec) -> bool:
        """True once the controller forwards ``flow`` over ``path`` (read back)."""

    def current(self, flow: FlowSpec) -> str | None:
        """The port the controller forwards ``flow`` to now, if it can tell."""
