"""The steering service of the user-mode lab: its config and a launcher with the lab's actuator.

``python -m qoe_steer.testing.steer_lab run --config F [--events E]`` is ``qoe-steer`` with
one more actuator kind, ``uml-route`` (:class:`~qoe_steer.testing.route_actuator.RouteActuator`),
registered before the CLI runs: the daemon, the probes, the window and the decider are the
service's own, only the forwarding change is the lab's.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from qoe_steer.actuators.base import Actuator
from qoe_steer.actuators.registry import KINDS, ActuatorKind
from qoe_steer.model import FlowSpec, PathSpec
from qoe_steer.testing import lab
from qoe_steer.testing.route_actuator import RouteActuator

if TYPE_CHECKING:
    from qoe_steer.config import ActuatorConfig

KIND = "uml-route"
REPO = Path(__file__).resolve().parents[4]
POLICY = REPO / "fixtures" / "policies" / "dissertation_shape.policy.json"
POLICY_CLASS = "cloud-gaming.fast"
STATUS_PORT = 8790
STATUS_TOKEN = "level-b-status-token-0123456789"
REFLECTOR_PORT = 7000


def _validate(options: Mapping[str, Any]) -> dict[str, Any]:
    from qoe_steer.config import ConfigError

    if options:
        raise ConfigError(f"actuator.{sorted(options)[0]}: unknown key for kind '{KIND}'")
    return {}


def _create(
    config: ActuatorConfig, paths: Sequence[PathSpec], flows: Sequence[FlowSpec]
) -> Actuator:
    return RouteActuator(deadline_s=config.deadline_s, retries=config.retries)


def register() -> None:
    """Add the kind ``uml-route`` to the service's actuator registry."""
    KINDS[KIND] = ActuatorKind(_validate, _create)


def config_text(
    *,
    policy: Path = POLICY,
    interval_s: float = 0.005,
    window_s: float = 1.0,
    dwell_s: float = 0.5,
    hysteresis: float = 0.2,
    evaluate_every_s: float = 0.1,
) -> str:
    """The lab's TOML config: paths a and b, the game flow on a, the status on loopback.

    ``min_samples`` is 25 % of the probes a window holds (window_s / interval_s): a window
    with fewer clean replies is stale and never moves the flow. Under host load the
    user-mode kernel stalls the prober; the window excludes the probes sent across a stall
    (:func:`qoe_steer.window.summarize`), so the replies that remain are a measurement of
    the network. (60 % made a 78 ms path stale for 2 s in a loaded run: a stall excludes a
    round trip's worth of probes.) The price: a path losing over 75 % reads stale.
    """
    lines = [
        "[policy]",
        f'source = "{policy}"',
        "[probe]",
        f"interval_s = {interval_s}",
        f"window_s = {window_s}",
        "stale_after_s = 1.5",
        f"min_samples = {max(20, int(0.25 * window_s / interval_s))}",
        'delay_percentile = "p95"',
        "[decision]",
        f"dwell_s = {dwell_s}",
        f"hysteresis = {hysteresis}",
        f"evaluate_every_s = {evaluate_every_s}",
        "[actuator]",
        f'kind = "{KIND}"',
        "deadline_s = 1.0",
        "retries = 2",
        "[status]",
        f'listen = "127.0.0.1:{STATUS_PORT}"',
        f'token = "{STATUS_TOKEN}"',
    ]
    for p in lab.PATHS:
        lines += [
            "[[path]]",
            f'id = "{p.id}"',
            f'probe_host = "{p.client_ip}"',
            f"probe_port = {REFLECTOR_PORT}",
            f'port = "{p.id}"',
        ]
    lines += [
        "[[flow]]",
        'id = "game"',
        f'class = "{POLICY_CLASS}"',
        f'match = {{ proto = "udp", dst_ip = "{lab.GAME_CLIENT_IP}", dst_port = 5001 }}',
        'initial_path = "a"',
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    from qoe_steer import cli

    register()
    result: int = cli.main(sys.argv[1:] if argv is None else argv)
    return result


if __name__ == "__main__":
    sys.exit(main())
