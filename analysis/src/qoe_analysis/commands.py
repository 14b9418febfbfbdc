"""The bodies of the ``qoe-analysis`` commands (:mod:`qoe_analysis.cli` parses the
arguments and maps errors to exit codes).

Only the standard library and stdlib-only modules at import time: pandas, SciPy and
scikit-learn are imported by the command that needs them (tests/test_cli_imports.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from qoe_analysis.io.json_text import json_pieces
from qoe_analysis.scales import Sidecar, parse_sidecar
from qoe_analysis.tidy.errors import RatingsValidationError

__all__ = [
    "EXIT_WARNINGS",
    "SidecarError",
    "analyze",
    "describe",
    "load_sidecar",
    "marginals",
    "policy_check",
    "policy_export",
    "print_warnings",
    "synth",
]

#: ``analyze --strict-evidence``: the output is complete, and the document has warnings
EXIT_WARNINGS = 3


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


def _analysed(args: argparse.Namespace, path: Path | None) -> Mapping[str, Any]:
    """The analysis document of the ratings CSV at ``path`` (or of ``--dataset``) with the
    options in ``args``."""
    from qoe_analysis.report import analyze as analyze_table

    table, dataset = _input_table(args, path)
    # the --reliable-only limits, where the command has them (analyze's defaults otherwise)
    limits = {
        key: getattr(args, key)
        for key in ("min_reliable_raters", "min_reliable_share")
        if getattr(args, key, None) is not None
    }
    try:
        return analyze_table(
            table,
            acceptable_from=args.acceptable_from,
            reliable_only=args.reliable_only,
            seed=args.seed,
            reliability_cutoff=args.reliability_cutoff,
            dataset=dataset,
            exclude_qc_failed=getattr(args, "exclude_qc_failed", False),
            **limits,
        )
    except RatingsValidationError:
        raise
    except ValueError as exc:  # the acceptance rule against the rated items
        raise SidecarError(str(exc)) from None


def _input_table(args: argparse.Namespace, path: Path | None) -> tuple[Any, Any]:
    """(ratings table, the :class:`~qoe_analysis.dataset.loader.LoadedDataset` or None): the
    dataset of ``--dataset`` when given, else the tidy CSV at ``path`` with ``--items``."""
    if getattr(args, "dataset", None) is not None:
        from qoe_analysis.dataset.reading import load_dataset_file

        dataset = load_dataset_file(args.dataset, strict=args.strict)
        return dataset.ratings, dataset
    from qoe_analysis.io.ratings_csv import load_ratings

    assert path is not None  # the CLI asks for a ratings file or --dataset
    return load_ratings(path, sidecar=load_sidecar(args.items)), None


def describe(args: argparse.Namespace) -> int:
    """``describe``: the draft descriptor of the data files as JSON, on stdout or in
    ``--out`` (paths relative to its folder); what the analyst must still settle on
    stderr, one ``describe: …`` line each."""
    from qoe_analysis.dataset.describe import describe_files

    draft, notes = describe_files(args.files, args.out)
    text = json.dumps(draft, indent=2, ensure_ascii=False) + "\n"
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    for note in notes:
        print(f"describe: {note}", file=sys.stderr)
    return 0


def _byte_writer(stream: IO[str]) -> Callable[[bytes], object]:
    """A writer of UTF-8 bytes to the text stream ``stream``: to its binary buffer once the
    text layer is flushed (the JSON pieces are bytes), or decoded for a stream without one
    (``io.StringIO``)."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        return lambda data: stream.write(data.decode("utf-8"))
    stream.flush()
    return buffer.write  # type: ignore[no-any-return]


def print_warnings(doc: Mapping[str, Any], stream: IO[str]) -> int:
    """Each of the document's warnings as one line ``warning: [code] where: message`` on
    ``stream``; returns how many."""
    warnings = doc.get("warnings") or []
    for w in warnings:
        message = " ".join(str(w.get("message", "")).split())
        stream.write(f"warning: [{w.get('code')}] {w.get('where')}: {message}\n")
    stream.flush()
    return len(warnings)


def analyze(args: argparse.Namespace) -> int:
    """``analyze``: the JSON document on stdout; with ``--out`` also in
    ``analysis.json`` (renamed into place when complete), the CSV tables and the plots;
    then the warnings on stderr (:func:`print_warnings`). Exit code 0, or
    :data:`EXIT_WARNINGS` with ``--strict-evidence`` when there are warnings."""
    doc = _analysed(args, args.ratings)
    _write_document(doc, args)
    # the document is out (a reader that left raised on this flush): now the warnings
    sys.stdout.flush()
    n_warnings = print_warnings(doc, sys.stderr)
    return EXIT_WARNINGS if args.strict_evidence and n_warnings else 0


def _write_document(doc: Mapping[str, Any], args: argparse.Namespace) -> None:
    """The document on stdout and, with ``--out``, in its files."""
    stdout = _byte_writer(sys.stdout)
    if args.out is None:
        for piece in json_pieces(doc, indent=args.indent):
            stdout(piece)
        stdout(b"\n")
        return
    from qoe_analysis.io.plots import write_plots
    from qoe_analysis.io.tables import write_tables

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
    write_tables(doc, args.out)
    if not args.no_plots:
        write_plots(doc, args.out)


def marginals(args: argparse.Namespace) -> int:
    """``marginals``: MOS with its 95 % CI per factor level or bin, per game and over all
    games, of every item (all raters: the ``marginals`` section of a default ``analyze``),
    as aligned text or, with ``--csv``, one CSV row per point; a ``--dataset``'s warnings
    then on stderr (:func:`print_warnings`)."""
    from qoe_analysis.io.marginals_text import marginal_rows, marginals_text
    from qoe_analysis.io.tables import escaped
    from qoe_analysis.marginal_report import table_marginals

    table, dataset = _input_table(args, args.ratings)
    section = table_marginals(table)
    if args.csv:
        sys.stdout.write(escaped(marginal_rows(section)).to_csv(index=False))
    else:
        sys.stdout.write(marginals_text(section))
    sys.stdout.flush()
    if dataset is not None:
        print_warnings({"warnings": dataset.warnings}, sys.stderr)
    return 0


def synth(args: argparse.Namespace) -> int:
    """``synth``: a synthetic study, ``ratings.csv`` and ``truth.json``."""
    from qoe_analysis.io.tables import escaped
    from qoe_analysis.synthetic import generate_study

    sessions = args.sessions
    if sessions is None:
        sessions = round(args.participants * 79 / 58)
    df, truth = generate_study(args.participants, sessions, seed=args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    escaped(df).to_csv(args.out / "ratings.csv", index=False)
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


def policy_export(args: argparse.Namespace) -> int:
    """``policy export``: the policy of a ratings CSV (analysed first) or of a policy JSON,
    in a controller's format."""
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
    if args.input is not None and args.input.suffix.lower() == ".json":
        policy = _read_json(args.input, "policy")
        if args.server_ip and isinstance(policy, dict):
            raise PolicyError("--server-ip applies when building from ratings, not to a policy")
    else:
        doc = _analysed(args, args.input)
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
                "source": (args.input or args.dataset).name,
            },
            flows=flows,
            generated_at=args.generated_at,
            allow_dry_run=args.allow_dry_run,
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


def policy_check(args: argparse.Namespace) -> int:
    """``policy check``: which measured paths keep each game class acceptable."""
    from qoe_analysis.policy import evaluate_policy

    policy = _read_json(args.policy, "policy")
    measurements = _read_json(args.measurements, "measurements")
    report = evaluate_policy(policy, measurements)
    sys.stdout.write(json.dumps(report, indent=args.indent, allow_nan=False) + "\n")
    return 0
