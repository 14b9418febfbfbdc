"""The API-types drift check (`scripts/api-types.sh check`, part of `make lint`).

It regenerates the OpenAPI schema with drf-spectacular and the TypeScript types with
openapi-typescript, then diffs them against a types file: it must pass on the checked-in
frontend/src/api/schema.d.ts and fail, naming the drift, on a copy that differs from the
schema by one field type.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "api-types.sh"
TYPES = REPO / "frontend" / "src" / "api" / "schema.d.ts"


def _check(types_file: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), "check", str(types_file)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_checked_in_types_match_the_schema() -> None:
    result = _check(TYPES)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "matches the OpenAPI schema" in result.stdout


def test_drifted_types_fail_with_the_diff_and_the_fix(tmp_path: Path) -> None:
    original = TYPES.read_text()
    field = "            readonly scenario_count: number;\n"
    assert field in original, "the drift fixture needs a numeric scenario_count field"
    drifted = tmp_path / "schema.d.ts"
    drifted.write_text(original.replace(field, "            readonly scenario_count: string;\n", 1))

    result = _check(drifted)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "DRIFT" in result.stderr
    assert "npm run --prefix frontend api:types" in result.stderr
    assert "-            readonly scenario_count: string;" in result.stdout
    assert "+            readonly scenario_count: number;" in result.stdout
