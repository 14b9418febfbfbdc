"""CI's gate: `.ci/run` fails when a lint rule is broken, and passes on a clean tree.

Each test copies the working tree (the files git tracks, plus untracked ones it does not
ignore) into a temporary directory, links the installed environments (.venv and
frontend/node_modules) into it, and runs the real `.ci/run` there with
QOELAB_CI_SKIP_SETUP=1 (no installs, no services) and `make test` replaced by a stand-in
that passes: so the outcome depends on `make lint` alone. The broken copy gets one Python
file with an unused import (ruff F401) and one TypeScript file with an explicit `any`
(@typescript-eslint/no-explicit-any).

The copies run only the linters under test (QOELAB_LINT_ONLY): a full lint of two copies
on a busy machine took longer than the whole bound, and CI's own `make lint` step already
runs every linter on the real tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

#: The checks the copies run (names as in scripts/lint.sh).
LINTERS_UNDER_TEST = "ruff-format ruff eslint"

#: `make test` passes at once; every other target is the real make's, told that the linked
#: environments are up to date (-o): an install step in the copy would write through the
#: links into the real .venv and node_modules.
MAKE_STAND_IN = """#!/usr/bin/env bash
if [ "${{1:-}}" = test ]; then echo "make test: stand-in for the CI gate test"; exit 0; fi
exec {real_make} -o .venv/.synced -o frontend/node_modules/.package-lock.json "$@"
"""


def _copy_tree(destination: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = REPO / os.fsdecode(name)
        if not source.is_file():  # deleted in the working tree but still in the index
            continue
        target = destination / os.fsdecode(name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    for environment in (".venv", "frontend/node_modules"):
        (destination / environment).symlink_to(REPO / environment, target_is_directory=True)
    return destination


def _run_ci(tree: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    real_make = shutil.which("make")
    assert real_make, "make is not installed"
    stand_in = bin_dir / "make"
    stand_in.write_text(MAKE_STAND_IN.format(real_make=real_make), encoding="utf-8")
    stand_in.chmod(0o755)
    env = {
        **os.environ,
        "QOELAB_CI_SKIP_SETUP": "1",
        "QOELAB_LINT_ONLY": LINTERS_UNDER_TEST,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    }
    return subprocess.run(
        ["bash", str(tree / ".ci" / "run")],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        # A bound against a hang, not a speed target: ruff and eslint over the whole tree
        # take ~1 min idle and several times that on a loaded 2-core machine.
        timeout=1800,
    )


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    for environment in (".venv", "frontend/node_modules"):
        assert (REPO / environment).is_dir(), f"{environment} is not installed (run make test)"
    return (
        _copy_tree(tmp_path_factory.mktemp("clean")),
        _copy_tree(tmp_path_factory.mktemp("broken")),
    )


def test_ci_passes_on_the_clean_tree(
    trees: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    clean, _ = trees
    result = _run_ci(clean, tmp_path_factory.mktemp("bin"))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert f"lint: all clean (only: {LINTERS_UNDER_TEST})" in result.stdout
    assert "make test: stand-in" in result.stdout


def test_ci_fails_when_a_lint_rule_is_broken(
    trees: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    _, broken = trees
    python_file = broken / "analysis" / "src" / "qoe_analysis" / "lint_gate_probe.py"
    python_file.write_text('"""Probe."""\n\nimport os\n', encoding="utf-8")
    typescript_file = broken / "frontend" / "src" / "lintGateProbe.ts"
    typescript_file.write_text(
        "export function probe(value: any): string {\n  return String(value);\n}\n",
        encoding="utf-8",
    )
    result = _run_ci(broken, tmp_path_factory.mktemp("bin"))
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-4000:]
    assert "CI: make lint failed" in output
    # Each linter names the file and the rule it caught; the summary names the linters.
    assert "lint_gate_probe.py" in output and "F401" in output, output[-4000:]
    assert "lintGateProbe.ts" in output and "no-explicit-any" in output, output[-4000:]
    summary = next(line for line in output.splitlines() if line.startswith("lint: FAILED"))
    assert "ruff" in summary.split() and "eslint" in summary.split(), summary
    # `make test` still ran: one red step does not hide the other's result.
    assert "make test: stand-in" in output
