#!/usr/bin/env python3
"""Summarise `make bench`: every goal of every benchmark, its baseline, ratio and verdict.

Each benchmark writes ``var/bench/<name>.json`` with a list ``goals`` of objects::

    {"goal": str, "measured": float, "unit": str, "baseline": str | None,
     "baseline_measured": float | None, "ratio": float | None, "target": str, "pass": bool,
     "limit": float, "compare": "<=" | ">=", "spread": [low, high]}

The last three are optional: ``limit`` is the target's number, ``spread`` the range over
the runs of the quantity the goal judges (the ratio when there is a baseline, else the
measured value). When the spread reaches both sides of the limit the margin is smaller
than the machine's run-to-run spread, and the verdict is "within noise" (the ``pass`` of
the median is kept beside it): such a goal is reported, not chased.

This script reads them all (files without ``goals`` are listed as such), prints one table,
writes ``var/bench/summary.json`` and ``var/bench/summary.md``, and with ``--readme FILE``
(repeatable) replaces the text between the file's markers ``<!-- bench:start -->`` and
``<!-- bench:end -->`` with that table, so the figures of the README and of
docs/performance.md are the last run's, never typed by hand. Exit status: 0 when every
goal passed, 1 when one failed, 2 on unusable input.

    python3 scripts/bench_report.py [--bench-dir var/bench] [--readme README.md]
        [--readme docs/performance.md]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
SUMMARY_FILES = {"summary.json"}
REQUIRED = ("goal", "measured", "unit", "target", "pass")
COMPARISONS = ("<=", ">=")


class BenchError(ValueError):
    """A results file that does not follow the shared format."""


@dataclass(frozen=True)
class Goal:
    bench: str
    goal: str
    measured: float | None
    unit: str
    baseline: str | None
    baseline_measured: float | None
    ratio: float | None
    target: str
    passed: bool
    limit: float | None = None
    spread: tuple[float, float] | None = None

    @property
    def within_noise(self) -> bool:
        """Does the runs' spread reach both sides of the limit?"""
        if self.limit is None or self.spread is None:
            return False
        return self.spread[0] <= self.limit <= self.spread[1]

    @property
    def verdict(self) -> str:
        text = "pass" if self.passed else "fail"
        return f"{text}, within noise" if self.within_noise else text

    def as_dict(self) -> dict[str, Any]:
        return {
            "bench": self.bench,
            "goal": self.goal,
            "measured": self.measured,
            "unit": self.unit,
            "baseline": self.baseline,
            "baseline_measured": self.baseline_measured,
            "ratio": self.ratio,
            "target": self.target,
            "pass": self.passed,
            "limit": self.limit,
            "spread": None if self.spread is None else list(self.spread),
            "verdict": self.verdict,
        }


def _number(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BenchError(f"{where}: expected a number or null, got {value!r}")
    return float(value)


def parse_goals(bench: str, document: Any) -> list[Goal] | None:
    """The goals of one results document; None when it records none (an older format)."""
    if not isinstance(document, dict) or "goals" not in document:
        return None
    raw = document["goals"]
    if not isinstance(raw, list):
        raise BenchError(f"{bench}: 'goals' must be a list")
    goals = []
    for i, item in enumerate(raw):
        where = f"{bench}: goals[{i}]"
        if not isinstance(item, dict):
            raise BenchError(f"{where}: expected an object")
        missing = [key for key in REQUIRED if key not in item]
        if missing:
            raise BenchError(f"{where}: missing {', '.join(missing)}")
        if not isinstance(item["pass"], bool):
            raise BenchError(f"{where}: 'pass' must be true or false")
        compare = item.get("compare", "<=")
        if compare not in COMPARISONS:
            raise BenchError(f"{where}: 'compare' must be one of {', '.join(COMPARISONS)}")
        goals.append(
            Goal(
                bench=bench,
                goal=str(item["goal"]),
                measured=_number(item["measured"], f"{where}.measured"),
                unit=str(item["unit"]),
                baseline=None if item.get("baseline") is None else str(item["baseline"]),
                baseline_measured=_number(
                    item.get("baseline_measured"), f"{where}.baseline_measured"
                ),
                ratio=_number(item.get("ratio"), f"{where}.ratio"),
                target=str(item["target"]),
                passed=item["pass"],
                limit=_number(item.get("limit"), f"{where}.limit"),
                spread=_spread(item.get("spread"), f"{where}.spread"),
            )
        )
    return goals


def _spread(value: Any, where: str) -> tuple[float, float] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        raise BenchError(f"{where}: expected [low, high] or null, got {value!r}")
    low, high = (_number(v, where) for v in value)
    if low is None or high is None or low > high:
        raise BenchError(f"{where}: expected [low, high] with low <= high, got {value!r}")
    return low, high


def _fmt(value: float | None, unit: str = "") -> str:
    if value is None:
        return "—"
    text = f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"
    return f"{text} {unit}".strip()


def table(goals: list[Goal]) -> str:
    """A Markdown table, one row a goal."""
    rows = [
        "| benchmark | goal | measured | baseline | ratio | target | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for g in goals:
        baseline = "—"
        if g.baseline:
            baseline = f"{g.baseline}: {_fmt(g.baseline_measured, g.unit)}"
        ratio = "—" if g.ratio is None else f"{g.ratio:.3g}×"
        verdict = g.verdict if g.passed else f"**{g.verdict}**"
        rows.append(
            f"| {g.bench} | {g.goal} | {_fmt(g.measured, g.unit)} | {baseline} | {ratio} "
            f"| {g.target} | {verdict} |"
        )
    return "\n".join(rows)


def collect(bench_dir: Path) -> tuple[list[Goal], list[str]]:
    """All goals in ``bench_dir``, and the names of results files that record none."""
    goals: list[Goal] = []
    without: list[str] = []
    for path in sorted(bench_dir.glob("*.json")):
        if path.name in SUMMARY_FILES:
            continue
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise BenchError(f"{path.name}: unreadable ({exc})") from exc
        found = parse_goals(path.stem, document)
        if found is None:
            without.append(path.name)
        else:
            goals.extend(found)
    return goals, without


def replace_section(text: str, body: str, name: str = "the README") -> str:
    """``text`` with the part between the bench markers replaced by ``body``."""
    start, end = text.find(START), text.find(END)
    if start < 0 or end < start:
        raise BenchError(f"{name} has no {START} … {END} section")
    return text[: start + len(START)] + "\n" + body.strip() + "\n" + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-dir", type=Path, default=ROOT / "var" / "bench")
    parser.add_argument(
        "--readme",
        type=Path,
        action="append",
        default=[],
        help="rewrite this file's bench section (repeatable: README.md, docs/performance.md)",
    )
    args = parser.parse_args(argv)
    try:
        goals, without = collect(args.bench_dir)
        if not goals:
            raise BenchError(f"no benchmark goals in {args.bench_dir} (run `make bench`)")
        markdown = table(goals)
        if without:
            markdown += "\n\nResults without goals: " + ", ".join(without) + "."
        failed = [g for g in goals if not g.passed]
        (args.bench_dir / "summary.json").write_text(
            json.dumps({"goals": [g.as_dict() for g in goals], "failed": len(failed)}, indent=2)
            + "\n",
            encoding="utf-8",
        )
        (args.bench_dir / "summary.md").write_text(markdown + "\n", encoding="utf-8")
        # Every file is checked before any is written: none is left half updated.
        updated = {
            path: replace_section(path.read_text(encoding="utf-8"), markdown, str(path))
            for path in args.readme
        }
        for path, text in updated.items():
            path.write_text(text, encoding="utf-8")
    except BenchError as exc:
        print(f"bench-report: {exc}", file=sys.stderr)
        return 2
    print(markdown)
    noisy = sum(g.within_noise for g in goals)
    print(f"\n{len(goals) - len(failed)} of {len(goals)} goals passed ({noisy} within noise)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
