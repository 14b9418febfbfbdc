"""The XSAVE shim of the user-mode kernel: when it is needed, and that it builds and loads.

(The kernel tests show that it works: with it, UML boots on hosts with AVX-512/AMX.)"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import signal
import stat
from collections.abc import Iterator
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
    # the library's own ptrace (a handle's lookup would fall through to the C library's)
    assert _address(library.ptrace) != _address(ctypes.CDLL(None).ptrace)


def _address(function: object) -> int | None:
    return ctypes.cast(function, ctypes.c_void_p).value


def test_reuses_only_a_private_library(tmp_path: Path) -> None:
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.fail("gcc is needed for the UML shim: install the Debian package 'gcc'")
    built = Path(uml.build_xstate_shim(tmp_path))
    assert stat.S_IMODE(built.stat().st_mode) & 0o022 == 0
    built.chmod(0o666)  # anyone could have replaced it: not preloaded
    with pytest.raises(RuntimeError, match="not a private file"):
        uml.build_xstate_shim(tmp_path)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    with pytest.raises(RuntimeError, match="not a private file"):
        uml.build_xstate_shim(shared)


GETREGSET, SETREGSET, NT_X86_XSTATE, TRACEME = 0x4204, 0x4205, 0x202, 0
UML_XSTATE_SIZE = 832  # UML 6.1's struct _xstate
XSTATE_BV = slice(512, 520)
OPMASK_OFFSET = 1088  # k0, in the standard XSAVE format ptrace uses


def _area_size(libc: ctypes.CDLL, pid: int) -> int:
    """The host's full XSAVE size: what a GET with a large buffer fills."""
    result, filled = _call(libc.ptrace, GETREGSET, pid, ctypes.create_string_buffer(65536))
    assert result == 0
    return filled


@pytest.fixture
def stopped_child() -> Iterator[int]:
    """A child process that asked to be traced and stopped itself."""
    libc = ctypes.CDLL(None, use_errno=True)
    pid = os.fork()
    if pid == 0:  # the child: only async-signal-safe calls until it is killed
        libc.ptrace(TRACEME, 0, None, None)
        os.kill(os.getpid(), signal.SIGSTOP)
        os._exit(0)
    try:
        _, status = os.waitpid(pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status)
        yield pid
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def _call(
    function: object, request: int, pid: int, buffer: ctypes.Array[ctypes.c_char]
) -> tuple[int, int]:
    """``ptrace(request, pid, NT_X86_XSTATE, &iov)`` on ``buffer``: (result, iov_len after)."""
    iov = (ctypes.c_void_p * 2)(ctypes.addressof(buffer), len(buffer))
    function.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]  # type: ignore[attr-defined]
    function.restype = ctypes.c_long  # type: ignore[attr-defined]
    result: int = function(request, pid, NT_X86_XSTATE, ctypes.addressof(iov))  # type: ignore[operator]
    return result, int(iov[1] or 0)


def _regset(function: object, request: int, pid: int, buffer: ctypes.Array[ctypes.c_char]) -> int:
    return _call(function, request, pid, buffer)[0]


def test_uml_sized_set_works_through_the_shim(stopped_child: int, tmp_path: Path) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    shim = ctypes.CDLL(uml.build_xstate_shim(tmp_path), use_errno=True)
    full = ctypes.create_string_buffer(65536)
    assert _regset(libc.ptrace, GETREGSET, stopped_child, full) == 0
    avx512 = "avx512f" in Path("/proc/cpuinfo").read_text()
    if avx512:  # give the child AVX-512 state of its own (k0 = 1), so "kept" is visible
        size = _area_size(libc, stopped_child)
        state = bytearray(full.raw[:size])
        features = int.from_bytes(state[XSTATE_BV], "little") | 0xE0
        state[XSTATE_BV] = features.to_bytes(8, "little")
        state[OPMASK_OFFSET] = 1
        crafted = ctypes.create_string_buffer(bytes(state), size)
        assert _regset(libc.ptrace, SETREGSET, stopped_child, crafted) == 0
        assert _regset(libc.ptrace, GETREGSET, stopped_child, full) == 0
        assert int.from_bytes(full.raw[XSTATE_BV], "little") & 0xE0 == 0xE0
    before = full.raw
    uml_part = ctypes.create_string_buffer(UML_XSTATE_SIZE)
    if uml.needs_xstate_shim():
        # the C library's call: the host refuses a SET smaller than its XSAVE area
        assert _regset(libc.ptrace, GETREGSET, stopped_child, uml_part) == 0
        assert _regset(libc.ptrace, SETREGSET, stopped_child, uml_part) == -1
        assert ctypes.get_errno() == errno.EFAULT
    # through the shim: the SET succeeds and the state beyond UML's part is kept (on a host
    # whose area fits UML's, the shim passes both calls through)
    assert _regset(shim.ptrace, GETREGSET, stopped_child, uml_part) == 0
    assert _regset(shim.ptrace, SETREGSET, stopped_child, uml_part) == 0
    assert _regset(libc.ptrace, GETREGSET, stopped_child, full) == 0
    assert full.raw == before
    # a buffer the shim has not seen: the components beyond AVX start from their initial
    # state, never from another thread's
    other = ctypes.create_string_buffer(uml_part.raw, UML_XSTATE_SIZE)
    assert _regset(shim.ptrace, SETREGSET, stopped_child, other) == 0
    assert _regset(libc.ptrace, GETREGSET, stopped_child, full) == 0
    features = int.from_bytes(full.raw[XSTATE_BV], "little")
    assert features & 0xE0 == 0  # AVX-512 opmask, ZMM_Hi256, Hi16_ZMM
