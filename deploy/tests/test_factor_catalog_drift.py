"""The editor tests' factor registry fixture is generated, and `make lint` catches drift."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "factor-catalog.py"
FIXTURE = REPO / "frontend" / "src" / "test" / "factor-catalog.json"


def _check(*path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "check", *map(str, path)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_committed_fixture_matches_the_registry() -> None:
    assert _check().returncode == 0
    keys = [factor["key"] for factor in json.loads(FIXTURE.read_text(encoding="utf-8"))["factors"]]
    assert keys[:2] == ["delay_ms", "jitter_ms"] and "ge_p_pct" in keys


def test_a_drifted_fixture_fails_the_check(tmp_path: Path) -> None:
    drifted = tmp_path / "factor-catalog.json"
    original = FIXTURE.read_text(encoding="utf-8")
    drifted.write_text(original.replace('"maximum": 100', '"maximum": 99', 1), encoding="utf-8")
    result = _check(drifted)
    assert result.returncode == 1
    assert "out of date" in result.stderr
