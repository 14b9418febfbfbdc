"""The XSAVE shim of the user-mode kernel: when it is needed, and that it builds and loads.

(The kernel tests show that it works: with it, UML boots on hosts with AVX-512/AMX.)"""

from __future__ import annotations

import ctypes
import shutil
from pathlib import Path

import pytest
from netem_agent.testing import uml

AVX2_HOST = "processor\t: 0\nflags\t\t: fpu sse sse2 avx avx2 xsave xsaveopt\n"
AMX_HOST = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 avx512f avx512bw amx_tile xsave\n"
PKU_HOST = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 pku ospke xsave\n"


@pytest.mark.parametrize(
    ("cpuinfo", "needed"),
    [(AVX2_HOST, False), (AMX_HOST, True), (PKU_HOST, True), ("", False)],
)
def test_needed_only_beyond_avx(cpuinfo: str, needed: bool) -> None:
    assert uml.needs_xstate_shim(cpuinfo) is needed


def test_builds_once_and_loads(tmp_path: Path) -> None:
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.fail("gcc is needed for the UML shim: install the Debian package 'gcc'")
    first = uml.build_xstate_shim(tmp_path)
    assert uml.build_xstate_shim(tmp_path) == first  # cached by the source's hash
    assert [p.name for p in tmp_path.iterdir()] == [Path(first).name]  # no partial left
    library = ctypes.CDLL(first)
    assert hasattr(library, "ptrace")  # the wrapper that linux.uml's calls resolve to


def test_missing_compiler_names_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(uml.shutil, "which", lambda name: None)
    with pytest.raises(uml.Missing, match="gcc"):
        uml.build_xstate_shim(tmp_path)
