"""Importing the CLI (and the package) loads no heavy scientific library.

The libraries are imported by the commands that use them, so ``qoe-analysis --version``,
``policy check`` and argument errors answer without loading SciPy, scikit-learn or
matplotlib. A fresh interpreter is used because the test session has imported them already.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
HEAVY = ("scipy", "sklearn", "matplotlib")
CHECKED = [*HEAVY, "pandas"]


def _modules_after(statement: str) -> dict[str, bool]:
    code = (
        f"import sys; sys.path.insert(0, {str(SRC)!r}); {statement}; "
        "import json; "
        f"print(json.dumps({{m: m in sys.modules for m in {CHECKED!r}}}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    loaded: dict[str, bool] = json.loads(done.stdout)
    return loaded


@pytest.mark.parametrize(
    "statement",
    [
        "import qoe_analysis.cli",
        "from qoe_analysis.cli import build_parser, main",
        "import qoe_analysis.commands",
        "from qoe_analysis import RatingsValidationError, __version__",
    ],
)
def test_import_loads_no_heavy_library(statement: str) -> None:
    loaded = _modules_after(statement)
    assert not any(loaded[m] for m in HEAVY), loaded


def test_cli_imports_pandas_only_when_a_command_needs_it() -> None:
    assert _modules_after("import qoe_analysis.cli")["pandas"] is False


def test_the_public_api_resolves_on_first_use() -> None:
    assert _modules_after("import qoe_analysis")["pandas"] is False
    loaded = _modules_after("from qoe_analysis import load_ratings, validate_ratings")
    assert loaded["pandas"] is True
