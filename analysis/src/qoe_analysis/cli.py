"""Command line interface of qoe_analysis (`qoe-analysis`): arguments and exit codes.

    qoe-analysis analyze RATINGS.csv [--items SIDECAR.json] [--acceptable-from 3]
                         [--reliable-only] [--min-reliable-raters 3]
                         [--min-reliable-share 0.5] [--seed N] [--reliability-cutoff 0.6]
                         [--out DIR] [--no-plots] [--indent N] [--strict-evidence]
    qoe-analysis analyze --dataset DESCRIPTOR.json [--strict] [the options above]
    qoe-analysis describe FILE.csv [FILE2.csv ...] [--out descriptor.json]
    qoe-analysis synth --out DIR [--seed N] [--participants 58] [--sessions 79]
    qoe-analysis marginals RATINGS.csv [--items SIDECAR.json] [--csv]
    qoe-analysis marginals --dataset DESCRIPTOR.json [--strict] [--csv]
    qoe-analysis policy export INPUT [--format json|faucet|ovs|onos|rest_qos|ietf] [...]
    qoe-analysis policy check POLICY.json --measurements M.json [--indent N]

``analyze`` prints one JSON document to stdout, then each of the document's ``warnings`` as
one line ``warning: [code] where: message`` on stderr; bad input exits with code 2 and a
one-line message on stderr (so does ``--reliable-only`` when it would keep fewer than
``--min-reliable-raters`` raters); a reader that leaves early (``| head``) ends the command
quietly with code 1; ``--strict-evidence`` exits with code 3 after a complete output that
has warnings (0 without). ``--items`` declares the items of a long-format CSV (its
``item`` column) with their scales, the acceptance rule and the fast-rating floor (the
sidecar JSON of the export, :func:`qoe_analysis.scales.parse_sidecar`); without it the CSV
is one item "overall" on ACR-5. ``--acceptable-from`` overrides the acceptance rule by a
cut on the primary item. ``policy export`` takes a ratings CSV (analysed first) or a policy
JSON. The commands themselves are in :mod:`qoe_analysis.commands`.

``--dataset`` (analyze, marginals, policy export) reads any dataset by its descriptor
instead of a tidy CSV (:mod:`qoe_analysis.dataset`, docs/importing-data.md): its problems
are all listed on stderr (exit 2, nothing written); ``--strict`` also refuses undeclared
columns. ``describe`` drafts a descriptor of data files (JSON on stdout or in ``--out``;
notes on stderr). ``marginals`` prints MOS with its CI by factor level or bin
(docs/methods.md §2c) as a table, or CSV rows with ``--csv``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qoe_analysis import __version__, commands
from qoe_analysis.commands import EXIT_WARNINGS, SidecarError
from qoe_analysis.dataset.problems import DatasetError
from qoe_analysis.tidy.errors import RatingsValidationError

__all__ = ["EXIT_BAD_INPUT", "EXIT_READER_LEFT", "EXIT_WARNINGS", "build_parser", "main", "run"]

EXIT_BAD_INPUT = 2
#: the reader of stdout left before the end (a closed pipe), as Python's own exit code for it
EXIT_READER_LEFT = 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qoe-analysis", description="Analyse subjective QoE ratings (MOS, SOS, reliability)."
    )
    parser.add_argument("--version", action="version", version=f"qoe-analysis {__version__}")
    sub = parser.add_subparsers(dest="command")

    analyze = sub.add_parser("analyze", help="analyse a ratings CSV and print JSON")
    analyze.add_argument("ratings", type=Path, nargs="?", help="tidy ratings CSV")
    _add_dataset_options(analyze)
    analyze.add_argument("--items", type=Path, help="items sidecar JSON of a long-format CSV")
    analyze.add_argument(
        "--acceptable-from",
        type=float,
        default=None,
        help="acceptable = primary item >= this (default: the sidecar's rule, overall >= 3)",
    )
    analyze.add_argument("--reliable-only", action="store_true")
    analyze.add_argument(
        "--exclude-qc-failed",
        action="store_true",
        help="leave out the raters failing a trap or the hidden reference (default: flag)",
    )
    analyze.add_argument(
        "--min-reliable-raters",
        type=int,
        default=3,
        help="--reliable-only refuses (exit 2) when it would keep fewer raters (default 3)",
    )
    analyze.add_argument(
        "--min-reliable-share",
        type=float,
        default=0.5,
        help="--reliable-only warns when it keeps a smaller share of the raters (default 0.5)",
    )
    analyze.add_argument("--seed", type=int, default=0)
    analyze.add_argument("--reliability-cutoff", type=float, default=0.6)
    analyze.add_argument("--out", type=Path, help="also write JSON, CSV tables and PNG plots")
    analyze.add_argument("--no-plots", action="store_true", help="with --out: skip PNG plots")
    analyze.add_argument("--indent", type=int, default=None, help="pretty-print JSON")
    analyze.add_argument(
        "--strict-evidence",
        action="store_true",
        help=f"exit with code {EXIT_WARNINGS} when the document has warnings",
    )

    synth = sub.add_parser("synth", help="write a synthetic study (ratings.csv + truth.json)")
    synth.add_argument("--out", type=Path, required=True)
    synth.add_argument("--seed", type=int, default=0)
    synth.add_argument("--participants", type=int, default=58)
    synth.add_argument("--sessions", type=int, default=None, help="default: 79/58 per participant")
    _add_describe_parser(sub)
    _add_policy_parser(sub)
    _add_marginals_parser(sub)
    return parser


def _add_marginals_parser(sub: Any) -> None:
    marginals = sub.add_parser(
        "marginals", help="print MOS with 95 %% CI by factor level or bin, per game and overall"
    )
    marginals.add_argument("ratings", type=Path, nargs="?", help="tidy ratings CSV")
    marginals.add_argument("--items", type=Path, help="items sidecar JSON of a long-format CSV")
    marginals.add_argument(
        "--csv", action="store_true", help="one CSV row per point instead of aligned text"
    )
    _add_dataset_options(marginals)


def _add_policy_parser(sub: Any) -> None:
    policy = sub.add_parser("policy", help="QoE policy: export to controllers, check paths")
    policy.set_defaults(policy_help=policy.print_help)
    psub = policy.add_subparsers(dest="policy_command")
    export = psub.add_parser(
        "export", help="build the policy of a study and print it in a controller's format"
    )
    export.add_argument(
        "input", type=Path, nargs="?", help="ratings CSV, or a policy JSON to re-export"
    )
    _add_dataset_options(export)
    # validated by hand so a wrong value gives one line (not argparse's usage block)
    export.add_argument("--format", default="json", help="json|faucet|ovs|onos|rest_qos|ietf")
    export.add_argument("--out", type=Path, help="write to this file instead of stdout")
    export.add_argument("--items", type=Path, help="items sidecar JSON of a long-format CSV")
    export.add_argument("--acceptable-from", type=float, default=None)
    export.add_argument("--reliable-only", action="store_true")
    export.add_argument("--seed", type=int, default=0)
    export.add_argument("--reliability-cutoff", type=float, default=0.6)
    export.add_argument("--rate-kbps", type=float, default=None, help="stream rate (3000)")
    export.add_argument("--headroom", type=float, default=None, help="meter headroom (0.25)")
    export.add_argument(
        "--server-ip", help="game server address/prefix (default: RFC 5737 placeholder)"
    )
    export.add_argument("--server-port", type=int, help="game server UDP/TCP port")
    export.add_argument("--protocol", default="udp", help="udp|tcp (with --server-ip)")
    export.add_argument("--flow-class", default="cloud-gaming", help="class the selector is for")
    export.add_argument("--study-id")
    export.add_argument("--study-title")
    export.add_argument("--study-version")
    export.add_argument("--generated-at", help="fixed ISO timestamp (reproducible output)")
    export.add_argument(
        "--allow-dry-run",
        action="store_true",
        help="build a policy even when most ratings were taken on a dry-run agent",
    )
    export.add_argument("--dpid", type=int, default=1, help="OpenFlow datapath id")
    export.add_argument("--server-switch-port", type=int, default=1)
    export.add_argument("--client-switch-port", type=int, default=2)
    export.add_argument("--server-port-name", default="server0", help="OVS interface name")
    export.add_argument("--client-port-name", default="client0", help="OVS interface name")
    export.add_argument("--bridge", default="br0")
    export.add_argument("--vlan", type=int, default=100)
    check = psub.add_parser("check", help="which measured paths keep each game class acceptable")
    check.add_argument("policy", type=Path, help="policy JSON (policy export --format json)")
    check.add_argument("--measurements", type=Path, required=True, help="measurements JSON")
    check.add_argument("--indent", type=int, default=2)


def _policy(args: argparse.Namespace) -> int:
    """``policy export`` / ``policy check``; a policy error is bad input (exit 2). The
    policy package is imported here, not for ``analyze``."""
    from qoe_analysis.policy.schema import PolicyError

    try:
        if args.policy_command == "export":
            return commands.policy_export(args)
        if args.policy_command == "check":
            return commands.policy_check(args)
    except PolicyError as exc:
        print(f"qoe-analysis: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    args.policy_help()
    return 0


def _add_dataset_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dataset", type=Path, help="dataset descriptor (JSON or YAML)")
    parser.add_argument(
        "--strict", action="store_true", help="with --dataset: refuse undeclared columns"
    )


def _add_describe_parser(sub: Any) -> None:
    describe = sub.add_parser("describe", help="draft a dataset descriptor of data files")
    describe.add_argument("files", type=Path, nargs="+", help="CSV data files")
    describe.add_argument("--out", type=Path, help="write the descriptor here (else stdout)")


def _check_input(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``analyze``, ``marginals`` and ``policy export`` read a ratings file or ``--dataset``,
    one of them."""
    reads_ratings = args.command in ("analyze", "marginals")
    if not reads_ratings and getattr(args, "policy_command", None) != "export":
        return
    given = args.ratings if reads_ratings else args.input
    if (given is None) == (args.dataset is None):
        parser.error("give a ratings file or --dataset DESCRIPTOR (one of them)")
    if args.dataset is not None and args.items is not None:
        parser.error("--items is for a tidy CSV: a descriptor declares its rating items")


def _run_command(args: argparse.Namespace) -> int:
    if args.command == "analyze":
        code = commands.analyze(args)
    elif args.command == "describe":
        code = commands.describe(args)
    elif args.command == "policy":
        code = _policy(args)
    elif args.command == "marginals":
        code = commands.marginals(args)
    else:
        code = commands.synth(args)
    sys.stdout.flush()  # a closed pipe is met here, not at the interpreter's exit
    return code


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    _check_input(parser, args)
    try:
        return _run_command(args)
    except BrokenPipeError:  # before OSError: the reader left, the input was fine
        _discard_stdout()
        return EXIT_READER_LEFT
    except RatingsValidationError as exc:
        from qoe_analysis.evidence.notes import NoReliableRatersError

        what = "--reliable-only" if isinstance(exc, NoReliableRatersError) else "invalid ratings"
        first, *listed = str(exc).splitlines()  # several problems: "N problems:", one a line
        print(f"qoe-analysis: {what}: {first}", file=sys.stderr)
        for line in listed:
            print(f"  {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except DatasetError as exc:
        print(f"qoe-analysis: invalid dataset: {exc.headline()}:", file=sys.stderr)
        for line in exc.lines():
            print(f"  {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SidecarError as exc:
        print(f"qoe-analysis: invalid items: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        message = " ".join(str(exc).split())
        print(f"qoe-analysis: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _discard_stdout() -> None:
    """Point stdout's file descriptor at the null device, so that the bytes still buffered
    are dropped at exit instead of failing again on the closed pipe (the recipe of
    Python's ``signal`` documentation, "Note on SIGPIPE"). A stream without a descriptor
    (a test's capture) is left as it is."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # io.UnsupportedOperation is both
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def run() -> None:
    """The ``qoe-analysis`` command: :func:`main` as a process, with one OpenBLAS thread
    unless ``OPENBLAS_NUM_THREADS`` says otherwise (set before NumPy loads)."""
    # the analysis' matrix products are small; a second BLAS thread costs more CPU
    # starting and spinning than it saves (measured on the 1,200-rating input)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.exit(main())


if __name__ == "__main__":
    run()
