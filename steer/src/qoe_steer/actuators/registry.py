"""Actuator kinds: each maps to a validator of its ``[actuator]`` keys and a factory.

``validate(options)`` gets the ``[actuator]`` table without ``kind``/``deadline_s``/
``retries`` and returns the checked options (raising
:class:`~qoe_steer.config.ConfigError` naming ``actuator.<key>``); ``create(config,
paths, flows)`` builds the :class:`~qoe_steer.actuators.base.Actuator`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from qoe_steer.actuators import dry_run, faucet, osken_client, ovs
from qoe_steer.actuators.base import Actuator
from qoe_steer.model import FlowSpec, PathSpec

if TYPE_CHECKING:
    from qoe_steer.config_values import ActuatorConfig

Validator = Callable[[Mapping[str, Any]], dict[str, Any]]
Factory = Callable[["ActuatorConfig", Sequence[PathSpec], Sequence[FlowSpec]], Actuator]


@dataclass(frozen=True)
class ActuatorKind:
    validate: Validator
    create: Factory


KINDS: dict[str, ActuatorKind] = {
    "dry-run": ActuatorKind(dry_run.validate_options, dry_run.create),
}

# --- controller bindings (S2)
KINDS["ovs"] = ActuatorKind(ovs.validate_options, ovs.create)
KINDS["faucet"] = ActuatorKind(faucet.validate_options, faucet.create)
KINDS["osken"] = ActuatorKind(osken_client.validate_options, osken_client.create)
# --- end of controller bindings


def create_actuator(
    config: ActuatorConfig, paths: Sequence[PathSpec], flows: Sequence[FlowSpec]
) -> Actuator:
    """The actuator of ``config.kind`` (the kind was checked when the config was loaded)."""
    return KINDS[config.kind].create(config, paths, flows)
