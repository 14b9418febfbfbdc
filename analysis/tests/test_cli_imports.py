"""Importing the CLI (and the package) loads no heavy scientific library.

The libraries are imported by the functions that use them (docs/performance.md), so
``qoe-analysis --version``, ``policy check`` and argument errors answer without paying for
SciPy, scikit-learn or matplotlib. A fresh interpreter is used because the test session has
imported them already.
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
        "from qoe_analysis import RatingsValidationError, __version__",
    ],
)
def test_import_loads_no_heavy_library(statement: str) -> None:
    loaded = _modules_after(statement)
    assert not any(loaded[m] for m in HEAVY), loaded


def test_cli_imports_pandas_only_when_a_command_needs_it() -> None:
    assert _modules_after("import qoe_analysis.cli")["pandas"] is False


def test_the_public_api_still_resolves_lazily() -> None:
    loaded = _modules_after("from qoe_analysis import analyze, load_ratings, validate_ratings")
    # analyze needs SciPy only when it runs, not when it is imported
    assert loaded["pandas"] is True
    assert not any(loaded[m] for m in HEAVY), loaded


def test_condition_statistics_and_rater_agreement_do_not_import_scipy_stats() -> None:
    # the t quantile (scipy.special.stdtrit), the normal quantile of the Fieller CI
    # (scipy.special.ndtri) and the average ranks (numpy) replace scipy.stats, whose import
    # costs ~0.6 s (docs/performance.md)
    ratings = SRC.parents[1] / "fixtures" / "synthetic" / "dissertation_shape" / "ratings.csv"
    statement = (
        "import sys; from qoe_analysis import load_ratings; "
        "from qoe_analysis.stats.conditions import condition_table; "
        "from qoe_analysis.stats.reliability import inter_rater_agreement, scenario_groups; "
        "from qoe_analysis.models.logistic_model import fieller_ratio_interval; "
        f"t = load_ratings({str(ratings)!r}); "
        "condition_table(t); inter_rater_agreement(t, scenario_groups(t)); "
        "fieller_ratio_interval(2.0, -1.0, 0.1, 0.01, 0.0); "
        "assert 'scipy.stats' not in sys.modules and 'sklearn' not in sys.modules, "
        "sorted(m for m in sys.modules if m.startswith(('scipy.stats', 'sklearn')))"
    )
    _modules_after(statement)


def test_a_whole_analysis_imports_neither_scikit_learn_nor_scipy_stats() -> None:
    # the tree (tree_growth, holdout), the logistic model (newton_logistic) and the subject
    # model's connected parts reproduce scikit-learn / csgraph without importing them: with
    # them, imports were most of a small study's analysis time (docs/performance.md)
    ratings = SRC.parents[1] / "fixtures" / "synthetic" / "dissertation_shape" / "ratings.csv"
    statement = (
        "import sys, io, contextlib; from qoe_analysis.cli import main; "
        "out = io.StringIO(); "
        f"sys.argv = ['qoe-analysis', 'analyze', {str(ratings)!r}]; "
        "ctx = contextlib.redirect_stdout(out); ctx.__enter__(); code = main(); "
        "ctx.__exit__(None, None, None); "
        "assert code == 0 and out.getvalue().startswith('{'), code; "
        "heavy = ('sklearn', 'scipy.stats', 'scipy.optimize', 'scipy.sparse.csgraph', "
        "'matplotlib'); "
        "assert not [m for m in sys.modules if m.startswith(heavy)], "
        "sorted(m for m in sys.modules if m.startswith(heavy))"
    )
    _modules_after(statement)
