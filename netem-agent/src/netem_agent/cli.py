"""Command line interface of netem_agent (`netem-agent`).

* ``netem-agent serve --config FILE``
* ``netem-agent apply (--client-iface IF --server-iface IF | --iface IF [--role R]) PROFILE``
* ``netem-agent show --json (interfaces | --config FILE)``
* ``netem-agent clear (interfaces | --config FILE)``
* ``netem-agent check (interfaces | --config FILE)``
* ``netem-agent make-cert --name ADDRESS [--name HOST ...] [--out-dir DIR]``
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from netem_agent import __version__

DEFAULT_CLI_STATE_DIR = "/run/netem-agent"

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def _topology_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("topology (or --config)")
    g.add_argument("--config", help="agent configuration file (TOML)")
    g.add_argument("--client-iface", help="bridge/router mode: interface facing the client")
    g.add_argument("--server-iface", help="bridge/router mode: interface facing the server")
    g.add_argument("--iface", help="single-interface mode: the box's interface")
    g.add_argument(
        "--role",
        choices=["client", "server"],
        default=None,
        help="single-interface mode: is this box the client (default) or the server",
    )
    g.add_argument("--ifb", default=None, help="IFB device name (single mode, default qoeifb0)")
    g.add_argument("--flow-server", help="shape only traffic to/from this server IPv4 address")
    g.add_argument(
        "--flow-port",
        type=int,
        action="append",
        default=[],
        help="...and these server ports (repeatable)",
    )
    g.add_argument("--flow-protocol", choices=["udp", "tcp", "any"], default="any")
    g.add_argument(
        "--state-dir",
        default=None,
        help=f"crash-recovery records (default {DEFAULT_CLI_STATE_DIR} or config)",
    )
    g.add_argument(
        "--dry-run",
        action="store_true",
        help="record the operations instead of applying them (prints them)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="netem-agent", description="Apply tc/netem impairment profiles per direction."
    )
    parser.add_argument("--version", action="version", version=f"netem-agent {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command")
    s = sub.add_parser("serve", help="run the REST API")
    s.add_argument("--config", required=True)
    a = sub.add_parser("apply", help="apply, verify and print a profile; holds until `clear`")
    _topology_args(a)
    a.add_argument("profile", help="profile JSON file, or - for stdin")
    for name, text in (
        ("show", "print the installed state read back from the kernel"),
        ("clear", "restore the interfaces (remove only the agent's objects)"),
        ("check", "check prerequisites"),
    ):
        c = sub.add_parser(name, help=text)
        _topology_args(c)
        if name == "show":
            c.add_argument("--json", action="store_true", help="JSON output (the default)")
    m = sub.add_parser(
        "make-cert",
        help="make a self-signed TLS certificate and key for the agent (openssl) and print "
        "its SHA-256 fingerprint",
    )
    m.add_argument(
        "--name",
        action="append",
        required=True,
        help="address or host name the QoE Lab server uses in the agent URL (repeatable)",
    )
    m.add_argument(
        "--out-dir",
        default="/etc/netem-agent",
        help="where agent.crt and agent.key (mode 0600) go (default /etc/netem-agent)",
    )
    m.add_argument("--days", type=int, default=825, help="validity in days (default 825)")
    m.add_argument("--force", action="store_true", help="replace an existing pair")
    return parser


def _config(args: argparse.Namespace) -> Any:
    from netem_agent.config import Config, ConfigError, load_config, make_flow, make_topology

    if args.config:
        if args.client_iface or args.server_iface or args.iface:
            raise ConfigError("give either --config or interface options, not both")
        cfg = load_config(args.config)
    else:
        cfg = Config()
        flow = None
        if args.flow_server:
            flow = make_flow(
                {
                    "server_addr": args.flow_server,
                    "ports": args.flow_port,
                    "protocol": args.flow_protocol,
                }
            )
        if args.iface:
            if args.client_iface or args.server_iface:
                raise ConfigError("--iface (single mode) excludes --client-iface/--server-iface")
            doc: dict[str, Any] = {
                "mode": "single",
                "iface": args.iface,
                "role": args.role or "client",
            }
        else:
            if not (args.client_iface and args.server_iface):
                raise ConfigError(
                    "give --client-iface and --server-iface (bridge/router "
                    "mode), --iface (single-interface mode) or --config"
                )
            doc = {
                "mode": "bridge",
                "client_iface": args.client_iface,
                "server_iface": args.server_iface,
            }
        if args.ifb:
            doc["ifb_name"] = args.ifb
        cfg.topology = make_topology(doc)
        cfg.topology = dataclasses.replace(cfg.topology, flow=flow)
        cfg.state_dir = Path(DEFAULT_CLI_STATE_DIR)
    if args.state_dir:
        cfg.state_dir = Path(args.state_dir)
    if args.dry_run:
        cfg.backend = "dry-run"
    return cfg


def _print(obj: Any) -> None:
    print(json.dumps(obj, indent=2, ensure_ascii=False))


def _err(message: str, detail: Any = None) -> None:
    out = {"error": message}
    if detail is not None:
        out["detail"] = detail
    print(json.dumps(out, indent=2, ensure_ascii=False), file=sys.stderr)


def cmd_serve(args: argparse.Namespace) -> int:
    from netem_agent.config import load_config
    from netem_agent.server import Service

    cfg = load_config(args.config)
    service = Service(cfg)
    if service.recovered:
        logging.getLogger("netem_agent").warning("start-up recovery: %s", service.recovered)
    stop = threading.Event()
    received: list[int] = []

    def on_signal(signum: int, _frame: Any) -> None:
        received.append(signum)
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    service.start()
    host, port = service.address
    logging.getLogger("netem_agent").info(
        "listening on %s://%s:%d (backend %s)",
        service.scheme,
        host,
        port,
        service.agent.backend.name,
    )
    print(
        json.dumps(
            {
                "listening": f"{host}:{port}",
                "scheme": service.scheme,
                "backend": service.agent.backend.name,
                "pid": os.getpid(),
            }
        ),
        flush=True,
    )
    while not stop.wait(1.0):
        pass
    try:
        result = service.stop(restore=True)
    except Exception as e:
        _err(f"restore on shutdown failed: {e}", getattr(e, "detail", None))
        return EXIT_ERROR
    print(json.dumps({"stopped": signal.Signals(received[0]).name, "restore": result}), flush=True)
    return EXIT_OK


def _agent(args: argparse.Namespace) -> Any:
    from netem_agent.server import make_agent

    return make_agent(_config(args))


def cmd_apply(args: argparse.Namespace) -> int:
    from netem_profile import ProfileError, parse_profile

    from netem_agent.backends import DryRunBackend

    try:
        text = sys.stdin.read() if args.profile == "-" else Path(args.profile).read_text()
        doc = json.loads(
            text,
            parse_constant=lambda c: (_ for _ in ()).throw(ValueError(f"{c} is not valid JSON")),
        )
    except (OSError, ValueError) as e:
        _err(f"cannot read profile {args.profile}: {e}")
        return EXIT_USAGE
    try:
        profile = parse_profile(doc)
    except ProfileError as e:
        _err(f"invalid profile: {e}", e.errors)
        return EXIT_USAGE
    agent = _agent(args)
    result = agent.apply(profile, None)
    if isinstance(agent.backend, DryRunBackend):
        result["operations"] = agent.backend.operations
    _print(result)
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    agent = _agent(args)
    out = agent.status()
    out["applied"] = out["complete"]
    _print(out)
    return EXIT_OK


def cmd_clear(args: argparse.Namespace) -> int:
    from netem_agent.backends import DryRunBackend

    agent = _agent(args)
    result = agent.clear("netem-agent clear")
    if isinstance(agent.backend, DryRunBackend):
        result["operations"] = agent.backend.operations
    _print(result)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from netem_agent.check import run_checks

    cfg = _config(args)
    report = run_checks(cfg)
    _print(report)
    return EXIT_OK if report["ok"] else EXIT_ERROR


def cmd_make_cert(args: argparse.Namespace) -> int:
    from netem_agent.tls import make_self_signed

    result = make_self_signed(Path(args.out_dir), args.name, days=args.days, force=args.force)
    result["next"] = (
        f"set tls_cert_file = {json.dumps(result['cert_file'])} and tls_key_file = "
        f"{json.dumps(result['key_file'])} in [server]; paste the content of the certificate "
        "file (never the key) into the station's 'Agent CA certificate' in QoE Lab and use "
        "an https:// agent URL"
    )
    _print(result)
    return EXIT_OK


class LineHandler(logging.Handler):
    """Writes each record as one line with a single ``os.write`` on a file descriptor.

    ``logging.StreamHandler`` takes its lock around every record, writes through the text
    stream (whose buffer takes its own lock) and flushes (the lock again): in CPython 3.11
    every lock acquisition reads the monotonic clock, so a line cost about five system
    calls, and the agent logs one per profile switch. Here: the line is formatted, then
    written whole by one ``write(2)``, which the kernel does not interleave with another
    thread's (pipes: lines up to PIPE_BUF; files: the file position lock), so the
    handler needs no lock of its own.
    """

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd

    def handle(self, record: logging.LogRecord) -> bool:
        rv = bool(self.filter(record))
        if rv:
            self.emit(record)
        return rv

    def emit(self, record: logging.LogRecord) -> None:
        try:
            view = memoryview((self.format(record) + "\n").encode(errors="backslashreplace"))
            while view:
                view = view[os.write(self.fd, view) :]
        except Exception:
            self.handleError(record)


def _log_handler() -> logging.Handler:
    """A :class:`LineHandler` on standard error's descriptor; a stream handler when
    ``sys.stderr`` has none (replaced by a test's capture, say)."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return logging.StreamHandler(sys.stderr)
    sys.stderr.flush()
    return LineHandler(fd)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=[_log_handler()],
    )
    # the format names no process id: spare a getpid() system call per log record
    logging.logProcesses = False
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    from netem_agent.config import ConfigError
    from netem_agent.errors import AgentError

    commands = {
        "serve": cmd_serve,
        "apply": cmd_apply,
        "show": cmd_show,
        "clear": cmd_clear,
        "check": cmd_check,
        "make-cert": cmd_make_cert,
    }
    try:
        return commands[args.command](args)
    except ConfigError as e:
        _err(f"configuration: {e}")
        return EXIT_USAGE
    except AgentError as e:
        _err(f"{e.code}: {e}", e.detail)
        return EXIT_USAGE if e.status < 500 else EXIT_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
