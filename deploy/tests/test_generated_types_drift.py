"""The drift checks of the frontend's generated types (part of `make lint`).

* `scripts/api-types.sh check`: the OpenAPI schema (drf-spectacular) through
  openapi-typescript, against frontend/src/api/schema.d.ts;
* `scripts/analysis-types.sh check`: the analysis document's JSON Schema (the TypedDicts of
  ``qoe_analysis.schema``) through json-schema-to-typescript, against
  frontend/src/results/analysisDoc.gen.ts (and the checked-in schema JSON).

Each must pass on the checked-in file and fail, naming the drift and the fix, on a copy
that differs from its source by one field type.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Generated:
    script: str
    types: str
    matches: str  # what a passing check prints
    fix: str  # the command a failing check names
    field: str  # a line of the checked-in file: a numeric field
    drifted: str  # the same field with another type


CHECKS = [
    Generated(
        "scripts/api-types.sh",
        "frontend/src/api/schema.d.ts",
        "matches the OpenAPI schema",
        "npm run --prefix frontend api:types",
        "            readonly scenario_count: number;\n",
        "            readonly scenario_count: string;\n",
    ),
    Generated(
        "scripts/analysis-types.sh",
        "frontend/src/results/analysisDoc.gen.ts",
        "matches the analysis document's schema",
        "scripts/analysis-types.sh write",
        "  n_raters: number;\n",
        "  n_raters: string;\n",
    ),
]


def _check(generated: Generated, types_file: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REPO / generated.script), "check", str(types_file)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("generated", CHECKS, ids=lambda g: g.script)
def test_the_checked_in_types_match_their_schema(generated: Generated) -> None:
    result = _check(generated, REPO / generated.types)
    assert result.returncode == 0, result.stdout + result.stderr
    assert generated.matches in result.stdout


@pytest.mark.parametrize("generated", CHECKS, ids=lambda g: g.script)
def test_drifted_types_fail_with_the_diff_and_the_fix(generated: Generated, tmp_path: Path) -> None:
    original = (REPO / generated.types).read_text()
    assert generated.field in original, f"the drift fixture needs {generated.field.strip()}"
    drifted = tmp_path / Path(generated.types).name
    drifted.write_text(original.replace(generated.field, generated.drifted, 1))

    result = _check(generated, drifted)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "DRIFT" in result.stderr
    assert generated.fix in result.stderr
    assert "-" + generated.drifted.rstrip("\n") in result.stdout
    assert "+" + generated.field.rstrip("\n") in result.stdout
