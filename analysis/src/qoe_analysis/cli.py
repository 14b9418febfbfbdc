"""Command line interface of qoe_analysis (`qoe-analysis`).

    qoe-analysis analyze RATINGS.csv [--items SIDECAR.json] [--acceptable-from 3]
                         [--reliable-only] [--seed N] [--reliability-cutoff 0.6]
                         [--out DIR] [--no-plots] [--indent N]
    qoe-analysis synth --out DIR [--seed N] [--participants 58] [--sessions 79]
    qoe-analysis policy export INPUT [--format json|faucet|ovs|onos|rest_qos|ietf] [...]
    qoe-analysis policy check POLICY.json --measurements M.json [--indent N]

``analyze`` prints one JSON document to stdout; bad input exits with code 2 and a one-line
message on stderr. ``--items`` declares the items of a long-format CSV (its ``item``
column) with their scales, the acceptance rule and the fast-rating floor (the sidecar JSON
of the export, :func:`qoe_analysis.scales.parse_sidecar`); without it the CSV is one item
"overall" on ACR-5. ``--acceptable-from`` overrides the acceptance rule by a cut on the
primary item. ``policy export`` takes a ratings CSV (analysed first) or a policy JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from qoe_analysis import __version__
from qoe_analysis.io.json_text import json_pieces
from qoe_analysis.malloc_tuning import keep_freed_memory
from qoe_analysis.scales import Sidecar, parse_sidecar

# Only the standard library and stdlib-only modules at import time: pandas, SciPy and
# scikit-learn are imported by the command that needs them (tests/test_cli_imports.py).
from qoe_analysis.tidy.errors import RatingsValidationError

EXIT_BAD_INPUT = 2

#: Set by :func:`run`, whose process ends with ``os._exit`` after the command: the analysis
#: document is handed over here instead of freed (freeing 100,000-row tables costs about
#: 0.06 s of a 1 M-rating run, for memory the exit returns anyway). ``None`` in a caller's
#: process, where ``main`` frees everything as usual.
_kept_until_exit: list[Any] | None = None


class SidecarError(ValueError):
    """The items sidecar (``--items``) is unreadable or invalid, or the acceptance rule does
    not fit the ratings."""


def load_sidecar(path: Path | None) -> Sidecar | None:
    """Read and validate ``--items``; None without the option."""
    if path is None:
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise SidecarError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    try:
        return parse_sidecar(raw)
    except ValueError as exc:
        raise SidecarError(f"{path}: {exc}") from None


def _ratings_and_options(args: argparse.Namespace, path: Path) -> tuple[Any, dict[str, Any]]:
    """The validated ratings at ``path`` and the keyword arguments of ``analyze``."""
    from qoe_analysis.tidy.validation import load_ratings

    sidecar = load_sidecar(args.items)
    table = load_ratings(path, sidecar=sidecar)
    return table, {
        "acceptable_from": args.acceptable_from,
        "reliable_only": args.reliable_only,
        "seed": args.seed,
        "reliability_cutoff": args.reliability_cutoff,
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qoe-analysis", description="Analyse subjective QoE ratings (MOS, SOS, reliability)."
    )
    parser.add_argument("--version", action="version", version=f"qoe-analysis {__version__}")
    sub = parser.add_subparsers(dest="command")

    analyze = sub.add_parser("analyze", help="analyse a ratings CSV and print JSON")
    analyze.add_argument("ratings", type=Path, help="tidy ratings CSV")
    analyze.add_argument("--items", type=Path, help="items sidecar JSON of a long-format CSV")
    analyze.add_argument(
        "--acceptable-from",
        type=float,
        default=None,
        help="acceptable = primary item >= this (default: the sidecar's rule, overall >= 3)",
    )
    analyze.add_argument("--reliable-only", action="store_true")
    analyze.add_argument("--seed", type=int, default=0)
    analyze.add_argument("--reliability-cutoff", type=float, default=0.6)
    analyze.add_argument("--out", type=Path, help="also write JSON, CSV tables and PNG plots")
    analyze.add_argument("--no-plots", action="store_true", help="with --out: skip PNG plots")
    analyze.add_argument("--indent", type=int, default=None, help="pretty-print JSON")

    synth = sub.add_parser("synth", help="write a synthetic study (ratings.csv + truth.json)")
    synth.add_argument("--out", type=Path, required=True)
    synth.add_argument("--seed", type=int, default=0)
    synth.add_argument("--participants", type=int, default=58)
    synth.add_argument("--sessions", type=int, default=None, help="default: 79/58 per participant")
    _add_policy_parser(sub)
    return parser


def _add_policy_parser(sub: Any) -> None:
    policy = sub.add_parser("policy", help="QoE policy: export to controllers, check paths")
    policy.set_defaults(policy_help=policy.print_help)
    psub = policy.add_subparsers(dest="policy_command")
    export = psub.add_parser(
        "export", help="build the policy of a study and print it in a controller's format"
    )
    export.add_argument("input", type=Path, help="ratings CSV, or a policy JSON to re-export")
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


def _escaped(frame: Any) -> Any:
    """The frame with its text cells escaped against spreadsheet formulas
    (:mod:`qoe_analysis.io.csv_cells`: a game ``=x`` is written ``'=x``); numbers unchanged."""
    from qoe_analysis.io.csv_cells import escape_text_cell

    out = frame.copy()
    for column in out.columns:
        if out[column].dtype == object or str(out[column].dtype).startswith(("str", "string")):
            out[column] = out[column].map(
                lambda cell: escape_text_cell(cell) if isinstance(cell, str) else cell
            )
    return out


def _write_tables(doc: dict[str, Any], out: Path) -> None:
    import pandas as pd

    pd.DataFrame(doc["conditions"]).drop(columns=["distribution"]).pipe(_escaped).to_csv(
        out / "conditions.csv", index=False
    )
    pd.DataFrame(doc["reliability"]["intra"]).pipe(_escaped).to_csv(
        out / "intra_rater.csv", index=False
    )
    pd.DataFrame(doc["reliability"]["screening"]["p913"]["per_rater"]).pipe(_escaped).to_csv(
        out / "p913_screening.csv", index=False
    )
    subject = doc["subject_model"]
    pd.DataFrame(subject["conditions"]).pipe(_escaped).to_csv(
        out / "subject_model_conditions.csv", index=False
    )
    pd.DataFrame(subject["raters"]).pipe(_escaped).to_csv(
        out / "subject_model_raters.csv", index=False
    )
    rel = doc["reliability"]
    reasons = {
        "intra_rater": {r["rater_id"]: r["reason"] for r in rel["intra"]},
        "p913": {r["rater_id"]: r["reason"] for r in rel["screening"]["p913"]["per_rater"]},
        "straight_lining": {
            r["rater_id"]: r["reason"] for r in rel["screening"]["straight_lining"]["per_rater"]
        },
    }
    default = {"straight_lining": "ratings vary within every session"}
    pd.DataFrame(
        [
            {
                "rater_id": entry["rater_id"],
                **{
                    column: value
                    for rule, why in reasons.items()
                    for column, value in (
                        (f"{rule}_status", entry.get(rule)),
                        (f"{rule}_reason", why.get(entry["rater_id"], default.get(rule))),
                    )
                },
            }
            for entry in rel["rater_status"]
        ]
    ).pipe(_escaped).to_csv(out / "rater_status.csv", index=False)
    inter = pd.DataFrame(doc["reliability"]["inter"])
    quantiles = inter.pop("quantiles").apply(lambda q: pd.Series(q or {}))
    pd.concat([inter.drop(columns=["scenarios"]), quantiles], axis=1).pipe(_escaped).to_csv(
        out / "inter_rater.csv", index=False
    )
    weights = doc["weights"]
    pd.DataFrame(
        {
            "factor": list(weights["weka"]),
            "weka_info_gain_bits": list(weights["weka"].values()),
            "rapidminer_weight": [weights["rapidminer"][f] for f in weights["weka"]],
            "rapidminer_gain_bits": [weights["rapidminer_gain_bits"][f] for f in weights["weka"]],
        }
    ).pipe(_escaped).to_csv(out / "weights.csv", index=False)
    rows = []
    for pace, per_dir in doc["thresholds"]["by_pace"].items():
        for direction in ("downstream", "upstream", "both"):
            for key, entry in per_dir.get(direction, {}).items():
                rows.append(
                    {
                        "pace": pace,
                        "direction": direction,
                        "quantity": key,
                        **{k: v for k, v in entry.items() if not isinstance(v, list)},
                    }
                )
    pd.DataFrame(rows).pipe(_escaped).to_csv(out / "thresholds.csv", index=False)
    pd.DataFrame(
        [{"item": key, **row} for key, entry in doc["per_item"].items() for row in entry["mos"]]
    ).drop(columns=["distribution"]).pipe(_escaped).to_csv(out / "items_mos.csv", index=False)
    (out / "tree_rules.txt").write_text(
        "\n".join(r["text"] for r in doc["tree"]["rules"]) + "\n", encoding="utf-8"
    )


def _byte_stream(stream: Any) -> Callable[[bytes], object]:
    """A writer of UTF-8 bytes to the text stream ``stream``: straight to its binary buffer
    (the JSON pieces are bytes; decoding 100 MB to write it as text costs CPU) once the
    text layer is flushed, or decoded for a stream without one (``io.StringIO``)."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        return lambda data: stream.write(data.decode("utf-8"))
    stream.flush()
    return buffer.write  # type: ignore[no-any-return]


def _analyze(args: argparse.Namespace) -> int:
    from qoe_analysis.report import analyze

    table, options = _ratings_and_options(args, args.ratings)
    try:
        doc = analyze(table, **options)
    except RatingsValidationError:
        raise
    except ValueError as exc:  # the acceptance rule against the rated items
        raise SidecarError(str(exc)) from None
    del table  # the ratings are not needed for the output: free them before it is built
    stdout = _byte_stream(sys.stdout)
    if args.out is None:
        for piece in json_pieces(doc, indent=args.indent):
            stdout(piece)
        stdout(b"\n")
    else:
        args.out.mkdir(parents=True, exist_ok=True)
        target = args.out / "analysis.json"
        partial = target.with_name(target.name + ".partial")
        with partial.open("wb") as fh:
            for piece in json_pieces(doc, indent=args.indent):
                stdout(piece)
                fh.write(piece)
            stdout(b"\n")
            fh.write(b"\n")
        partial.replace(target)  # a reader never sees half a document
        _write_tables(doc, args.out)
        if not args.no_plots:
            from qoe_analysis.io.plots import write_plots

            write_plots(doc, args.out)
    if _kept_until_exit is not None:
        _kept_until_exit.append(doc)
    return 0


def _synth(args: argparse.Namespace) -> int:
    from qoe_analysis.synthetic import generate_study

    sessions = args.sessions
    if sessions is None:
        sessions = round(args.participants * 79 / 58)
    df, truth = generate_study(args.participants, sessions, seed=args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    _escaped(df).to_csv(args.out / "ratings.csv", index=False)
    (args.out / "truth.json").write_text(json.dumps(truth, indent=2) + "\n", encoding="utf-8")
    return 0


def _read_json(path: Path, what: str) -> Any:
    from qoe_analysis.policy import PolicyError

    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise PolicyError(
            f"invalid {what}: {path}: not JSON ({exc.msg}, line {exc.lineno})"
        ) from None


def _policy_export(args: argparse.Namespace) -> int:
    from qoe_analysis.policy import FORMATS, PolicyError, Topology, build_policy, export_policy
    from qoe_analysis.policy.document import PLACEHOLDER_SERVER_IP

    if args.format not in FORMATS:
        raise PolicyError(f"unknown format {args.format!r} (choose from {', '.join(FORMATS)})")
    topology = Topology(
        dpid=args.dpid,
        server_port=args.server_switch_port,
        client_port=args.client_switch_port,
        server_port_name=args.server_port_name,
        client_port_name=args.client_port_name,
        bridge=args.bridge,
        vlan=args.vlan,
    )
    if args.input.suffix.lower() == ".json":
        policy = _read_json(args.input, "policy")
        if args.server_ip and isinstance(policy, dict):
            raise PolicyError("--server-ip applies when building from ratings, not to a policy")
    else:
        from qoe_analysis.report import analyze

        table, options = _ratings_and_options(args, args.input)
        try:
            doc = analyze(table, **options)
        except RatingsValidationError:
            raise
        except ValueError as exc:
            raise SidecarError(str(exc)) from None
        flows = None  # build_policy's default: placeholder selector on "cloud-gaming"
        if args.server_ip:
            flows = {
                args.flow_class: {
                    "server_ip": args.server_ip,
                    "server_port": args.server_port,
                    "protocol": args.protocol,
                }
            }
        extra: dict[str, Any] = {}
        if args.rate_kbps is not None:
            extra["stream_kbps"] = args.rate_kbps
        if args.headroom is not None:
            extra["headroom"] = args.headroom
        policy = build_policy(
            doc,
            provenance={
                "study_id": args.study_id,
                "study_title": args.study_title,
                "study_version": args.study_version,
                "source": args.input.name,
            },
            flows=flows,
            generated_at=args.generated_at,
            **extra,
        )
    text = export_policy(policy, args.format, topology=topology)
    placeholder = any(
        (c.get("flow_match") or {}).get("placeholder") for c in policy.get("classes", [])
    )
    if placeholder and args.format != "json":
        print(
            "qoe-analysis: warning: the traffic selector is the placeholder "
            f"{PLACEHOLDER_SERVER_IP} (RFC 5737); set --server-ip",
            file=sys.stderr,
        )
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _policy_check(args: argparse.Namespace) -> int:
    from qoe_analysis.policy import evaluate_policy

    policy = _read_json(args.policy, "policy")
    measurements = _read_json(args.measurements, "measurements")
    report = evaluate_policy(policy, measurements)
    sys.stdout.write(json.dumps(report, indent=args.indent, allow_nan=False) + "\n")
    return 0


def _policy(args: argparse.Namespace) -> int:
    """``policy export`` / ``policy check``; a policy error is bad input (exit 2). The
    policy package is imported here, not for ``analyze``."""
    from qoe_analysis.policy.schema import PolicyError

    try:
        if args.policy_command == "export":
            return _policy_export(args)
        if args.policy_command == "check":
            return _policy_check(args)
    except PolicyError as exc:
        print(f"qoe-analysis: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    args.policy_help()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        if args.command == "analyze":
            return _analyze(args)
        if args.command == "policy":
            return _policy(args)
        return _synth(args)
    except RatingsValidationError as exc:
        from qoe_analysis.evidence.notes import NoReliableRatersError

        what = "--reliable-only" if isinstance(exc, NoReliableRatersError) else "invalid ratings"
        print(f"qoe-analysis: {what}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except SidecarError as exc:
        print(f"qoe-analysis: invalid items: {' '.join(str(exc).split())}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        message = " ".join(str(exc).split())
        print(f"qoe-analysis: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT


def run() -> None:
    """The ``qoe-analysis`` command: :func:`main` as a process.

    * One OpenBLAS thread unless ``OPENBLAS_NUM_THREADS`` says otherwise: the analysis'
      matrix products are small (rows = raters or conditions), and a second BLAS thread
      costs more CPU starting and spinning than it saves (about 0.1 s of a 1,200-rating run).
    * glibc keeps freed memory for the next large NumPy temporary instead of returning it
      to the kernel and page-faulting it in again (:mod:`qoe_analysis.malloc_tuning`;
      about 10 % of the CPU of a 1 M-rating run).
    * The process ends with ``os._exit`` once the output is flushed: tearing down the
      interpreter (freeing every module and the document) is work whose result nobody
      reads (0.05–0.2 s); the analysis document is kept until then, not freed when
      ``analyze`` returns (:data:`_kept_until_exit`). Files are closed by then (``with``
      blocks, atomic renames); ``main`` itself returns normally and frees what it made,
      for callers in the same process.
    * The cyclic garbage collector is off: reference counting frees the run's garbage, of
      which almost none is cyclic (about 1,400 objects in cycles at exit, for 1,200 and for
      1 M ratings alike; the 10 M run's peak RSS is the same with and without it). Left on,
      it is triggered by every 700 new containers (the per-rater rows) and walks the
      objects of the imported libraries again and again: about 5 % of the CPU of a 1 M-rating
      run (docs/performance.md). ``main`` leaves it as the caller has it.
    """
    global _kept_until_exit
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    keep_freed_memory()
    gc.disable()
    _kept_until_exit = []
    try:
        code = main()
    except SystemExit as stop:  # argparse: --help, --version, usage errors
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
        if not isinstance(stop.code, int | None):
            print(stop.code, file=sys.stderr)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left (| head): nothing more to say
        code = code or 1
    os._exit(code)


if __name__ == "__main__":
    run()
