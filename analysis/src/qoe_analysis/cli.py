"""Command line interface of qoe_analysis (`qoe-analysis`).

    qoe-analysis analyze RATINGS.csv [--acceptable-from 3] [--reliable-only] [--seed N]
                         [--reliability-cutoff 0.6] [--out DIR] [--no-plots] [--indent N]
    qoe-analysis synth --out DIR [--seed N] [--participants 58] [--sessions 79]

``analyze`` prints one JSON document to stdout; bad input exits with code 2 and a one-line
message on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qoe_analysis import __version__
from qoe_analysis.validation import RatingsValidationError, load_ratings

EXIT_BAD_INPUT = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qoe-analysis", description="Analyse subjective QoE ratings (MOS, SOS, reliability)."
    )
    parser.add_argument("--version", action="version", version=f"qoe-analysis {__version__}")
    sub = parser.add_subparsers(dest="command")

    analyze = sub.add_parser("analyze", help="analyse a ratings CSV and print JSON")
    analyze.add_argument("ratings", type=Path, help="tidy ratings CSV")
    analyze.add_argument("--acceptable-from", type=int, default=3, choices=range(1, 6))
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
    return parser


def _write_tables(doc: dict[str, Any], out: Path) -> None:
    import pandas as pd

    pd.DataFrame(doc["conditions"]).drop(columns=["distribution"]).to_csv(
        out / "conditions.csv", index=False
    )
    pd.DataFrame(doc["reliability"]["intra"]).to_csv(out / "intra_rater.csv", index=False)
    pd.DataFrame(doc["reliability"]["screening"]["p913"]["per_rater"]).to_csv(
        out / "p913_screening.csv", index=False
    )
    inter = pd.DataFrame(doc["reliability"]["inter"])
    quantiles = inter.pop("quantiles").apply(lambda q: pd.Series(q or {}))
    pd.concat([inter.drop(columns=["scenarios"]), quantiles], axis=1).to_csv(
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
    ).to_csv(out / "weights.csv", index=False)
    rows = []
    for pace, per_dir in doc["thresholds"]["by_pace"].items():
        for direction in ("downstream", "upstream", "both"):
            for key, entry in per_dir[direction].items():
                rows.append(
                    {
                        "pace": pace,
                        "direction": direction,
                        "quantity": key,
                        **{k: v for k, v in entry.items() if not isinstance(v, list)},
                    }
                )
    pd.DataFrame(rows).to_csv(out / "thresholds.csv", index=False)
    (out / "tree_rules.txt").write_text(
        "\n".join(r["text"] for r in doc["tree"]["rules"]) + "\n", encoding="utf-8"
    )


def _analyze(args: argparse.Namespace) -> int:
    from qoe_analysis.report import analyze

    table = load_ratings(args.ratings)
    doc = analyze(
        table,
        acceptable_from=args.acceptable_from,
        reliable_only=args.reliable_only,
        seed=args.seed,
        reliability_cutoff=args.reliability_cutoff,
    )
    text = json.dumps(doc, indent=args.indent, allow_nan=False)
    sys.stdout.write(text + "\n")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "analysis.json").write_text(text + "\n", encoding="utf-8")
        _write_tables(doc, args.out)
        if not args.no_plots:
            from qoe_analysis.plots import write_plots

            write_plots(doc, args.out)
    return 0


def _synth(args: argparse.Namespace) -> int:
    from qoe_analysis.synthetic import generate_study

    sessions = args.sessions
    if sessions is None:
        sessions = round(args.participants * 79 / 58)
    df, truth = generate_study(args.participants, sessions, seed=args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out / "ratings.csv", index=False)
    (args.out / "truth.json").write_text(json.dumps(truth, indent=2) + "\n", encoding="utf-8")
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
        return _synth(args)
    except RatingsValidationError as exc:
        print(f"qoe-analysis: invalid ratings: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        message = " ".join(str(exc).split())
        print(f"qoe-analysis: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    raise SystemExit(main())
