"""scripts/check_structure.py: `make lint` fails on a module over 450 lines or an import
cycle (Python, function-level imports included; TypeScript), and passes a clean tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "check_structure.py"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
    )


#: A clean tree: imports pointing one way, a 450-line module, a long generated file and a
#: long migration, a cycle that only exists for the type checker, type-only TS imports.
CLEAN = {
    "pkg/src/demo/__init__.py": "",
    "pkg/src/demo/core/__init__.py": "from demo.core import maths\n",
    "pkg/src/demo/core/maths.py": "import math\n",
    "pkg/src/demo/report.py": (
        "from typing import TYPE_CHECKING\n"
        "from demo.core import maths\n"
        "if TYPE_CHECKING:\n    from demo.cli import Args\n"
    ),
    "pkg/src/demo/cli.py": "from . import report\n\nclass Args: ...\n",
    "scripts/long.py": "x = 1\n" * 450,
    "backend/src/app/migrations/0001_initial.py": "x = 1\n" * 900,
    "frontend/src/api/schema.d.ts": "// GENERATED FILE, do not edit\n" + "export {};\n" * 900,
    "frontend/src/a.ts": (
        "import type { B } from './b';\nimport { c } from './c';\nexport const a = c;\n"
    ),
    "frontend/src/b.ts": "import { a } from './a';\nexport type B = typeof a;\n",
    "frontend/src/c.ts": "export const c = 1;\n",
}


def test_a_clean_tree_passes(tmp_path: Path) -> None:
    _write(tmp_path, CLEAN)
    result = _check(tmp_path)
    assert result.returncode == 0, result.stdout
    assert "structure: clean" in result.stdout


def test_a_module_of_451_lines_fails(tmp_path: Path) -> None:
    _write(tmp_path, {**CLEAN, "scripts/long.py": "x = 1\n" * 451})
    result = _check(tmp_path)
    assert result.returncode == 1
    assert "too long: scripts/long.py: 451 lines" in result.stdout


def test_a_long_typescript_module_fails(tmp_path: Path) -> None:
    _write(tmp_path, {**CLEAN, "frontend/src/c.ts": "export const c = 1;\n" * 451})
    result = _check(tmp_path)
    assert result.returncode == 1
    assert "too long: frontend/src/c.ts: 451 lines" in result.stdout


def test_a_cycle_hidden_in_a_function_is_reported_as_a_chain(tmp_path: Path) -> None:
    hidden = "import math\n\n\ndef run():\n    from demo import cli\n    return cli\n"
    _write(tmp_path, {**CLEAN, "pkg/src/demo/core/maths.py": hidden})
    result = _check(tmp_path)
    assert result.returncode == 1
    # `from demo import cli` resolves to the submodule; `from . import report` in cli too.
    assert (
        "import cycle: demo: demo.cli (line 1) -> demo.report (line 2) -> "
        "demo.core.maths (line 5) -> demo.cli"
    ) in result.stdout
    assert "1 import cycle(s)" in result.stdout


def test_an_edge_from_a_package_init_counts(tmp_path: Path) -> None:
    _write(tmp_path, {**CLEAN, "pkg/src/demo/core/maths.py": "import demo.core\n"})
    result = _check(tmp_path)
    assert result.returncode == 1
    assert "demo.core (line 1) -> demo.core.maths (line 1) -> demo.core" in result.stdout


def test_a_typescript_cycle_fails_but_not_through_import_type(tmp_path: Path) -> None:
    cycle = "import { a } from './a';\nexport const c = a;\n"
    _write(tmp_path, {**CLEAN, "frontend/src/c.ts": cycle})
    result = _check(tmp_path)
    assert result.returncode == 1
    assert "import cycle: frontend/src: a.ts (line 2) -> c.ts (line 1) -> a.ts" in result.stdout
    assert "b.ts" not in result.stdout  # a -> b is `import type`: erased, no cycle


def test_a_multiline_and_a_dynamic_import_count(tmp_path: Path) -> None:
    multiline = "import {\n  a,\n} from './a';\nexport const c = a;\n"
    dynamic = "export const load = () => import('./a');\n"
    for text in (multiline, dynamic):
        _write(tmp_path, {**CLEAN, "frontend/src/c.ts": text})
        result = _check(tmp_path)
        assert result.returncode == 1
        assert "-> c.ts (line 1) -> a.ts" in result.stdout


def test_the_checker_parses_the_real_tree() -> None:
    """The real tree end to end: every module parses and the report keeps its format (the
    exit code is `make lint`'s business)."""
    result = _check(REPO)
    assert result.returncode in (0, 1), result.stderr
    assert result.stdout.splitlines()[-1].startswith("structure: ")
