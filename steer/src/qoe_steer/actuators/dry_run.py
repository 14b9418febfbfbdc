"""The dry-run actuator: records the moves it is asked for and confirms them after a delay.

No controller is touched. ``confirm_delay_s`` (default 0.05 s) models a controller's time
to effect; ``fail_confirm = true`` never confirms (tests of retry and alarm);
``fail_check = true`` makes :meth:`check` fail (a controller that is down). Both flags can
also be flipped on a running instance.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qoe_steer.actuators.base import ActuatorError
from qoe_steer.model import FlowSpec, PathSpec

if TYPE_CHECKING:
    from qoe_steer.config_values import ActuatorConfig

_OPTIONS = {"confirm_delay_s", "fail_confirm", "fail_check"}


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """``confirm_delay_s`` ≥ 0 (seconds), ``fail_confirm``/``fail_check`` booleans."""
    from qoe_steer.config_values import ConfigError, number

    unknown = sorted(set(options) - _OPTIONS)
    if unknown:
        raise ConfigError(f"actuator.{unknown[0]}: unknown key for kind 'dry-run'")
    out: dict[str, Any] = {
        "confirm_delay_s": number(options, "confirm_delay_s", "actuator", 0.05, 0.0, 600.0)
    }
    for flag in ("fail_confirm", "fail_check"):
        value = options.get(flag, False)
        if not isinstance(value, bool):
            raise ConfigError(f"actuator.{flag}: {value!r} is not true or false")
        out[flag] = value
    return out


@dataclass(frozen=True)
class Move:
    """One recorded request: when (monotonic), which flow, to which port."""

    at: float
    flow: str
    port: str


class DryRunActuator:
    """Records moves; a move takes effect ``confirm_delay_s`` after it was asked for."""

    name = "dry-run"

    def __init__(
        self,
        deadline_s: float = 1.0,
        retries: int = 2,
        confirm_delay_s: float = 0.05,
        fail_confirm: bool = False,
        fail_check: bool = False,
    ) -> None:
        self.deadline_s = deadline_s
        self.retries = retries
        self.confirm_delay_s = confirm_delay_s
        self.fail_confirm = fail_confirm
        self.fail_check = fail_check
        self.moves: list[Move] = []
        self._lock = threading.Lock()

    def check(self) -> None:
        if self.fail_check:
            raise ActuatorError("dry-run controller is down (fail_check)")

    def move(self, flow: FlowSpec, path: PathSpec) -> None:
        if self.fail_check:
            raise ActuatorError("dry-run controller is down (fail_check)")
        with self._lock:
            self.moves.append(Move(time.monotonic(), flow.id, path.port))

    def _effective(self, flow: str) -> str | None:
        now = time.monotonic()
        with self._lock:
            for m in reversed(self.moves):
                if m.flow == flow and now - m.at >= self.confirm_delay_s:
                    return m.port
        return None

    def confirm(self, flow: FlowSpec, path: PathSpec) -> bool:
        return not self.fail_confirm and self._effective(flow.id) == path.port

    def current(self, flow: FlowSpec) -> str | None:
        return None if self.fail_confirm else self._effective(flow.id)


def create(
    config: ActuatorConfig, paths: Sequence[PathSpec], flows: Sequence[FlowSpec]
) -> DryRunActuator:
    """The dry-run actuator of a validated ``[actuator]`` table."""
    return DryRunActuator(
        deadline_s=config.deadline_s,
        retries=config.retries,
        confirm_delay_s=float(config.options.get("confirm_delay_s", 0.05)),
        fail_confirm=bool(config.options.get("fail_confirm", False)),
        fail_check=bool(config.options.get("fail_check", False)),
    )
