"""Command line interface of netem_agent (`netem-agent`)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from netem_agent import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="netem-agent", description="Apply tc/netem impairment profiles per direction."
    )
    parser.add_argument("--version", action="version", version=f"netem-agent {__version__}")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    build_parser().parse_args(argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
