"""Command line interface of qoe_analysis (`qoe-analysis`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from qoe_analysis import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qoe-analysis", description="Analyse subjective QoE ratings (MOS, SOS, reliability)."
    )
    parser.add_argument("--version", action="version", version=f"qoe-analysis {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    build_parser().parse_args(argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
