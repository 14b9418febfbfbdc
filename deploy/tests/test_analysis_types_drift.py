"""The analysis-types drift check (`scripts/analysis-types.sh check`, part of `make lint`).

It regenerates the analysis document's JSON Schema from the TypedDicts of
``qoe_analysis.schema`` and the TypeScript types with json-schema-to-typescript, then diffs
both against the checked-in files: it must pass on them and fail, naming the drift and the
fix, on a types file that differs by one field type.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "analysis-types.sh"
TYPES = REPO / "frontend" / "src" / "results" / "analysisDoc.gen.ts"


def _check(types_file: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), "check", str(types_file)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_checked_in_types_match_the_analysis_schema() -> None:
    result = _check(TYPES)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "matches the analysis document's schema" in result.stdout


def test_drifted_types_fail_with_the_diff_and_the_fix(tmp_path: Path) -> None:
    original = TYPES.read_text()
    field = "  n_raters: number;\n"
    assert field in original, "the drift fixture needs a numeric n_raters field"
    drifted = tmp_path / "analysisDoc.gen.ts"
    drifted.write_text(original.replace(field, "  n_raters: string;\n", 1))

    result = _check(drifted)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "DRIFT" in result.stderr
    assert "scripts/analysis-types.sh write" in result.stderr
    assert "-  n_raters: string;" in result.stdout
    assert "+  n_raters: number;" in result.stdout
