"""The environment ``scripts/bootstrap-python.sh`` installs has its bytecode compiled.

Where ``PYTHONDONTWRITEBYTECODE`` is set (containers, CI) Python never writes .pyc files
itself, so an install without them makes every process compile pandas, SciPy and
scikit-learn from source again (the CLI on 1,200 ratings 1.4 s instead of 0.45 s, issue
30). The bootstrap runs ``uv sync --compile-bytecode``; this checks its result in the
environment the tests run in.
"""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

import pytest

LIBRARIES = ("numpy", "pandas", "scipy", "sklearn")


def compiled_share(package: Path) -> float:
    """The share of the package's modules with a .pyc of this interpreter."""
    tag = sys.implementation.cache_tag
    sources = list(package.rglob("*.py"))
    assert sources, f"no modules under {package}"
    compiled = sum(
        (source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc").exists() for source in sources
    )
    return compiled / len(sources)


@pytest.mark.parametrize("library", LIBRARIES)
def test_the_installed_libraries_have_their_bytecode(library: str) -> None:
    site = Path(sysconfig.get_paths()["purelib"])
    # A few files a package ships are not valid Python of this version (templates, old
    # test data): nearly all, not all, modules compile.
    assert compiled_share(site / library) >= 0.95, (
        f"{library} was installed without bytecode: run scripts/bootstrap-python.sh"
    )
