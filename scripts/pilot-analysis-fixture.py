"""Write or check ``frontend/src/results/pilotAnalysis.json``: the analysis document of the
issue-31 pilot (``fixtures/data/pilot_random_rater.csv``) that the results page's tests
render, without the sections those tests do not read.

    .venv/bin/python scripts/pilot-analysis-fixture.py write   # after the output changes
    .venv/bin/python scripts/pilot-analysis-fixture.py check   # exit 1 when it is stale
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from qoe_analysis import analyze, load_ratings

ROOT = Path(__file__).resolve().parents[1]
PILOT = ROOT / "fixtures" / "data" / "pilot_random_rater.csv"
TARGET = ROOT / "frontend" / "src" / "results" / "pilotAnalysis.json"
LEFT_OUT = ("per_item", "item_correlations", "response_times", "fast_raters", "subject_model")


def document() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(json.dumps(analyze(load_ratings(PILOT))))
    for key in LEFT_OUT:
        doc.pop(key, None)
    doc["meta"].pop("qoe_analysis_version", None)  # moves with every release
    return doc


def _same(a: Any, b: Any) -> bool:
    """Equal JSON, numbers to a relative 1e-9 (the last bits of a fit may differ by BLAS)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float | int) and isinstance(b, float | int) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return bool(a == b)


def main(argv: list[str]) -> int:
    if argv not in (["write"], ["check"]):
        print(__doc__, file=sys.stderr)
        return 2
    text = json.dumps(document(), indent=1, ensure_ascii=False) + "\n"
    if argv == ["write"]:
        TARGET.write_text(text, encoding="utf-8")
        return 0
    if not _same(json.loads(TARGET.read_text(encoding="utf-8")), json.loads(text)):
        print(
            f"{TARGET.relative_to(ROOT)} is stale: run {Path(__file__).name} write", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
