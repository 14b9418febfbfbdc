"""The ten comparison inputs: run ``qoe-analysis analyze`` on each and store, or compare, the
documents. A refactoring of the analysis must leave them unchanged (numbers within the
relative 1e-9 of ``analysis/tests/json_compare.py``), except where it says why.

Run from the repository root:

    .venv/bin/python analysis/bench/compare_outputs.py write DIR      # documents of this tree
    .venv/bin/python analysis/bench/compare_outputs.py diff OLD NEW   # where two runs differ
    .venv/bin/python analysis/bench/compare_outputs.py diff OLD NEW --skip 100k,1m
    .venv/bin/python analysis/bench/compare_outputs.py diff OLD NEW --ignore mos_by_factor

The synthetic inputs (1,200, 100,000 and 1,000,000 ratings) are the bench's
(``bench_analyze.ensure_ratings``, written under var/bench/ when absent).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "analysis" / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_analyze import ensure_ratings  # noqa: E402
from json_compare import differences  # noqa: E402

EXAMPLE = ROOT / "fixtures" / "synthetic" / "dissertation_shape" / "ratings.csv"
DATA = ROOT / "fixtures" / "data"


def inputs() -> dict[str, list[str]]:
    """Name -> the arguments of ``qoe-analysis analyze``."""
    example = str(EXAMPLE)
    return {
        "example_seed0": [example],
        "example_seed3": [example, "--seed", "3"],
        "example_reliable_only": [example, "--reliable-only"],
        "example_acceptable_from_4": [example, "--acceptable-from", "4"],
        "grid_jitter_burst": [str(DATA / "grid_jitter_burst.csv")],
        "scale_0_6": [str(DATA / "scale_0_6.csv"), "--items", str(DATA / "scale_0_6.items.json")],
        "1200": [str(ensure_ratings(1_200))],
        "1200_reliable_only": [str(ensure_ratings(1_200)), "--reliable-only"],
        "100k": [str(ensure_ratings(100_000))],
        "1m": [str(ensure_ratings(1_000_000))],
    }


def write(out: Path, skip: set[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    cli = [sys.executable, "-m", "qoe_analysis.cli", "analyze"]
    for name, args in inputs().items():
        if name in skip:
            continue
        run = subprocess.run([*cli, *args], capture_output=True, check=False)
        if run.returncode == 2:  # a refusal (e.g. --reliable-only on too few raters)
            refusal = {"refused": run.stderr.decode("utf-8").strip()}
            (out / f"{name}.json").write_text(json.dumps(refusal) + "\n", encoding="utf-8")
        else:
            run.check_returncode()
            (out / f"{name}.json").write_bytes(run.stdout)
        print(f"wrote {out / name}.json")


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def diff(old: Path, new: Path, skip: set[str], limit: int, ignore: set[str]) -> int:
    changed = 0
    for path in sorted(old.glob("*.json")):
        if path.stem in skip:
            continue
        other = new / path.name
        if not other.exists():
            print(f"{path.stem}: missing in {new}")
            changed += 1
            continue
        actual, expected = _load(other), _load(path)
        for key in ignore:  # a section added (or removed) on purpose
            actual.pop(key, None)
            expected.pop(key, None)
        found = differences(actual, expected)
        print(f"{path.stem}: {'same' if not found else f'{len(found)} difference(s)'}")
        for line in found[:limit]:
            print(f"    {line[:300]}")
        changed += bool(found)
    return 1 if changed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("out", type=Path)
    d = sub.add_parser("diff")
    d.add_argument("old", type=Path)
    d.add_argument("new", type=Path)
    d.add_argument("--limit", type=int, default=20, help="differences shown per input")
    d.add_argument("--ignore", default="", help="comma-separated top-level keys to leave out")
    for p in (w, d):
        p.add_argument("--skip", default="", help="comma-separated input names to leave out")
    args = parser.parse_args()
    skip = {s for s in args.skip.split(",") if s}
    if args.command == "write":
        write(args.out, skip)
        return 0
    ignore = {s for s in args.ignore.split(",") if s}
    return diff(args.old, args.new, skip, args.limit, ignore)


if __name__ == "__main__":
    sys.exit(main())
