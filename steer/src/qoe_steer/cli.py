"""``qoe-steer``: run the steering daemon, check a config, reflect probes, decide once.

    qoe-steer --version
    qoe-steer run --config F [--events FILE] [--measurements-from FILE|-]
    qoe-steer check-config F
    qoe-steer reflect --listen HOST:PORT
    qoe-steer decide --policy P --measurements M [--state S] [--hysteresis H]

Bad input (config, policy, measurements, state) exits 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qoe_analysis.policy import PolicyError

from qoe_steer import __version__
from qoe_steer.actuators.base import ActuatorError
from qoe_steer.config import ConfigError, SteerConfig, load_config
from qoe_steer.policy_source import (
    LoadedPolicy,
    PolicySourceError,
    check_flow_classes,
    load_policy,
)


class InputError(Exception):
    """Bad input: printed as one line, exit 2."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="qoe-steer", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"qoe-steer {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the steering daemon")
    run.add_argument("--config", type=Path, required=True)
    run.add_argument("--events", type=Path, help="append every event as a JSON line")
    run.add_argument("--measurements-from", help="JSON lines file or - (stdin) instead of probes")
    check = sub.add_parser("check-config", help="validate a configuration and its policy")
    check.add_argument("config", type=Path)
    reflect = sub.add_parser("reflect", help="reflect probes (run on the client side)")
    reflect.add_argument("--listen", required=True, help="HOST:PORT")
    decide = sub.add_parser("decide", help="one evaluation with hysteresis state, as JSON")
    decide.add_argument("--policy", required=True, help="policy file or URL")
    decide.add_argument("--measurements", type=Path, required=True)
    decide.add_argument("--state", type=Path, help="state JSON from a previous decide")
    decide.add_argument("--hysteresis", type=float, default=0.2)
    decide.add_argument("--application", default="cloud-gaming")
    return parser


def load_checked(path: Path) -> tuple[SteerConfig, LoadedPolicy]:
    """The config and its policy, with every flow's class checked against the policy."""
    config = load_config(path)
    policy = load_policy(
        config.policy.source,
        application=config.policy.application,
        token=config.policy.token,
        timeout_s=config.policy.timeout_s,
        base_dir=config.base_dir,
    )
    check_flow_classes(
        policy, [(f"flow[{i}].class", f.spec.policy_class) for i, f in enumerate(config.flows)]
    )
    return config, policy


def _check_config(args: argparse.Namespace) -> int:
    config, policy = load_checked(args.config)
    print(
        f"{args.config}: ok ({len(config.paths)} paths, {len(config.flows)} flows, "
        f"actuator {config.actuator.kind}, policy {policy.source} of {policy.generated_at})"
    )
    return 0


def _run(args: argparse.Namespace) -> int:
    from qoe_steer.actuators.registry import create_actuator
    from qoe_steer.daemon import Daemon
    from qoe_steer.events import EventLog
    from qoe_steer.sources import InjectedSource, MeasurementSource, ProbeSource, parse_line
    from qoe_steer.status_server import StatusServer

    config, policy = load_checked(args.config)
    source: MeasurementSource
    if args.measurements_from is None:
        source = ProbeSource(config.paths, config.probe)
    else:
        if args.measurements_from == "-":
            lines: Any = sys.stdin
        else:
            try:
                lines = Path(args.measurements_from).read_text(encoding="utf-8").splitlines()
            except OSError as exc:
                raise InputError(f"{args.measurements_from}: cannot read: {exc.strerror}") from exc
            for number, line in enumerate(lines, 1):
                if line.strip():
                    try:
                        parse_line(line, f"{args.measurements_from}: line {number}")
                    except ValueError as exc:
                        raise InputError(str(exc)) from exc
        source = InjectedSource(
            config.paths,
            lines,
            window_s=config.probe.window_s,
            stale_after_s=config.probe.stale_after_s,
        )
    actuator = create_actuator(config.actuator, config.paths, [f.spec for f in config.flows])
    try:
        server = StatusServer(
            config.status.host, config.status.port, config.status.token, lambda: daemon.snapshot()
        )
    except OSError as exc:
        raise InputError(
            f"status.listen: cannot listen on {config.status.host}:{config.status.port}: "
            f"{exc.strerror}"
        ) from exc
    daemon = Daemon(config, policy, actuator, source, EventLog(args.events))
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    daemon.start()
    server.start()
    print(
        f"qoe-steer {__version__}: status on http://{server.address[0]}:{server.address[1]}/v1/status",
        file=sys.stderr,
    )
    while not stop.wait(0.5):
        pass
    server.stop()
    daemon.stop()
    return 0


def _reflect(args: argparse.Namespace) -> int:
    from qoe_steer.probes import Reflector

    host, sep, port = str(args.listen).rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise InputError(f"--listen: {args.listen!r} is not HOST:PORT")
    try:
        reflector = Reflector(host.strip("[]") or "0.0.0.0", int(port))
    except OSError as exc:
        raise InputError(f"--listen: cannot bind {args.listen}: {exc.strerror}") from exc
    signal.signal(signal.SIGTERM, lambda *_: reflector.stop())
    print(f"qoe-steer reflector on {reflector.address[0]}:{reflector.address[1]}", file=sys.stderr)
    with contextlib.suppress(KeyboardInterrupt):
        reflector.serve_forever()
    reflector.close()
    return 0


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{what} {path}: cannot read: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"{what} {path}: not JSON: {exc.msg} (line {exc.lineno})") from exc


def _decide(args: argparse.Namespace) -> int:
    from qoe_steer.decide_once import decide_once

    if not 0 <= args.hysteresis < 1:
        raise InputError(f"--hysteresis: {args.hysteresis} is outside [0, 1)")
    policy = load_policy(args.policy, application=args.application)
    measurements = _read_json(args.measurements, "measurements")
    state = _read_json(args.state, "state") if args.state else None
    try:
        result = decide_once(policy, measurements, state, hysteresis=args.hysteresis)
    except ValueError as exc:
        raise InputError(str(exc)) from exc
    print(json.dumps(result, indent=2, allow_nan=False))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    handlers = {"run": _run, "check-config": _check_config, "reflect": _reflect, "decide": _decide}
    try:
        return handlers[args.command](args)
    except (ConfigError, PolicySourceError, PolicyError, ActuatorError, InputError) as exc:
        print(f"qoe-steer: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
