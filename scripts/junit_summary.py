"""Summarise the JUnit XML files of a `make test` run; fail on skips in strict mode.

Prints one row per suite and a closing line ``tests: N passed, N failed, N skipped``.
Exit 1 when a suite failed, wrote no report, ran no test, or — with QOELAB_STRICT=1 —
skipped a test.
"""

from __future__ import annotations

import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def count(report: Path) -> dict[str, int]:
    root = ET.parse(report).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites:
        for key in totals:
            totals[key] += int(suite.get(key, 0) or 0)
    return totals


def main(results_dir: str) -> int:
    results = Path(results_dir)
    strict = os.environ.get("QOELAB_STRICT") == "1"
    codes = dict(
        line.split() for line in (results / "exit-codes").read_text().splitlines() if line.strip()
    )
    ok = True
    passed = failed = skipped = 0
    print(f"{'suite':<10} {'tests':>6} {'passed':>7} {'failed':>7} {'skipped':>8}  exit")
    for name, code in codes.items():
        report = results / f"{name}.xml"
        if not report.is_file():
            print(f"{name:<10} {'—':>6} {'—':>7} {'—':>7} {'—':>8}  {code}  (no report)")
            ok = False
            continue
        c = count(report)
        bad = c["failures"] + c["errors"]
        good = c["tests"] - bad - c["skipped"]
        passed, failed, skipped = passed + good, failed + bad, skipped + c["skipped"]
        note = ""
        if c["tests"] == 0:
            note, ok = "  (ran no test)", False
        elif strict and c["skipped"]:
            note, ok = "  (skips are failures in strict mode)", False
        if code != "0" or bad:
            ok = False
        print(f"{name:<10} {c['tests']:>6} {good:>7} {bad:>7} {c['skipped']:>8}  {code}{note}")
    print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
