"""Write (or check) the factor registry fixture of the frontend tests.

``frontend/src/test/factor-catalog.json`` is ``GET /api/v1/factors/`` with the default
settings, generated from ``netem_profile.catalog()`` so the editor tests never test against
a hand-kept copy. Usage: ``factor-catalog.py write|check [PATH]`` (PATH defaults to that
file); ``check`` exits 1 on drift.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from netem_profile import DIRECTION_LABELS, catalog

FIXTURE = Path(__file__).resolve().parents[1] / "frontend" / "src" / "test" / "factor-catalog.json"
DEFAULT_MAX_SCENARIOS = 100


def document() -> str:
    body = {
        "factors": catalog(),
        "directions": {name: DIRECTION_LABELS[name] for name in ("downstream", "upstream")},
        "max_scenarios": DEFAULT_MAX_SCENARIOS,
    }
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    command, paths = (argv[1], argv[2:]) if len(argv) > 1 else ("", [])
    fixture = Path(paths[0]) if len(paths) == 1 else FIXTURE
    if command == "write" and len(paths) <= 1:
        fixture.write_text(document(), encoding="utf-8")
        return 0
    if command == "check" and len(paths) <= 1:
        current = fixture.read_text(encoding="utf-8") if fixture.is_file() else ""
        if current != document():
            print(f"{fixture} is out of date: run scripts/factor-catalog.py write", file=sys.stderr)
            return 1
        return 0
    print("usage: factor-catalog.py write|check [PATH]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
